import math

import pytest

from clarion.errors import InputError
from clarion.evaluate.result import Evaluation, bootstrap, paired_difference


def evaluation(values):
    return Evaluation({"R": sum(values) / len(values)}, {"R": {str(i): v for i, v in enumerate(values)}})


def test_bootstrap_matches_the_standard_error_of_a_mean():
    values = [float(i % 2) for i in range(400)]  # std 0.5, so the standard error is 0.5 / sqrt(400) = 0.025
    interval = evaluation(values).bootstrap("R")
    assert interval.value == pytest.approx(0.5)
    assert interval.se == pytest.approx(0.5 / math.sqrt(400), rel=0.05)
    assert interval.low < 0.5 < interval.high
    assert interval.high - interval.low == pytest.approx(2 * 1.96 * interval.se, rel=0.1)


def test_bootstrap_is_seeded_and_zero_for_constant_values():
    ev = evaluation([0.1, 0.9, 0.4, 0.7])
    assert ev.bootstrap("R") == ev.bootstrap("R")
    assert ev.bootstrap("R", seed=1) != ev.bootstrap("R")
    assert evaluation([0.3] * 10).bootstrap("R").se == pytest.approx(0.0)


def test_bootstrap_needs_per_query_values():
    with pytest.raises(InputError, match="R@30"):
        Evaluation({"R@30": 0.9}).bootstrap("R@30")


def test_bootstrap_of_a_corpus_statistic_agrees_with_the_vectorised_mean():
    values = [0.2, 0.9, 0.4, 0.7, 0.1]
    one_by_one = bootstrap(len(values), lambda rows: sum(values[i] for i in rows) / len(rows), resamples=500)
    vectorised = evaluation(values).bootstrap("R", resamples=500)
    for field in ("value", "se", "low", "high"):
        assert getattr(one_by_one, field) == pytest.approx(getattr(vectorised, field))
    for n in (0, -1, 2.5, None):
        with pytest.raises(InputError, match="nothing to resample"):
            bootstrap(n, len)


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"metric": "X"}, "metric 'X' has no per-query values"),
        ({"resamples": 0}, "resamples must be an integer from 1 to 1,000,000, got 0"),
        ({"resamples": -1}, "got -1"),
        ({"resamples": 2.5}, "got 2.5"),
        ({"resamples": "10"}, "got '10'"),
        ({"resamples": 10**12}, "got 1000000000000"),
        ({"seed": -1}, "seed must be a non-negative integer, got -1"),
        ({"seed": "a"}, "seed must be"),
    ],
)
def test_bootstrap_refuses_bad_options(options, message):
    options = {"metric": "R", **options}
    with pytest.raises(InputError, match=message):
        evaluation([0.1, 0.9]).bootstrap(**options)


def test_paired_difference_cancels_what_both_systems_share():
    # query difficulty varies a lot, the variant adds 0.1 everywhere: the paired interval is exactly 0.1
    base = {f"q{i}": i / 20 for i in range(20)}
    a = Evaluation({"R": sum(base.values()) / 20}, {"R": base})
    b = Evaluation({"R": 0.0}, {"R": {k: v + 0.1 for k, v in base.items()}})
    diff = paired_difference(a, b, "R")
    assert math.isclose(diff.value, 0.1) and diff.se < 1e-12
    assert math.isclose(diff.low, 0.1) and math.isclose(diff.high, 0.1)
    # one query up by 1 of 4: mean +0.25, interval within [0, 1], reversed sign the other way round
    a = Evaluation({}, {"R": {"q1": 0.0, "q2": 0.5, "q3": 0.5, "q4": 1.0}})
    b = Evaluation({}, {"R": {"q1": 1.0, "q2": 0.5, "q3": 0.5, "q4": 1.0}})
    up, down = paired_difference(a, b, "R"), paired_difference(b, a, "R")
    assert up.value == 0.25 and 0 <= up.low <= up.high <= 1 and down.value == -0.25


def test_paired_difference_needs_the_same_queries():
    a = Evaluation({}, {"R": {"q1": 0.0, "q2": 1.0}})
    with pytest.raises(InputError, match="different queries.*'q3'"):
        paired_difference(a, Evaluation({}, {"R": {"q1": 0.0, "q3": 1.0}}), "R")
    with pytest.raises(InputError, match="variant has no per-query values of 'P'"):
        paired_difference(Evaluation({}, {"P": {"q1": 1.0}}), a, "P")

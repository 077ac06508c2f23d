import math

import pytest

from clarion.errors import InputError
from clarion.evaluate.result import Evaluation, bootstrap


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

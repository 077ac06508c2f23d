"""The tuner: targets (parsing, validation, labels), the random search over a method's parameters (defaults,
ties, n_runs, the normalisation) and its exact errors."""

from __future__ import annotations

import pytest
from fuse_runs import INF, NAN, A, B

from clarion.errors import InputError
from clarion.fuse import Target, random_search


def test_target_parse():
    assert Target.parse("best:mrr=0.5") == Target("mrr", 0.5, "best")
    assert Target.parse("recall@30") == Target("recall@30", 1.0, "default")
    for bad in ("", "mrr=x", "mrr=-1", None, 3):
        with pytest.raises(InputError):
            Target.parse(bad)


def test_random_search_keeps_defaults_first_and_finds_a_better_alpha():
    # The NDCG run is right about q; the MRR run is wrong: alpha near 0 wins.
    qrels = {"default": {"q": {"c": 1}}}
    m = {"q": {"a": 3.0, "b": 2.0, "c": 1.0}}
    n = {"q": {"c": 3.0, "b": 2.0, "a": 1.0}}
    result = random_search("alpha", [m], qrels, [Target("mrr")], n, n_trials=8, seed=1)
    assert result.trials[0].params == {"alpha": 0.5}
    assert len(result.trials) == 8
    assert result.best.params["alpha"] < 0.5 and result.best.score == 1.0
    fixed = random_search("alpha", [m], qrels, [Target("mrr")], n, n_trials=3, fixed={"alpha": 0.9})
    assert all(t.params == {"alpha": 0.9} for t in fixed.trials)
    tried = []
    with pytest.raises(InputError, match="target 'other:mrr' names qrels 'other'; given: default"):
        random_search("alpha", [m], qrels, [Target("mrr", qrels="other")], n, n_trials=1, on_trial=tried.append)
    assert tried == []  # refused before the first trial


def test_random_search_rejects_qrels_that_judge_no_query_of_the_runs():
    m, n = {"q": {"a": 1.0}}, {"q": {"b": 1.0}}
    with pytest.raises(InputError, match="qrels 'best' judges no query of the runs"):
        random_search("alpha", [m], {"best": {"zz": {"a": 1}}}, [Target("mrr", qrels="best")], n, n_trials=1)
    with pytest.raises(InputError, match="qrels 'default' holds no judgments"):
        random_search("alpha", [m], {"default": {}}, [Target("mrr")], n, n_trials=1)


def test_random_search_rejects_bad_runs_before_any_trial():
    seen = []
    with pytest.raises(InputError, match="run 1, query 'q', candidate 'a'"):
        random_search(
            "rrf", [{"q": {"a": NAN, "b": 1.0}}, B], {"default": {"q": {"b": 1}}}, [Target("mrr")], on_trial=seen.append
        )
    assert seen == []


@pytest.mark.parametrize(
    ("weight", "metric"), [(NAN, "mrr"), (INF, "mrr"), (-1.0, "mrr"), (0, "mrr"), (True, "mrr"), (1.0, "")]
)
def test_target_is_validated_by_its_constructor(weight, metric):
    with pytest.raises(InputError, match="target"):
        Target(metric, weight)


# Pinned by mutation testing: the tuner's defaults, ties and n_runs, and the exact error messages.


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda: Target("mrr", 1.0, 5), "target 'mrr': qrels must be a qrels name, got 5"),
        (lambda: Target.parse(3), "target must be a string such as 'best:mrr=0.5', got int"),
        (lambda: Target.parse("best:"), "target 'best:': expected [QRELS:]METRIC[=WEIGHT], e.g. best:mrr=0.5"),
        (lambda: Target.parse("mrr=x"), "target 'mrr=x': weight 'x' is not a number"),
        (lambda: Target.parse("mrr=inf"), "target 'mrr=inf': weight must be a positive number"),
        (lambda: Target.parse("mrr=0"), "target 'mrr=0': weight must be a positive number"),
    ],
)
def test_target_errors_are_exact(make, message):
    with pytest.raises(InputError) as err:
        make()
    assert str(err.value) == message


def test_target_label_names_the_qrels_unless_default():
    assert Target("mrr").label() == "mrr" and Target("mrr", qrels="best").label() == "best:mrr"


def test_qrels_problems_are_named_exactly():
    from clarion.fuse.tune import _check_named, overlap_problem

    judged = {"zz": {"a": 1}}
    shown = "judges no query of the runs (it judges e.g. 'zz'; the runs rank e.g. "
    assert overlap_problem(judged, {"q4", "q1", "q3", "q2"}) == shown + "'q1', 'q2', 'q3')"  # the first three
    assert overlap_problem(judged, set()) == shown + "none)"
    assert overlap_problem({}, {"q"}) == "holds no judgments" and overlap_problem({"q": {}}, {"q"}) is None
    for given, names in (({}, "none"), ({"a": {}, "b": {}}, "a, b")):
        with pytest.raises(InputError) as err:
            _check_named(Target("mrr", qrels="x"), given)
        assert str(err.value) == f"target 'x:mrr' names qrels 'x'; given: {names}"


def test_a_ranx_failure_on_a_metric_is_an_input_error(monkeypatch):
    from clarion.fuse import tune

    def fail(qrels, run, metrics):
        raise KeyError("mrr@x")

    monkeypatch.setattr(tune, "evaluate", fail)
    with pytest.raises(InputError) as err:
        tune.objective({"q": {"a": 1.0}}, {"default": {"q": {"a": 1}}}, [Target("mrr")])
    assert str(err.value) == "target metric 'mrr' is not a ranx metric ('mrr@x')"


# m: a 2, b 1, c 0 -> min-max a 1, b .5, c 0; n: c 4, a 1, b 0 -> c 1, a .25, b 0.
# alpha .5: a .625, b .25, c .5 -> a, c, b: c (relevant) at rank 2, MRR 1/2.
TM = {"q": {"a": 2.0, "b": 1.0, "c": 0.0}}
TN = {"q": {"c": 4.0, "a": 1.0, "b": 0.0}, "r": {"x": 1.0}}
TQRELS = {"default": {"q": {"c": 1}}}


def test_random_search_defaults_are_50_trials_from_seed_0_and_reproducible():
    result = random_search("alpha", [TM], TQRELS, [Target("mrr")], TN)
    assert len(result.trials) == 50
    again = random_search("alpha", [TM], TQRELS, [Target("mrr")], TN, n_trials=50, seed=0)
    assert [t.params for t in again.trials] == [t.params for t in result.trials]


def test_random_search_trials_hold_each_target_and_the_weighted_score():
    tried = []
    targets = [Target("mrr", 2.0, "best")]
    result = random_search("alpha", [TM], {"best": TQRELS["default"]}, targets, TN, n_trials=2, on_trial=tried.append)
    assert tried == result.trials
    assert result.trials[0].metrics == {"best:mrr": pytest.approx(0.5)} and result.trials[0].score == pytest.approx(1.0)


def test_random_search_ties_keep_the_defaults():
    # the MRR run equal to the NDCG run: every alpha ranks alike, so every trial ties with the defaults
    result = random_search("alpha", [TM], TQRELS, [Target("mrr")], TM, n_trials=5)
    assert result.best is result.trials[0] and result.best.params == {"alpha": 0.5}


def test_random_search_uses_the_normalisation_given():
    # alpha .4 on raw scores: a .4 * 100 = 40, c .4 * 10 + .6 * .5 = 4.3, b .6 * 1 = .6 -> b third, MRR 1/3
    # (min-max would give a .4, b .6, c .34: b first)
    m, n = {"q": {"a": 100.0, "b": 0.0, "c": 10.0}}, {"q": {"b": 1.0, "a": 0.0, "c": 0.5}}
    qrels = {"default": {"q": {"b": 1}}}
    result = random_search("alpha", [m], qrels, [Target("mrr")], n, norm="none", n_trials=1, fixed={"alpha": 0.4})
    assert result.best.score == pytest.approx(1 / 3)


def test_random_search_counts_the_ndcg_run_among_the_queries_and_the_runs():
    # qrels judging only r, a query of the NDCG run alone: x is first for r
    assert random_search("alpha", [TM], {"default": {"r": {"x": 1}}}, [Target("mrr")], TN, n_trials=1).best.score == 1
    for runs, ndcg in (([A, B], None), ([A], B)):  # wsum samples one weight per run, the NDCG run included
        result = random_search("wsum", runs, TQRELS, [Target("mrr")], ndcg, n_trials=3)
        assert result.trials[0].params == {} and all(len(t.params["weights"]) == 2 for t in result.trials[1:])


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"targets": []}, "give at least one target metric"),
        ({"targets": ["mrr"]}, "targets must be Target objects (Target.parse('mrr')), got 'mrr'"),
        ({"n_trials": 0}, "n_trials must be a whole number >= 1, got 0"),
        ({"n_trials": True}, "n_trials must be a whole number >= 1, got True"),
        ({"runs": [{"q": {"a": NAN}}]}, "MRR run 1, query 'q', candidate 'a': score must be a finite number, got nan"),
        ({"ndcg_run": {"q": {"a": NAN}}}, "NDCG run, query 'q', candidate 'a': score must be a finite number, got nan"),
        (
            {"method": "rrf", "runs": [{"q": {"a": NAN}}, B], "ndcg_run": None},
            "run 1, query 'q', candidate 'a': score must be a finite number, got nan",
        ),
    ],
)
def test_random_search_errors_are_exact(kwargs, message):
    args = {"method": "alpha", "runs": [A], "qrels": TQRELS, "targets": [Target("mrr")], "ndcg_run": B, "n_trials": 1}
    with pytest.raises(InputError) as err:
        random_search(**{**args, **kwargs})
    assert str(err.value) == message

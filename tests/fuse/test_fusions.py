"""The alpha ensemble, the ranx wrappers, the registry and the tuner (one ranx-backed module: kept small)."""

from __future__ import annotations

import copy

import pytest

from clarion.errors import InputError
from clarion.fuse import METHODS, Method, Target, alpha_ensemble, fuse, normalize, random_search
from clarion.types import ranked_ids

A = {"q": {"a": 3.0, "b": 2.0, "c": 1.0}, "r": {"x": 1.0, "y": 0.0}}
B = {"q": {"c": 30.0, "b": 20.0, "d": 10.0}, "r": {"y": 5.0, "x": 1.0}}


def test_alpha_ensemble_is_the_weighted_sum_of_min_max_scores():
    fused = alpha_ensemble([A], B, alpha=0.25)
    # min-max: A a1 b.5 c0 ; B c1 b.5 d0 -> a .25, b .5, c .75, d 0
    assert fused["q"] == pytest.approx({"a": 0.25, "b": 0.5, "c": 0.75, "d": 0.0})
    assert alpha_ensemble([A], B, alpha=1.0)["q"] == pytest.approx({"a": 1.0, "b": 0.5, "c": 0.0, "d": 0.0})


def test_alpha_ensemble_averages_several_mrr_runs_and_keeps_inputs():
    a, b = copy.deepcopy(A), copy.deepcopy(B)
    fused = alpha_ensemble([a, b], b, alpha=0.5)
    assert fused["q"]["c"] == pytest.approx(0.5 * (0 + 1) / 2 + 0.5 * 1)
    assert a == A and b == B


@pytest.mark.parametrize("alpha", [-0.1, 1.5, float("nan"), "0.5"])
def test_alpha_out_of_range(alpha):
    with pytest.raises(InputError, match="alpha"):
        alpha_ensemble([A], B, alpha=alpha)


def test_normalize_z_score_and_min_max():
    z = normalize(A, "z-score")["q"]
    assert z["a"] == pytest.approx(-z["c"]) and z["b"] == pytest.approx(0.0)
    assert normalize(A, "min-max")["q"] == pytest.approx({"a": 1.0, "b": 0.5, "c": 0.0})


def test_rrf_through_ranx_and_missing_queries():
    fused = fuse(Method.RRF, [A, B, {"only": {"z": 1.0}}], params={"k": 1})
    # q: a 1/2; b 1/3 + 1/3; c 1/4 + 1/2 ; d 1/4
    assert fused["q"] == pytest.approx({"a": 1 / 2, "b": 2 / 3, "c": 3 / 4, "d": 1 / 4})
    assert set(fused) == {"q", "r", "only"}


def test_weighted_sum_checks_weights():
    fused = fuse("wsum", [A, B], params={"weights": [1.0, 0.0]})
    assert ranked_ids(fused["q"])[0] == "a"
    with pytest.raises(InputError, match="weights"):
        fuse("wsum", [A, B], params={"weights": [1.0]})
    with pytest.raises(InputError, match="weight"):
        fuse("wsum", [A, B], params={"weights": [1.0, -1.0]})


def test_registry_rejects_unknown_methods_and_parameters():
    with pytest.raises(InputError, match="choose one of"):
        fuse("nope", [A, B])
    with pytest.raises(InputError, match="allowed: k"):
        fuse("rrf", [A, B], params={"kk": 3})
    with pytest.raises(InputError, match="NDCG run"):
        fuse("two-step", [A])
    with pytest.raises(InputError, match="at least two"):
        fuse("combsum", [A])
    assert set(METHODS) == set(Method)


def test_scores_that_overflow_are_an_error_naming_the_method_and_parameters():
    with pytest.raises(InputError, match=r"wsum \(weights=\[1e\+308, 1e\+308\], norm min-max\).* inf"):
        fuse("wsum", [A, A], params={"weights": [1e308, 1e308]})  # a: 1e308 * 1 + 1e308 * 1
    huge = {"q": {"a": 1e308, "b": -1e308}}
    with pytest.raises(InputError, match=r"combsum \(norm none\)"):
        fuse("combsum", [huge, huge], norm="none")
    with pytest.raises(InputError, match="gamma must be float in \\[0, 10\\]"):
        fuse("combgmnz", [A, B], params={"gamma": 1e308})  # rejected before ranx would overflow
    with pytest.raises(InputError, match="k must be int in \\[1, 1000000\\]"):
        fuse("rrf", [A, B], params={"k": 10**30})  # too large for ranx's int64 (a numba traceback)


def test_two_step_through_the_registry_matches_the_function():
    from clarion.fuse import two_step

    assert fuse("two-step", [A], B, {"p": 1}) == two_step([A], B, p=1)


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


def test_docstring_examples_run():
    import doctest
    import importlib

    # (clarion.fuse.two_step is also the name of the function the package exports, hence import_module)
    for name in ("", ".alpha", ".registry", ".standard", ".two_step"):
        module = importlib.import_module(f"clarion.fuse{name}")
        result = doctest.testmod(module)
        assert result.attempted > 0 and result.failed == 0, module.__name__


def test_docs_example_runs_and_shows_the_right_output():
    import re
    from pathlib import Path

    text = (Path(__file__).resolve().parents[2] / "docs" / "fuse.md").read_text(encoding="utf-8")
    code = re.search(r"```python\n(.*?)```", text, re.S).group(1)
    namespace: dict = {}
    exec(compile(code, "docs/fuse.md", "exec"), namespace)
    shown = re.search(r"^# (\{'q'.*\})$", code, re.M).group(1)
    assert repr(namespace["two_step"]([namespace["m1"], namespace["m2"]], namespace["n"])) == shown
    assert namespace["result"].trials[0].params["p"] == 3.0


# Input validation: bad input is an InputError naming the run, query or candidate, never a raw error or a
# silently wrong result.

NAN, INF = float("nan"), float("inf")


def test_ranx_fuse_checks_the_number_of_weights():
    from clarion.fuse import ranx_fuse

    assert ranx_fuse([A, B], "wsum", params={"weights": [1.0, 0.0]}) == fuse("wsum", [A, B], params={"weights": [1, 0]})
    for weights in ([1.0], [1.0, 1.0, 1.0], [1.0, NAN], [1.0, -1.0], "ab"):
        with pytest.raises(InputError, match="weight"):
            ranx_fuse([A, B], "wsum", params={"weights": weights})


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({"k": "a"}, "ranx rrf: parameter k must be a finite number, got 'a'"),  # numba's TypingError before
        ({"k": NAN}, "parameter k must be a finite number, got nan"),
        ({"zz": 1}, "unexpected keyword argument 'zz'"),  # a TypeError before
    ],
)
def test_ranx_fuse_refuses_parameters_ranx_cannot_take(params, message):
    from clarion.fuse import ranx_fuse

    with pytest.raises(InputError, match=message):
        ranx_fuse([A, B], "rrf", params=params)


@pytest.mark.parametrize(
    ("run", "message"),
    [
        ({"q": {"a": NAN, "b": 1.0, "c": 0.5}}, r"run 1, query 'q', candidate 'a': score must be a finite number"),
        ({"q": {"a": INF}}, "candidate 'a': score must be a finite number"),
        ({"q": {"a": None}}, "candidate 'a': score must be a finite number"),
        ({"q": {"a": "1"}}, "candidate 'a': score must be a finite number"),
        ({"q": {"a": True}}, "candidate 'a': score must be a finite number"),
        ({"q": {1: 1.0}}, "candidate id 1 must be a string"),
        ({2: {"a": 1.0}}, "query id 2 must be a string"),
        ({"q": [1.0]}, "run 1, query 'q': expected a dict"),
        ([1.0, 2.0], "run 1 must be a dict"),
        ({}, "run 1 has no candidates"),
        ({"q": {}}, "run 1 has no candidates"),
    ],
)
def test_bad_runs_are_named(run, message):
    with pytest.raises(InputError, match=message):
        fuse("rrf", [run, B])


def test_normalize_checks_scores_and_keeps_empty_queries():
    with pytest.raises(InputError, match="candidate 'a': score must be a finite number"):
        normalize({"q": {"a": NAN, "b": 1.0}})
    assert normalize({"q": {}}) == {"q": {}}


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


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: alpha_ensemble([A], None), "NDCG run must be a dict"),
        (lambda: alpha_ensemble([[1]], B), "MRR run 1 must be a dict"),
        (lambda: fuse("rrf", [A, B], params=[1]), "params must be a dict"),
        (lambda: fuse("rrf", None), "expected a list of runs"),
        (lambda: fuse("rrf", A), "expected a list of runs"),
        (lambda: fuse("two-step", [{"q": {"a": NAN}}], B), "MRR run 1, query 'q', candidate 'a'"),
    ],
)
def test_bad_arguments_are_input_errors(call, message):
    with pytest.raises(InputError, match=message):
        call()


@pytest.mark.parametrize(
    ("method", "params", "message"),
    [
        ("rbc", {"phi": 1.0}, r"phi must be float in \[0, 1\)"),
        ("logn-isr", {"sigma": 0}, r"sigma must be float in \(0, 1\]"),
    ],
)
def test_degenerate_parameter_boundaries_are_refused(method, params, message):
    runs = [{"q": {"a": 2.0, "b": 1.0}}, {"q": {"b": 2.0, "c": 1.0}}]
    with pytest.raises(InputError, match=message):
        fuse(method, runs, params=params)
    assert fuse(method, runs, params={k: 0.5 for k in params})["q"]  # just inside the boundary


# Behaviours pinned by mutation testing: the normalisation and weights reach ranx, default weights and parameter
# types, the tuner's defaults, ties and n_runs, and the exact error messages.


def test_alpha_zero_is_the_ndcg_run_alone_and_mrr_runs_must_be_a_non_empty_list():
    # alpha = 0 is allowed: only B's min-max scores count (c 1, b .5, d 0; a is absent from B: 0)
    assert alpha_ensemble([A], B, alpha=0.0)["q"] == pytest.approx({"a": 0.0, "b": 0.5, "c": 1.0, "d": 0.0})
    for runs in ([], ()):
        with pytest.raises(InputError, match=r"^mrr_runs must be a non-empty list of runs$"):
            alpha_ensemble(runs, B)


def test_the_normalisation_reaches_ranx():
    from clarion.fuse import ranx_fuse

    # norm none: raw sums. q: a 3, b 2 + 20, c 1 + 30, d 10
    raw = {"a": 3.0, "b": 22.0, "c": 31.0, "d": 10.0}
    assert ranx_fuse([A, B], "sum", norm="none")["q"] == pytest.approx(raw)
    assert fuse("combsum", [A, B], norm="none")["q"] == pytest.approx(raw)
    # alpha 0.5 on raw scores: a .5 * 3, b .5 * 2 + .5 * 20, c .5 * 1 + .5 * 30, d .5 * 10
    assert fuse("alpha", [A], B, norm="none")["q"] == pytest.approx({"a": 1.5, "b": 11.0, "c": 15.5, "d": 5.0})


def test_default_weights_are_equal():
    # three runs, weights 1/3 each on min-max scores: A a1 b.5 c0, B c1 b.5 d0, A again
    expected = {"a": 2 / 3, "b": 0.5, "c": 1 / 3, "d": 0.0}
    assert fuse("wsum", [A, B, A])["q"] == pytest.approx(expected)


def test_ndcg_run_is_one_more_run_for_the_other_methods():
    assert fuse("rrf", [A], B) == fuse("rrf", [A, B])


def test_whole_parameters_are_ints():
    from clarion.fuse.registry import check_params

    checked = check_params(METHODS[Method.TWO_STEP], {"rho_h": 2.0}, 2)
    assert checked == {"rho_h": 2, "rho_t": 1, "rho_nn": 5, "rho_nm": 10, "p": 3.0} and type(checked["rho_h"]) is int
    assert type(METHODS[Method.RRF].params[0].parse("+3", 2)) is int
    assert type(METHODS[Method.COMBGMNZ].params[0].parse("2", 2)) is float


@pytest.mark.parametrize(
    ("method", "text", "message"),
    [
        ("rrf", "-5", "k must be int in [1, 1000000], got -5"),
        ("rrf", "1" + "0" * 30, "k must be int in [1, 1000000], got 1" + "0" * 30),
        ("rrf", "abc", "k: not a number: 'abc'"),
        ("combgmnz", "1" + "0" * 20, "gamma must be float in [0, 10], got 1e+20"),
    ],
)
def test_parameter_text_is_read_as_its_kind(method, text, message):
    with pytest.raises(InputError) as err:
        METHODS[Method(method)].params[0].parse(text, 2)
    assert str(err.value) == message


def test_random_values_are_rounded_draws_from_the_search_range():
    import random

    rng = random.Random(0)
    values = [METHODS[Method.ALPHA].params[0].sample(rng, 2) for _ in range(20)]
    assert all(0 <= v <= 1 and v == round(v, 2) for v in values) and len(set(values)) > 10
    for n_runs in (2, 3):
        weights = METHODS[Method.WSUM].params[0].sample(rng, n_runs)
        assert len(weights) == n_runs and all(type(w) is float and 0 < w < 1 and w == round(w, 3) for w in weights)
        assert sum(weights) == pytest.approx(1.0, abs=0.002) and len(set(weights)) > 1


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (
            lambda: normalize(A, "l2"),
            "unknown normalisation 'l2'; choose one of: min-max, z-score, max, sum, rank, borda, none",
        ),
        (lambda: normalize(A, "borda"), "borda normalisation needs several runs; use it through ranx_fuse"),
        (lambda: normalize({"q": {"a": NAN}}), "run, query 'q', candidate 'a': score must be a finite number, got nan"),
        (lambda: fuse("rrf", [A, B], params=[1]), "rrf: params must be a dict name -> value, got list"),
        (lambda: fuse("combsum", [A, B], params={"x": 1}), "combsum: unknown parameter(s) x; allowed: none"),
        (lambda: fuse("rrf", [A, B], params={"b": 1, "a": 2}), "rrf: unknown parameter(s) a, b; allowed: k"),
        (
            lambda: fuse("two-step", [A], B, params={"rho": 1}),
            "two-step: unknown parameter(s) rho; allowed: rho_h, rho_t, rho_nn, rho_nm, p",
        ),
        (lambda: fuse("two-step", [], B), "two-step needs at least one MRR run (--mrr)"),
        (lambda: fuse("two-step", [A], B, params={"rho_h": -1}), "rho_h must be int in [0, inf), got -1"),
        (
            lambda: fuse("wsum", [A, A], params={"weights": [1e308, 1e308]}),
            "wsum (weights=[1e+308, 1e+308], norm min-max): fused score of query 'q', candidate 'a' is inf (overflow); "
            "use smaller parameter values or normalised scores (--norm)",
        ),
    ],
)
def test_fusion_errors_are_exact(call, message):
    with pytest.raises(InputError) as err:
        call()
    assert str(err.value) == message


def test_unknown_method_lists_the_methods_in_order():
    with pytest.raises(InputError, match=r"; choose one of: two-step, alpha, rrf, combsum, combmnz, "):
        fuse("nope", [A, B])


@pytest.mark.parametrize(
    ("weights", "message"),
    [
        ([1.0], "weights must be 2 numbers (one per run), got [1.0]"),
        ("ab", "weights must be 2 numbers (one per run), got 'ab'"),
        ([1.0, NAN], "weight must be float in [0, inf], got nan"),
        ([1.0, "x"], "weight must be float in [0, inf], got 'x'"),
        ([True, 1.0], "weight must be float in [0, inf], got True"),
        ([0.0, 0.0], "weights must not all be 0, got [0.0, 0.0]"),
    ],
)
def test_ranx_fuse_weight_errors_are_exact(weights, message):
    from clarion.fuse import ranx_fuse

    with pytest.raises(InputError) as err:
        ranx_fuse([A, B], "wsum", params={"weights": weights})
    assert str(err.value) == message


def test_ranx_fuse_parameter_errors_are_exact():
    from clarion.fuse import ranx_fuse

    with pytest.raises(InputError) as err:
        ranx_fuse([A, B], "rrf", params=[1])
    assert str(err.value) == "ranx rrf: params must be a dict name -> value, got list"
    with pytest.raises(InputError, match=r"^ranx rrf with \{'zz': 1\}: .*unexpected keyword argument 'zz'"):
        ranx_fuse([A, B], "rrf", params={"zz": 1})


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

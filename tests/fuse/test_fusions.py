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

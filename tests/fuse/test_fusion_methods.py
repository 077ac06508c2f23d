"""What the fusion methods compute: the alpha ensemble, normalisation, the ranx wrappers and the registry's
methods, parameters and defaults, and the docstring and docs examples (one ranx-backed module: kept small)."""

from __future__ import annotations

import copy

import pytest
from fuse_runs import A, B

from clarion.errors import InputError
from clarion.fuse import METHODS, Method, alpha_ensemble, fuse, normalize
from clarion.types import ranked_ids


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


def test_two_step_through_the_registry_matches_the_function():
    from clarion.fuse import two_step

    assert fuse("two-step", [A], B, {"p": 1}) == two_step([A], B, p=1)


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


# Behaviours pinned by mutation testing: the normalisation and weights reach ranx, default weights and parameter
# types.


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


def test_random_values_are_rounded_draws_from_the_search_range():
    import random

    rng = random.Random(0)
    values = [METHODS[Method.ALPHA].params[0].sample(rng, 2) for _ in range(20)]
    assert all(0 <= v <= 1 and v == round(v, 2) for v in values) and len(set(values)) > 10
    for n_runs in (2, 3):
        weights = METHODS[Method.WSUM].params[0].sample(rng, n_runs)
        assert len(weights) == n_runs and all(type(w) is float and 0 < w < 1 and w == round(w, 3) for w in weights)
        assert sum(weights) == pytest.approx(1.0, abs=0.002) and len(set(weights)) > 1

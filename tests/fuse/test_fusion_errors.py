"""Bad input to the fusion methods: an InputError naming the run, query, candidate or parameter, never a raw
error or a silently wrong result; the exact messages are pinned."""

from __future__ import annotations

import pytest
from fuse_runs import INF, NAN, A, B

from clarion.errors import InputError
from clarion.fuse import METHODS, Method, alpha_ensemble, fuse, normalize


@pytest.mark.parametrize("alpha", [-0.1, 1.5, float("nan"), "0.5"])
def test_alpha_out_of_range(alpha):
    with pytest.raises(InputError, match="alpha"):
        alpha_ensemble([A], B, alpha=alpha)


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


# Pinned by mutation testing: the exact error messages.


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

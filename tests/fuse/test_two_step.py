"""The two-step MRR/NDCG ensemble: hand-worked examples, properties and parameter checks."""

from __future__ import annotations

import copy
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from clarion.errors import InputError
from clarion.fuse import two_step
from clarion.fuse.two_step import _iroot, _power_equals, _ranks, _TailOrder, mrr_set
from clarion.types import ranked_ids


def run_of(*ids: str, query: str = "q") -> dict[str, dict[str, float]]:
    """A run ranking ``ids`` in the given order (scores n..1)."""
    return {query: {c: float(len(ids) - i) for i, c in enumerate(ids)}}


def order(fused, query: str = "q") -> list[str]:
    return ranked_ids(fused[query])


# Hand-worked example used by several tests.
# M1: a b c d e f      M2: b a d c f e      N: e d c b a f
M1 = run_of(*"abcdef")
M2 = run_of(*"badcfe")
N = run_of(*"edcbaf")


def sets(rho_h, rho_t, rho_nn, rho_nm):
    return mrr_set([_ranks(M1["q"]), _ranks(M2["q"])], _ranks(N["q"]), rho_h, rho_t, rho_nn, rho_nm)


def test_high_certainty_set_is_the_intersection_of_top_rho_h():
    # top-3: M1 {a,b,c}, M2 {b,a,d} -> H = {a, b}; T and N disabled.
    assert sets(3, 0, 0, 0) == {"a", "b"}
    # top-4: M1 {a,b,c,d}, M2 {b,a,d,c} -> {a,b,c,d}
    assert sets(4, 0, 0, 0) == {"a", "b", "c", "d"}


def test_top_answer_set_is_the_union_of_top_rho_t():
    assert sets(0, 1, 0, 0) == {"a", "b"}
    assert sets(0, 2, 0, 0) == {"a", "b"}
    assert sets(0, 3, 0, 0) == {"a", "b", "c", "d"}


def test_ndcg_agreement_set():
    # T(N,2) = {e,d}; T(M1,4) = {a,b,c,d}; T(M2,4) = {b,a,d,c} -> {d}
    assert sets(0, 0, 2, 4) == {"d"}
    # T(N,1) = {e}; e is 6th in M1 and 5th in M2: needs rho_nm >= 5 (some M)
    assert sets(0, 0, 1, 4) == set()
    assert sets(0, 0, 1, 5) == {"e"}


def test_head_is_ordered_by_geometric_mean_of_mrr_ranks_then_r_m1():
    # C = H(3) ∪ T(1) ∪ N(2, 4) = {a, b} ∪ {a, b} ∪ {d}.
    # rank products: a 1*2=2, b 2*1=2 (tie -> r_M1: a first), d 4*3=12.
    fused = two_step([M1, M2], N, rho_h=3, rho_t=1, rho_nn=2, rho_nm=4, p=3)
    assert order(fused)[:3] == ["a", "b", "d"]


def test_tail_is_ordered_by_r_n_to_the_p_times_r_m1():
    # Tail {c, e, f}: r_N: e1 c3 f6; r_M1: e5 c3 f6.
    # p=3: e 1*5=5, c 27*3=81, f 216*6 -> e, c, f.   p=0: by r_M1 -> c (3), e (5), f (6).
    fused = two_step([M1, M2], N, rho_h=3, rho_t=1, rho_nn=2, rho_nm=4, p=3)
    assert order(fused)[3:] == ["e", "c", "f"]
    fused = two_step([M1, M2], N, rho_h=3, rho_t=1, rho_nn=2, rho_nm=4, p=0)
    assert order(fused)[3:] == ["c", "e", "f"]


def test_tail_ties_are_exact_and_broken_by_r_m1_then_r_n_then_id():
    # p = 1. M1: h w y x, N: h x y w; head {h}.
    m = run_of("h", "w", "y", "x")
    n = run_of("h", "x", "y", "w")
    fused = two_step([m], n, rho_h=1, rho_t=1, rho_nn=0, rho_nm=0, p=1)
    # tail: w (r_N 4, r_M1 2) = 8; x 2*4 = 8; y 3*3 = 9 -> w, x tie at 8 -> w (r_M1 2) before x (r_M1 4)
    assert order(fused) == ["h", "w", "x", "y"]
    # p = 0.5 with candidates absent from M1 (c, d: rank 3 + 1) and from N (h: rank 4 + 1).
    m = run_of("h", "a", "b")
    n = run_of("b", "c", "d", "a")
    fused = two_step([m], n, rho_h=1, rho_t=1, rho_nn=0, rho_nm=0, p=0.5)
    # ranks: M: h1 a2 b3, absent c,d -> 4; N: b1 c2 d3 a4, absent h -> 5
    # tail keys: a 4^.5*2 = 4, b 1*3 = 3, c 2^.5*4 = 5.66, d 3^.5*4 = 6.93 -> b, a, c, d
    assert order(fused) == ["h", "b", "a", "c", "d"]


def test_fractional_p_true_tie_goes_to_smaller_r_m1():
    # a: r_N 4, r_M1 2 -> 4^0.5*2 = 4 ; b: r_N 16, r_M1 1 -> 16^0.5*1 = 4: exact tie -> b (r_M1 1) first
    m = run_of("b", "a", *[f"m{i}" for i in range(3)])
    n = run_of(*[f"n{i}" for i in range(3)], "a", *[f"k{i}" for i in range(11)], "b")
    fused = two_step([m], n, rho_h=0, rho_t=0, rho_nn=0, rho_nm=0, p=0.5)
    got = order(fused)
    assert got.index("b") < got.index("a")


def test_absent_candidate_gets_rank_len_plus_one_and_every_query_is_covered():
    m = {"q": {"a": 1.0}, "only_m": {"x": 1.0}}
    n = {"q": {"b": 2.0, "c": 1.0}, "only_n": {"y": 1.0}}
    fused = two_step([m], n)
    assert set(fused) == {"q", "only_m", "only_n"}
    assert set(fused["q"]) == {"a", "b", "c"}
    # a in T(M,1) -> head; tail b (r_N 1, r_M 2) then c (r_N 2, r_M 2)
    assert order(fused) == ["a", "b", "c"]
    assert fused["q"] == {"a": 3.0, "b": 2.0, "c": 1.0}


def test_inputs_are_not_modified():
    runs, ndcg = [copy.deepcopy(M1), copy.deepcopy(M2)], copy.deepcopy(N)
    two_step(runs, ndcg)
    assert runs == [M1, M2] and ndcg == N


@pytest.mark.parametrize(
    "kwargs",
    [
        {"rho_h": -1},
        {"rho_t": 1.5},
        {"rho_nn": "5"},
        {"rho_nm": True},
        {"p": -0.1},
        {"p": float("nan")},
        {"p": float("inf")},
        {"p": 100.5},  # p is bounded: a whole p is an exact integer exponent (p=1e308 would never finish)
        {"p": 101},
        {"rho_h": float("inf")},  # was a raw OverflowError
        {"rho_t": float("nan")},  # was a raw ValueError
    ],
)
def test_out_of_range_parameters_are_rejected(kwargs):
    name = next(iter(kwargs))
    with pytest.raises(InputError, match=name):
        two_step([M1], N, **kwargs)


def test_largest_p_is_fast_and_orders_the_tail_by_r_n():
    # Tail {c, e, f} as above: r_N e1 c3 f6 -> at p=100 the tail follows N whatever r_M1 says.
    fused = two_step([M1, M2], N, rho_h=3, rho_t=1, rho_nn=2, rho_nm=4, p=100)
    assert order(fused)[3:] == ["e", "c", "f"]


def test_bad_runs_are_rejected():
    with pytest.raises(InputError, match="non-empty list"):
        two_step([], N)
    with pytest.raises(InputError, match="non-empty list"):
        two_step(M1, N)
    with pytest.raises(InputError, match="finite"):
        two_step([{"q": {"a": float("nan")}}], N)
    with pytest.raises(InputError, match="NDCG run"):
        two_step([M1], [N])


ids = st.sampled_from([f"c{i}" for i in range(12)])
scores = st.integers(min_value=-5, max_value=5).map(float)
run_st = st.dictionaries(st.sampled_from(["q1", "q2", "q3"]), st.dictionaries(ids, scores, max_size=10), max_size=3)
params = st.fixed_dictionaries(
    {
        "rho_h": st.integers(0, 6),
        "rho_t": st.integers(0, 3),
        "rho_nn": st.integers(0, 8),
        "rho_nm": st.integers(0, 10),
        "p": st.one_of(st.integers(0, 4).map(float), st.sampled_from([0.5, 1.5, 2.25, 2.7])),
    }
)


@settings(max_examples=150, deadline=None)
@given(st.lists(run_st, min_size=1, max_size=3), run_st, params)
def test_output_is_a_permutation_of_the_union_with_strictly_decreasing_scores(mrr_runs, ndcg, kw):
    fused = two_step(mrr_runs, ndcg, **kw)
    queries = set(ndcg).union(*mrr_runs)
    assert set(fused) == queries
    for q in queries:
        union = set(ndcg.get(q, {})).union(*(r.get(q, {}) for r in mrr_runs))
        assert set(fused[q]) == union
        values = [fused[q][c] for c in ranked_ids(fused[q])]
        assert all(a > b for a, b in zip(values, values[1:], strict=False))


@settings(max_examples=150, deadline=None)
@given(run_st, params)
def test_one_mrr_model_equal_to_n_keeps_its_order(run, kw):
    fused = two_step([run], run, **kw)
    for q, scores in run.items():
        assert order(fused, q) == ranked_ids(scores)


# Behaviours pinned by mutation testing: exact orders, the exact tail comparator, and the paper defaults.


def test_defaults_are_the_papers():
    # an example where raising any one parameter by 1 changes the fused order
    mrr, ndcg = [run_of(*"iegkdbjhcfa"), run_of(*"jbkhcefdgia")], run_of(*"jfiahgbdkce")
    paper = {"rho_h": 3, "rho_t": 1, "rho_nn": 5, "rho_nm": 10, "p": 3.0}
    assert two_step(mrr, ndcg) == two_step(mrr, ndcg, **paper)
    for name, value in paper.items():
        assert two_step(mrr, ndcg, **{**paper, name: value + 1}) != two_step(mrr, ndcg), name


def test_head_is_ordered_by_the_product_of_mrr_ranks_before_r_m1():
    # M1 a b c, M2 c b a; H(3) = {a, b, c}. Products: a 1*3 = 3, b 2*2 = 4, c 3*1 = 3 -> a, c (3, r_M1 3), b.
    fused = two_step([run_of(*"abc"), run_of(*"cba")], run_of(*"abc"), rho_h=3, rho_t=0, rho_nn=0, rho_nm=0)
    assert fused["q"] == {"a": 3.0, "c": 2.0, "b": 1.0}


def test_head_ties_in_product_and_r_m1_go_by_r_n():
    # M1 a, M2 x y, M3 y x, N y x; T(M, 1) = {a, x, y}. x and y are absent from M1 (rank 1 + 1 = 2) and a from
    # M2 and M3 (rank 2 + 1 = 3). Products: a 1*3*3 = 9, x 2*1*2 = 4, y 2*2*1 = 4; x, y tie on r_M1 too -> r_N: y 1.
    fused = two_step([run_of("a"), run_of("x", "y"), run_of("y", "x")], run_of("y", "x"), 0, 1, 0, 0)
    assert order(fused) == ["y", "x", "a"]


def test_a_candidate_absent_from_m1_gets_rank_len_plus_one_in_the_tail_key():
    # M1 h y, N x y h, p = 1; head {h}. Tail: x r_N 1 * r_M1 (absent: 2 + 1) = 3 < y 2 * 2 = 4 -> x before y
    # (with rank len + 2, x would tie y at 4 and go after it, by r_M1).
    fused = two_step([run_of("h", "y")], run_of("x", "y", "h"), rho_h=1, rho_t=1, rho_nn=0, rho_nm=0, p=1)
    assert order(fused) == ["h", "x", "y"]


def test_fractional_p_scores_are_still_n_to_1():
    # the p = 0.5 example of test_tail_ties_are_exact_and_broken_by_r_m1_then_r_n_then_id: h, b, a, c, d
    fused = two_step([run_of("h", "a", "b")], run_of("b", "c", "d", "a"), rho_h=1, rho_t=1, rho_nn=0, rho_nm=0, p=0.5)
    assert fused["q"] == {"h": 5.0, "b": 4.0, "a": 3.0, "c": 2.0, "d": 1.0}


@pytest.mark.parametrize(
    ("p", "items", "expected"),
    [
        # whole p: the key is r_N ** p * r_M1: a 3**2 * 1 = 9, b 1**2 * 5 = 5 -> b first
        (2, [(3, 1, "a"), (1, 5, "b")], ["b", "a"]),
        # tie 2 * 4 = 4 * 2 = 8: the smaller r_M1 first, whatever the ids say
        (1, [(2, 4, "a"), (4, 2, "z")], ["z", "a"]),
        # p = 0: the key is r_M1; tie at 1 -> r_N (2 before 5) before the id
        (0, [(5, 1, "a"), (2, 1, "b")], ["b", "a"]),
        # fractional p: x 1**.5 * 1 = 1, then an exact tie 4**.5 * 2 = 16**.5 * 1 = 4 -> b (r_M1 1) before a
        (0.5, [(1, 1, "x"), (4, 2, "a"), (16, 1, "b")], ["x", "b", "a"]),
        (0.5, [(4, 2, "a"), (16, 1, "b")], ["b", "a"]),
        # keys equal as floats: 200003 * 100000**2 = 2000030000000000 = 199999 * 100001**2 + 1 -> b first
        (0.5, [(200003, 100000, "a"), (199999, 100001, "b")], ["b", "a"]),
        (0.5, [(199999, 100001, "b"), (200003, 100000, "a")], ["b", "a"]),
    ],
)
def test_tail_order(p, items, expected):
    assert [c for _, _, c in _TailOrder(p).sort(items)] == expected


def test_tail_comparator_orders_by_the_exact_key_then_r_m1_r_n_id():
    compare = _TailOrder(0.5)._compare
    # far apart: 16**.5 * 1 = 4 > 1**.5 * 2 = 2, though r_M1 says otherwise
    assert compare((16, 1, "a"), (1, 2, "b")) > 0 and compare((1, 2, "b"), (16, 1, "a")) < 0
    # exact tie 4**.5 * 2 = 16**.5 * 1 = 4: the smaller r_M1 first
    assert compare((4, 2, "a"), (16, 1, "b")) > 0 and compare((16, 1, "b"), (4, 2, "a")) < 0
    # the same ranks (two candidates absent from both runs): the id decides
    assert compare((5, 4, "b"), (5, 4, "a")) > 0 and compare((5, 4, "a"), (5, 4, "b")) < 0
    # distinct keys whose logs differ by 6e-10 (< 1e-9, the 60-digit path): squared, the keys are
    # 88888889 * 3**2 = 800000001 and 200000000 * 2**2 = 800000000, so a is after b
    a, b = (88888889, 3, "a"), (200000000, 2, "b")
    assert compare(a, b) > 0 and compare(b, a) < 0
    # keys whose logs are equal as floats (see test_tail_order): only the 60-digit path orders them
    a, b = (200003, 100000, "a"), (199999, 100001, "b")
    assert compare(a, b) > 0 and compare(b, a) < 0


def test_iroot_is_the_exact_integer_root_or_none():
    assert (_iroot(1, 2), _iroot(8, 3), _iroot(1000, 3)) == (1, 2, 10)
    assert _iroot(10, 2) is None and _iroot(4, 3) is None
    # past 2**53 the float guess can be one off either way; the integer check around it corrects that
    r = 721188122387674  # round((r**3) ** (1 / 3)) is r - 1 here
    assert _iroot(r**3, 3) == r
    r = 350609987623410  # round((r**5) ** (1 / 5)) is r + 1 here
    assert _iroot(r**5, 5) == r


def test_power_equals_is_exact_for_rationals():
    f = Fraction
    assert _power_equals(f(3), f(0), f(1)) and not _power_equals(f(3), f(0), f(3))  # x ** 0 = 1
    assert _power_equals(f(2), f(1), f(2))
    assert _power_equals(f(4), f(1, 2), f(2)) and not _power_equals(f(4), f(1, 2), f(3))
    assert _power_equals(f(1, 4), f(1, 2), f(1, 2))  # the denominator's root too
    assert _power_equals(f(4), f(3, 2), f(8))  # root 2, cubed
    assert not _power_equals(f(2), f(1, 2), f(1)) and not _power_equals(f(2), f(1, 2), f(2))  # sqrt(2) is irrational
    assert not _power_equals(f(64), f(1, 2), f(1))  # 8 != 1, far apart (the early exit)
    assert _power_equals(f(3, 2), f(10), f(3**10, 2**10))  # a high power of a base near 1 is not cut short


@pytest.mark.parametrize("kwargs", [{"p": "3"}, {"p": True}])
def test_p_must_be_a_real_number(kwargs):
    with pytest.raises(InputError, match=r"^p must be a number in \[0, 100\] \(the paper uses 3\), got "):
        two_step([M1], N, **kwargs)


def test_run_errors_are_exact():
    with pytest.raises(InputError, match=r"^mrr_runs must be a non-empty list of runs \(the MRR models, most accurate"):
        two_step("ab", N)  # a string is a sequence, but not of runs
    with pytest.raises(InputError, match=r"^NDCG run must be a dict"):
        two_step([M1], [N])

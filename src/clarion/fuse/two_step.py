"""The two-step MRR/NDCG rank ensemble.

Schwartz, I. "Ensemble of MRR and NDCG models for Visual Dialog", NAACL 2021 (winner of the Visual Dialog
Challenge 2020). Given only rankings, it merges MRR-oriented models (good at the single best candidate) with
an NDCG-oriented model (good at ranking every relevant candidate). For one query:

- ranks: each run is sorted by score descending, ties by candidate id ascending; ranks are 1-based; a
  candidate absent from a run gets rank ``len(run[query]) + 1``.
- ``T(M, n)``: the candidates model ``M`` ranked at 1..n (only candidates present in ``M``'s run).
- ``H`` = ⋂_M T(M, ρh) (high certainty), ``T`` = ⋃_M T(M, ρt) (top answers),
  ``N`` = ⋃_M T(N, ρnn) ∩ T(M, ρnm) (NDCG agreement).
- The MRR set ``C = H ∪ T ∪ N`` comes first, by the geometric mean of its ranks over the MRR models; every
  other candidate follows, by ``r_N^p · r_M1``. Ties, in both parts: ``r_M1``, then ``r_N``, then id.

Comparisons are exact: the geometric means of a query all have the same number of factors, so they are
compared as integer products; for integer ``p`` the tail key is an integer, and for fractional ``p`` an exact
tie test (rational exponent, integer roots) decides ties before any floating-point comparison.

>>> two_step([{"q": {"a": 3.0, "b": 2.0, "c": 1.0}}], {"q": {"c": 3.0, "b": 2.0, "a": 1.0}}, rho_h=1)
{'q': {'a': 3.0, 'b': 2.0, 'c': 1.0}}
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from decimal import Decimal, localcontext
from fractions import Fraction
from functools import cmp_to_key
from numbers import Real

from clarion.errors import InputError
from clarion.types import Run, check_run, ranked_ids

PARAM_RANGES = {"rho_h": (0, None), "rho_t": (0, None), "rho_nn": (0, None), "rho_nm": (0, None)}
"""Allowed integer ranges of the ρ parameters (inclusive; ``None`` = unbounded); 0 disables a rule."""


def _check_int(name: str, value) -> int:
    low, high = PARAM_RANGES[name]
    if isinstance(value, bool) or not isinstance(value, Real) or not math.isfinite(value) or value != int(value):
        raise InputError(f"{name} must be a whole number >= {low}, got {value!r}")
    value = int(value)
    if value < low or (high is not None and value > high):
        raise InputError(f"{name} must be >= {low}, got {value}")
    return value


P_MAX = 100.0
"""Largest allowed ``p``. The tail key ``r_N^p · r_M1`` is exact (an integer for whole ``p``), so its cost grows
with ``p`` (``p = 1e5`` took seconds per query); a larger ``p`` only orders the tail more strictly by ``r_N``."""


def _check_p(p) -> float:
    if isinstance(p, bool) or not isinstance(p, Real) or not math.isfinite(p) or not 0 <= p <= P_MAX:
        raise InputError(f"p must be a number in [0, {P_MAX:g}] (the paper uses 3), got {p!r}")
    return float(p)


def _ranks(scores: Mapping[str, float]) -> dict[str, int]:
    return {cand: rank for rank, cand in enumerate(ranked_ids(dict(scores)), start=1)}


def _iroot(x: int, d: int) -> int | None:
    """The integer d-th root of ``x`` (>= 1) when ``x`` is a perfect d-th power, else None."""
    if x == 1:
        return 1
    if d > x.bit_length():
        return None
    guess = round(x ** (1.0 / d))
    for r in (guess - 1, guess, guess + 1):
        if r >= 1 and r**d == x:
            return r
    return None


def _power_equals(base: Fraction, p: Fraction, target: Fraction) -> bool:
    """Exactly whether ``base ** p == target`` for positive rationals and rational ``p >= 0``."""
    if p == 0 or base == 1:
        return target == 1
    n, d = p.numerator, p.denominator
    num, den = _iroot(base.numerator, d), _iroot(base.denominator, d)
    if num is None or den is None:
        return False  # base^(n/d) is irrational while target is rational
    root = Fraction(num, den)  # base ** p == root ** n
    if n * abs(math.log2(root)) > abs(math.log2(target)) + 2:
        return False
    return root**n == target


_CLOSE = 1e-9
"""Float log-values closer than this are compared exactly (tie test) or with 60-digit decimals."""


class _TailOrder:
    """Orders tail candidates by ``r_N ** p * r_M1`` (exactly), then ``r_M1``, ``r_N``, id."""

    def __init__(self, p: float):
        self.p = p
        self.fraction = Fraction(p)
        self.integral = self.fraction.denominator == 1

    def sort(self, items: list[tuple[int, int, str]]) -> list[tuple[int, int, str]]:
        """``items`` are ``(r_N, r_M1, candidate)``."""
        if self.integral:
            e = self.fraction.numerator
            return sorted(items, key=lambda it: (it[0] ** e * it[1], it[1], it[0], it[2]))
        # Sort by the float value, then re-sort exactly every cluster of (nearly) equal values: true ties
        # always land in one cluster, so the exact comparator decides them.
        keyed = sorted(((self.p * math.log(it[0]) + math.log(it[1]), it) for it in items), key=lambda kv: kv[0])
        out: list[tuple[int, int, str]] = []
        start = 0
        for end in range(1, len(keyed) + 1):
            if end == len(keyed) or keyed[end][0] - keyed[end - 1][0] >= _CLOSE:
                cluster = [it for _, it in keyed[start:end]]
                out.extend(sorted(cluster, key=cmp_to_key(self._compare)) if len(cluster) > 1 else cluster)
                start = end
        return out

    def _compare(self, a: tuple[int, int, str], b: tuple[int, int, str]) -> int:
        # a_N^p a_M = b_N^p b_M  <=>  (a_N / b_N)^p = b_M / a_M
        if not _power_equals(Fraction(a[0], b[0]), self.fraction, Fraction(b[1], a[1])):
            va = self.p * math.log(a[0]) + math.log(a[1])
            vb = self.p * math.log(b[0]) + math.log(b[1])
            if abs(va - vb) < _CLOSE:  # distinct but very close: decide with 60 significant digits
                with localcontext() as ctx:
                    ctx.prec = 60
                    dp = Decimal(self.fraction.numerator) / Decimal(self.fraction.denominator)
                    va = dp * Decimal(a[0]).ln() + Decimal(a[1]).ln()
                    vb = dp * Decimal(b[0]).ln() + Decimal(b[1]).ln()
            return -1 if va < vb else 1
        ka, kb = (a[1], a[0], a[2]), (b[1], b[0], b[2])
        return (ka > kb) - (ka < kb)


def mrr_set(
    mrr_ranks: Sequence[Mapping[str, int]],
    ndcg_ranks: Mapping[str, int],
    rho_h: int,
    rho_t: int,
    rho_nn: int,
    rho_nm: int,
) -> set[str]:
    """``C = H ∪ T ∪ N`` for one query, from each model's ranks of the candidates it ranked."""

    def top(ranks: Mapping[str, int], n: int) -> set[str]:
        return {c for c, r in ranks.items() if r <= n}

    high = set.intersection(*(top(r, rho_h) for r in mrr_ranks))
    tops = set().union(*(top(r, rho_t) for r in mrr_ranks))
    ndcg_top = top(ndcg_ranks, rho_nn)
    agree = set().union(*(ndcg_top & top(r, rho_nm) for r in mrr_ranks))
    return high | tops | agree


def _fuse_query(mrr_scores: list[Mapping[str, float]], ndcg_scores: Mapping[str, float], params, tail_order):
    rho_h, rho_t, rho_nn, rho_nm = params
    mrr_ranks = [_ranks(s) for s in mrr_scores]
    ndcg_ranks = _ranks(ndcg_scores)
    candidates = set(ndcg_ranks).union(*mrr_ranks)

    def rank(ranks: Mapping[str, int], cand: str) -> int:
        return ranks.get(cand, len(ranks) + 1)

    head = mrr_set(mrr_ranks, ndcg_ranks, rho_h, rho_t, rho_nn, rho_nm)
    head_order = sorted(
        head,
        key=lambda c: (
            math.prod(rank(r, c) for r in mrr_ranks),
            rank(mrr_ranks[0], c),
            rank(ndcg_ranks, c),
            c,
        ),
    )
    tail = [(rank(ndcg_ranks, c), rank(mrr_ranks[0], c), c) for c in candidates - head]
    order = head_order + [c for _, _, c in tail_order.sort(tail)]
    return {cand: float(len(order) - i) for i, cand in enumerate(order)}


def two_step(
    mrr_runs: list[dict[str, dict[str, float]]],
    ndcg_run: dict[str, dict[str, float]],
    rho_h=3,
    rho_t=1,
    rho_nn=5,
    rho_nm=10,
    p=3.0,
) -> dict[str, dict[str, float]]:
    """Fuse MRR-oriented runs with an NDCG-oriented run by the two-step ensemble (Schwartz 2021).

    ``mrr_runs`` lists the MRR models, most accurate first (``M1``); ``ndcg_run`` is the NDCG model. Runs map
    query id -> candidate id -> score (higher is better). The result covers every query of any input and, per
    query, every candidate of any input run, scored ``n, n-1, ..., 1`` in the fused order (strictly
    decreasing). The ρ parameters are whole numbers >= 0 (0 disables a rule), ``p`` a number in [0, 100];
    anything else raises :class:`~clarion.errors.InputError`. Inputs are never modified.
    Paper defaults: ρh=3, ρt=1, ρnn=5, ρnm=10, p=3.
    """
    if not isinstance(mrr_runs, Sequence) or isinstance(mrr_runs, str | bytes | Mapping) or not mrr_runs:
        raise InputError("mrr_runs must be a non-empty list of runs (the MRR models, most accurate first)")
    for i, run in enumerate(mrr_runs, start=1):
        check_run(run, f"MRR run {i}")
    check_run(ndcg_run, "NDCG run")
    params = tuple(
        _check_int(name, value)
        for name, value in (("rho_h", rho_h), ("rho_t", rho_t), ("rho_nn", rho_nn), ("rho_nm", rho_nm))
    )
    tail_order = _TailOrder(_check_p(p))
    queries: dict[str, None] = {}
    for run in (*mrr_runs, ndcg_run):
        queries.update(dict.fromkeys(run))
    fused: Run = {}
    for query in queries:
        fused[query] = _fuse_query(
            [run.get(query, {}) for run in mrr_runs], ndcg_run.get(query, {}), params, tail_order
        )
    return fused

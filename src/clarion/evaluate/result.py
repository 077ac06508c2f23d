"""The result type every scorer returns."""

from __future__ import annotations

from dataclasses import dataclass, field
from numbers import Integral

from clarion.errors import InputError

MAX_RESAMPLES = 1_000_000
"""The most bootstrap resamples taken (the resample matrix is ``resamples x n`` integers)."""


@dataclass
class Evaluation:
    """Mean metrics plus the per-query (topic, facet or turn) values they average."""

    means: dict[str, float]
    per_query: dict[str, dict[str, float]] = field(default_factory=dict)
    """metric -> query id -> value"""

    def __getitem__(self, metric: str) -> float:
        return self.means[metric]

    def rounded(self, digits: int = 4) -> dict[str, float]:
        return {k: round(v, digits) for k, v in self.means.items()}

    def bootstrap(self, metric: str, resamples: int = 10_000, seed: int = 0) -> Interval:
        """How far the mean of ``metric`` could move on another draw of as many queries: the mean over
        ``resamples`` resamples of the queries with replacement (Efron & Tibshirani, 1993), seeded.

        >>> Evaluation({"R": 0.5}, {"R": {"a": 0.0, "b": 1.0}}).bootstrap("R").value
        0.5
        """
        if metric not in self.per_query or not self.per_query[metric]:
            known = ", ".join(m for m, v in self.per_query.items() if v) or "none"
            raise InputError(f"metric {metric!r} has no per-query values to resample (metrics with some: {known})")
        import numpy as np

        try:
            values = np.fromiter(self.per_query[metric].values(), dtype=np.float64)
        except (TypeError, ValueError):
            raise InputError(f"per-query values of {metric!r} must be numbers") from None
        return bootstrap(len(values), lambda rows: values[rows].mean(axis=-1), resamples, seed, vectorised=True)


def paired_difference(
    baseline: Evaluation, variant: Evaluation, metric: str, resamples: int = 10_000, seed: int = 0
) -> Interval:
    """The mean per-query difference ``variant - baseline`` of ``metric`` with its paired bootstrap interval: the
    queries are resampled together, so what both systems find easy or hard cancels out. Both evaluations must hold
    per-query values of ``metric`` for the same queries.

    >>> a = Evaluation({"R": 0.5}, {"R": {"q1": 0.0, "q2": 1.0}})
    >>> b = Evaluation({"R": 0.75}, {"R": {"q1": 0.5, "q2": 1.0}})
    >>> paired_difference(a, b, "R").value
    0.25
    """
    for name, evaluation in (("baseline", baseline), ("variant", variant)):
        if not evaluation.per_query.get(metric):
            raise InputError(f"the {name} has no per-query values of {metric!r} to compare")
    first, second = baseline.per_query[metric], variant.per_query[metric]
    if first.keys() != second.keys():
        only = ", ".join(repr(k) for k in sorted(first.keys() ^ second.keys())[:3])
        raise InputError(f"{metric!r}: the two evaluations cover different queries (in one only: {only})")
    try:
        diffs = {k: second[k] - first[k] for k in sorted(first)}
    except TypeError:
        raise InputError(f"per-query values of {metric!r} must be numbers") from None
    return Evaluation({}, {metric: diffs}).bootstrap(metric, resamples, seed)


def bootstrap(n: int, statistic, resamples: int = 10_000, seed: int = 0, vectorised: bool = False) -> Interval:
    """Bootstrap ``statistic`` of ``n`` queries: ``statistic(rows)`` scores the queries at the integer
    positions ``rows`` (with repeats), and is called once per resample, or once on the ``(resamples, n)`` matrix
    of them when ``vectorised``. For corpus-level metrics (weighted F1, corpus BLEU) that are not a mean.
    ``resamples`` is an int from 1 to :data:`MAX_RESAMPLES`, ``seed`` a non-negative int.

    >>> bootstrap(3, lambda rows: float(len(rows)), resamples=10).se
    0.0
    """
    import numpy as np

    if isinstance(n, bool) or not isinstance(n, Integral) or n < 1:
        raise InputError(f"nothing to resample: the number of queries must be a positive integer, got {n!r}")
    if isinstance(resamples, bool) or not isinstance(resamples, Integral) or not 1 <= resamples <= MAX_RESAMPLES:
        raise InputError(f"resamples must be an integer from 1 to {MAX_RESAMPLES:,}, got {resamples!r}")
    if isinstance(seed, bool) or not isinstance(seed, Integral) or seed < 0:
        raise InputError(f"seed must be a non-negative integer, got {seed!r}")
    rows = np.random.default_rng(seed).integers(0, n, (resamples, n))
    stats = np.asarray(statistic(rows) if vectorised else [statistic(r) for r in rows], dtype=np.float64)
    everything = np.arange(n)
    value = statistic(everything[None, :])[0] if vectorised else statistic(everything)
    low, high = np.percentile(stats, [2.5, 97.5])
    return Interval(float(value), float(stats.std()), float(low), float(high))


@dataclass(frozen=True)
class Interval:
    """A metric's value with its bootstrap standard error and 95% percentile interval."""

    value: float
    se: float
    low: float
    high: float


def mean(values) -> float:
    values = list(values)
    return sum(values) / len(values) if values else 0.0

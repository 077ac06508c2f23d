"""The result type every scorer returns."""

from __future__ import annotations

from dataclasses import dataclass, field


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

        >>> Evaluation({"R": 0.5}, {"R": {"a": 0.0, "b": 1.0}}).bootstrap("R").mean
        0.5
        """
        import numpy as np

        if metric not in self.per_query or not self.per_query[metric]:
            raise KeyError(f"no per-query values of {metric!r} to resample")
        values = np.fromiter(self.per_query[metric].values(), dtype=np.float64)
        rng = np.random.default_rng(seed)
        means = values[rng.integers(0, len(values), (resamples, len(values)))].mean(axis=1)
        low, high = np.percentile(means, [2.5, 97.5])
        return Interval(float(values.mean()), float(means.std()), float(low), float(high))


@dataclass(frozen=True)
class Interval:
    """A mean with its bootstrap standard error and 95% percentile interval."""

    mean: float
    se: float
    low: float
    high: float


def mean(values) -> float:
    values = list(values)
    return sum(values) / len(values) if values else 0.0

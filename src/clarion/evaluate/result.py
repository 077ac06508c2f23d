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


def mean(values) -> float:
    values = list(values)
    return sum(values) / len(values) if values else 0.0

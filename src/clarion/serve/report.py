"""``clarion eval report``: mean ratings per system and need level, with 95% confidence intervals.

The unit is the finished dialogue (turns of one dialogue are not independent): each dialogue gives its 1-5
rating, whether the evaluator got what they needed (0/1), and the shares of its rated system turns judged useful and
natural. A group's mean of each is given with a Student-t 95% interval over its dialogues (mean +- t(0.975, n-1) *
sd / sqrt(n)); a group of one dialogue has no interval. Groups: (system, need kind, need level), plus each system
over all needs.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import asdict, dataclass
from statistics import fmean, stdev

MEASURES = ("rating", "satisfied", "useful", "natural")
"""What each dialogue contributes (see the module docstring)."""


@dataclass(frozen=True)
class Estimate:
    mean: float | None
    low: float | None
    high: float | None
    n: int

    def text(self, digits: int = 2) -> str:
        if self.mean is None:
            return "-"
        if self.low is None:
            return f"{self.mean:.{digits}f}"
        return f"{self.mean:.{digits}f} [{self.low:.{digits}f}, {self.high:.{digits}f}]"


def estimate(values: list[float], confidence: float = 0.95) -> Estimate:
    """The mean of ``values`` with its Student-t interval (None for an empty list; no interval for one value)."""
    if not values:
        return Estimate(None, None, None, 0)
    mean = fmean(values)
    if len(values) < 2:
        return Estimate(mean, None, None, 1)
    from scipy.stats import t

    half = t.ppf(0.5 + confidence / 2, len(values) - 1) * stdev(values) / math.sqrt(len(values))
    return Estimate(mean, mean - half, mean + half, len(values))


def dialogue_measures(record: dict) -> dict[str, float]:
    """One finished dialogue's values (:data:`MEASURES`; a dialogue with no rated turn has no useful/natural)."""
    out = {"rating": float(record["rating"]), "satisfied": float(bool(record["satisfied"]))}
    rated = [t["rating"] for t in record["turns"] if t.get("rating")]
    if rated:
        out["useful"] = fmean(float(r["useful"]) for r in rated)
        out["natural"] = fmean(float(r["natural"]) for r in rated)
    return out


def report(records: Iterable[dict]) -> list[dict]:
    """One row per (system, need kind, need level) and per system over all needs ("all"): dialogues, system turns
    per dialogue, and an :class:`Estimate` per measure. Unfinished sessions are counted apart and not rated."""
    groups: dict[tuple[str, str, str], list[dict]] = {}
    unfinished: dict[tuple[str, str, str], int] = {}
    for record in records:
        need = record["need"]
        keys = [(record["system"], need["kind"], str(need["level"])), (record["system"], "all", "all")]
        for key in keys:
            if record["finished"] is None:
                unfinished[key] = unfinished.get(key, 0) + 1
            else:
                groups.setdefault(key, []).append(record)
    rows = []
    for key in sorted(set(groups) | set(unfinished)):
        finished = groups.get(key, [])
        values = [dialogue_measures(r) for r in finished]
        turns = [sum(t["role"] == "system" for t in r["turns"]) for r in finished]
        rows.append(
            {
                "system": key[0],
                "need_kind": key[1],
                "need_level": key[2],
                "dialogues": len(finished),
                "unfinished": unfinished.get(key, 0),
                "system_turns": fmean(turns) if turns else None,
                **{m: estimate([v[m] for v in values if m in v]) for m in MEASURES},
            }
        )
    return rows


def as_json_rows(rows: list[dict]) -> list[dict]:
    """``rows`` with each :class:`Estimate` as ``{mean, low, high, n}``."""
    return [{k: (asdict(v) if isinstance(v, Estimate) else v) for k, v in row.items()} for row in rows]

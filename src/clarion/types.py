"""The shared vocabulary: runs, qrels and ranked candidates.

Runs and qrels are plain nested dicts so that every scorer and fusion takes and returns plain data:

- ``Run``:   query id -> candidate id -> score (higher is better)
- ``Qrels``: query id -> candidate id -> graded relevance (int, > 0 is relevant)

:class:`Candidate` is what user-facing APIs return (an id, its text and its score).
"""

from __future__ import annotations

from dataclasses import dataclass, field

Run = dict[str, dict[str, float]]
Qrels = dict[str, dict[str, int]]


@dataclass(frozen=True, slots=True)
class Candidate:
    """One ranked candidate: a clarifying question, a knowledge snippet or a reply."""

    id: str
    text: str
    score: float


@dataclass(frozen=True, slots=True)
class Topic:
    """A ClariQ topic: its id and the user's initial request."""

    id: str
    request: str


@dataclass(slots=True)
class Ranking:
    """A ranked list of candidates for one query, best first."""

    query_id: str
    candidates: list[Candidate] = field(default_factory=list)

    def ids(self) -> list[str]:
        return [c.id for c in self.candidates]


def ranked_ids(scores: dict[str, float]) -> list[str]:
    """Candidate ids sorted by score descending, ties broken by id ascending (the project-wide rule)."""
    return sorted(scores, key=lambda cid: (-scores[cid], cid))


def copy_run(run: Run) -> Run:
    """A deep copy of a run, so that callers' inputs are never changed."""
    return {q: dict(c) for q, c in run.items()}

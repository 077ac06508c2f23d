"""The shared vocabulary: dialogue turns, knowledge snippets, runs, qrels and ranked candidates.

Runs and qrels are plain nested dicts so that every scorer and fusion takes and returns plain data:

- ``Run``:   query id -> candidate id -> score (higher is better)
- ``Qrels``: query id -> candidate id -> graded relevance (int, > 0 is relevant)

:class:`Candidate` is what user-facing APIs return (an id, its text and its score). A :class:`Turn` is one turn of a
dialogue (who spoke and what was said), a :class:`Snippet` one selectable piece of a knowledge base (an FAQ or a review
sentence); a :class:`Decision` is what the conversation engine says to a user turn.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass, field
from typing import Any, Literal

from clarion.bounds import FINITE
from clarion.errors import InputError

Run = dict[str, dict[str, float]]
Qrels = dict[str, dict[str, int]]
EntityId = int | str
Key = tuple  # (domain, entity_id, doc_id) or (domain, entity_id, doc_id, sent_id)

USER, SYSTEM = "user", "system"
ROLES = (USER, SYSTEM)
SPEAKERS = {"U": USER, "S": SYSTEM}
"""The speaker codes of DSTC's ``logs.json``, as roles."""


@dataclass(frozen=True, slots=True)
class Turn:
    """One dialogue turn: ``role`` is ``"user"`` or ``"system"``; ``nbest`` holds ASR hypotheses ``(text, score)`` for
    spoken user turns (DSTC10), empty otherwise."""

    role: str
    text: str
    nbest: tuple[tuple[str, float], ...] = ()

    @property
    def is_user(self) -> bool:
        return self.role == USER


Action = Literal["clarify", "answer", "stop"]


@dataclass(frozen=True)
class Decision:
    """The conversation engine's decision for the last user turn (:class:`clarion.dialogue.Assistant`)."""

    action: Action
    text: str
    """What the system says ('' only for ``stop``)."""
    query: str
    """The user's need as understood so far, as one standalone search query."""
    need: int | None = None
    """The ClariQ need model's label for the request (1 clear ... 4 very ambiguous); None when not estimated, as for a
    request that is not ClariQ's (``scores["p_unclear"]`` then comes from the model for any request)."""
    question_id: str | None = None
    """The bank question asked (``clarify``), else None (also for a question written for the request)."""
    sources: list[dict] = field(default_factory=list)
    """What the answer rests on: ``{"id", "title", "text"}`` per document or knowledge snippet."""
    scores: dict = field(default_factory=dict)
    """The numbers behind the decision (``question_source``: ``bank``, ``senses`` or ``kind:<what it asks for>``)."""
    options: list[str] = field(default_factory=list)
    """The options a ``clarify`` question offers (possibly none)."""
    understood: str = ""
    """``query`` as a person would write it (:func:`clarion.text.tidy_query`: no yes/no words, no repeated run of
    words, which ``query`` may keep to weigh an answer in a search)."""

    def to_dict(self) -> dict:
        return asdict(self)


@dataclass(frozen=True, slots=True)
class Snippet:
    """One selectable knowledge snippet: an FAQ (title/question + body/answer) or one review sentence."""

    domain: str
    entity_id: EntityId
    doc_id: int
    sent_id: int | None
    doc_type: str | None
    """``"faq"`` or ``"review"`` in DSTC11, ``None`` in DSTC9/10 (every snippet is an FAQ there)."""
    title: str
    """The FAQ question (DSTC9 ``title``); empty for a review sentence."""
    body: str
    """The FAQ answer (DSTC9 ``body``) or the review sentence."""
    entity_name: str | None
    traveler_type: str | None = None

    @property
    def key(self) -> Key:
        return snippet_key(self.domain, self.entity_id, self.doc_id, self.sent_id)

    @property
    def text(self) -> str:
        """Title and body joined by a space (the body alone for a review sentence)."""
        return f"{self.title} {self.body}".strip()

    def to_ref(self) -> dict[str, Any]:
        """The ``knowledge`` item of a label or prediction that points at this snippet (DSTC11's has ``doc_type``)."""
        ref: dict[str, Any] = {"domain": self.domain, "entity_id": self.entity_id}
        if self.doc_type is not None:
            ref["doc_type"] = "review" if self.sent_id is not None else "faq"
        ref["doc_id"] = self.doc_id
        if self.sent_id is not None:
            ref["sent_id"] = self.sent_id
        return ref


def snippet_key(domain: str, entity_id: EntityId, doc_id: int, sent_id: int | None = None) -> Key:
    """The stable key of a snippet: ``(domain, entity_id, doc_id[, sent_id])``."""
    return (domain, entity_id, doc_id) if sent_id is None else (domain, entity_id, doc_id, sent_id)


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
    """Candidate ids sorted by score descending, ties broken by id ascending (the project-wide rule).

    Scores must be finite numbers and ids strings (a NaN compares false to everything, so the order would
    depend on dict order): this hot sort does not check; public entry points call :func:`check_run` first.
    """
    return sorted(scores, key=lambda cid: (-scores[cid], cid))


def copy_run(run: Run) -> Run:
    """A deep copy of a run, so that callers' inputs are never changed."""
    return {q: dict(c) for q, c in run.items()}


def check_run(run, what: str = "run") -> Run:
    """``run`` unchanged, or :class:`~clarion.errors.InputError` naming ``what`` and the first query or
    candidate that breaks the :data:`Run` shape: a dict of string query ids to dicts of string candidate ids
    to finite numbers (no ``nan``, ``inf``, ``None``, strings or bools). One cheap pass; fusions, normalisers
    and writers call it on entry.
    """
    if not isinstance(run, Mapping):
        raise InputError(f"{what} must be a dict query id -> candidate id -> score, got {type(run).__name__}")
    for query, scores in run.items():
        if not isinstance(query, str):
            raise InputError(f"{what}: query id {query!r} must be a string, got {type(query).__name__}")
        if not isinstance(scores, Mapping):
            raise InputError(f"{what}, query {query!r}: expected a dict candidate id -> score")
        for cand, score in scores.items():
            if type(cand) is not str or type(score) is not float or not math.isfinite(score):  # fast path
                _check_candidate(what, query, cand, score)
    return run


def _check_candidate(what: str, query: str, cand, score) -> None:
    if not isinstance(cand, str):
        raise InputError(f"{what}, query {query!r}: candidate id {cand!r} must be a string, got {type(cand).__name__}")
    if not FINITE.admits(score):
        raise InputError(f"{what}, query {query!r}, candidate {cand!r}: score must be a finite number, got {score!r}")


def check_runs(runs, what: str = "run", each: bool = True) -> list[Run]:
    """``runs`` as a list, each checked by :func:`check_run` (unless ``each`` is false: the list only) and
    named ``'{what} 1'``, ``'{what} 2'`` ..."""
    if isinstance(runs, Mapping | str | bytes) or not isinstance(runs, Iterable):
        raise InputError(f"expected a list of runs, got {type(runs).__name__}")
    runs = list(runs)
    if each:
        for i, run in enumerate(runs, start=1):
            check_run(run, f"{what} {i}")
    return runs

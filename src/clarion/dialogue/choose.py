"""The next clarifying question given the conversation so far.

The ClariQ ranker (:meth:`clarion.clariq.clarifier.Clarifier.rank`, ``fitting=True``) proposes the request's
questions, best first. Of those, the chooser

- never repeats one: a question already asked, or one within :data:`SAME` cosine of one (a rewording), is dropped;
- drops those an answer ruled out: after an answer read as turning the question down (the answer-understanding
  model kept none of its content, :data:`~clarion.dialogue.understand.AFFIRMING`), questions within
  :data:`RULED_OUT` cosine of it ask the same thing again;
- prefers one that splits what is still open: the ranker's score (scaled to [0, 1] over the proposals) minus
  :data:`REDUNDANCY` times its largest cosine to a question already asked (maximal marginal relevance), so a
  question about another reading comes before a variant of one already settled;
- skips the bank's "ask nothing" entry, which is not a question to ask.

Cosines are between the packaged MiniLM's embeddings of the bank, computed once and cached.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from clarion.data.clariq_constants import NO_QUESTION
from clarion.types import Candidate

SAME = 0.9
"""Cosine at or above which two bank questions count as one question reworded."""
RULED_OUT = 0.75
"""Cosine at or above which a question asks again what a turned-down question asked."""
REDUNDANCY = 0.5
"""Weight of a proposal's similarity to the questions already asked."""
PROPOSALS = 30


@dataclass(frozen=True)
class Choice:
    question: Candidate
    score: float
    """The question's ranker score scaled to [0, 1] less the redundancy penalty."""
    redundancy: float


class QuestionChooser:
    """Chooses among a request's proposed questions (see the module docstring)."""

    def __init__(self, ids: Sequence[str], embeddings: np.ndarray):
        self.row = {q: i for i, q in enumerate(ids)}
        self.embeddings = embeddings

    def _cosines(self, question_id: str, others: Sequence[str]) -> np.ndarray:
        rows = [self.row[q] for q in others if q in self.row]
        if question_id not in self.row or not rows:
            return np.zeros(0)
        return self.embeddings[rows] @ self.embeddings[self.row[question_id]]

    def choose(self, proposals: Sequence[Candidate], asked: Sequence[str], refused: Sequence[str]) -> Choice | None:
        """The best proposal not asked, not a rewording of an asked one and not ruled out by ``refused`` (asked
        questions the user turned down); None when none is left."""
        open_ = [c for c in proposals if c.id != NO_QUESTION and c.text.strip() and c.id not in asked]
        if not open_:
            return None
        scores = np.array([c.score for c in proposals if c.id != NO_QUESTION], dtype=np.float64)
        low, high = float(scores.min()), float(scores.max())
        best: Choice | None = None
        for candidate in open_:
            near = self._cosines(candidate.id, asked)
            if near.size and near.max() >= SAME:
                continue
            against_refused = self._cosines(candidate.id, refused)
            if against_refused.size and against_refused.max() >= RULED_OUT:
                continue
            redundancy = float(near.max()) if near.size else 0.0
            scaled = (candidate.score - low) / (high - low) if high > low else 1.0
            score = scaled - REDUNDANCY * redundancy
            if best is None or score > best.score:
                best = Choice(candidate, score, redundancy)
        return best

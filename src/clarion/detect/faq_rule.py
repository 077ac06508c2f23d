"""FAQ-only (DSTC9/10-format) knowledge: a user turn that paraphrases an FAQ question is knowledge-seeking.

DSTC9 Track 1 calls a turn knowledge-seeking when an FAQ of the knowledge base answers it (Kim et al., 2020). The
detector is trained on DSTC11 (reviews and FAQs of one city's hotels and restaurants), and on spoken DSTC10 turns about
another city it misses most FAQ questions (zero-shot recall 0.46). For a DSTC9-format knowledge base its decision is
therefore OR'ed with: *the turn's best MiniLM cosine to one of the knowledge base's FAQ questions is at least t*.

``t`` is set per knowledge base without labels, by Youden's J (the cut maximising TPR - FPR; Youden, 1950) between

- positives: each distinct FAQ question's best cosine to the *other* FAQ questions of the same knowledge base (a
  paraphrase proxy: "Is there parking?" / "Do they have a parking lot?" are asked of many entities), and
- negatives: the training turns that are not knowledge-seeking (requests the booking APIs serve; their embeddings
  are stored with the model), against the same FAQ questions.

On DSTC10 val this moved detection F1 from 0.6154 to 0.8087; the rule was developed with DSTC10 val's scores in view,
so DSTC10 val is no held-out set for it.

DSTC11-format knowledge (reviews and FAQs) gets a *gated* rule (:meth:`FaqRule.gated`). There the booking API's
questions ("Is there free parking?", "What is their phone number?") resemble FAQ questions and are labelled not
knowledge-seeking, so the plain rule costs errors; but the DSTC11 dialogues ask hardly any FAQ question the API cannot
answer ("Are pets allowed?", "Is there a lift?"), so the detector, trained on them, misses those. The gated rule fires
when the turn paraphrases an FAQ question (cosine >= :data:`GATE_COSINE`) that is itself unlike every
non-knowledge training turn, by a margin: ``max_f cos(turn, f) - neg(f) >= GATE_MARGIN`` over the FAQ questions
``f`` the turn reaches, ``neg(f)`` being ``f``'s best cosine to those turns. Both constants were set by 5-fold
cross-validation over the dstc11_track5 train split (docs/dstc.md).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from clarion.data.dstc import Knowledge
from clarion.types import Snippet

GRID = np.round(np.arange(0.40, 0.95, 0.005), 3)
"""Candidate thresholds (cosines) for :func:`youden_threshold`."""
CHUNK = 512
MAX_POSITIVES = 10_000
"""Larger knowledge bases calibrate on a seeded sample of this many FAQ questions (the cost is quadratic)."""
GATE_COSINE = 0.8
"""Gated rule (DSTC11-format knowledge): the least cosine between the turn and an FAQ question it paraphrases."""
GATE_MARGIN = 0.1
"""Gated rule: how much closer the turn must be to the FAQ question than any non-knowledge training turn is."""
ENTITY_FAQ_COSINE = 0.6
"""Gated rule, answering: the least cosine between the turn and the tracked entity's FAQ question it is answered
from. An entity's own wording sits below :data:`GATE_COSINE` ("Can I bring my dog?" is 0.66 from "Are pets allowed
at the ?"); on the train turns the rule fires on, the gold entity's closest FAQ is in the gold snippets for 1 of 14
turns at cosine 0.5-0.6, 9 of 15 at 0.6-0.7 and 40 of 50 above (docs/dstc.md)."""


def faq_questions(knowledge: Knowledge) -> list[str]:
    """The distinct FAQ questions (DSTC9 titles, DSTC11 FAQ questions) of ``knowledge``, sorted."""
    return sorted({s.title.strip() for s in knowledge.snippets() if s.title.strip()})


def best_cosines(queries: np.ndarray, questions: np.ndarray, exclude: np.ndarray | None = None) -> np.ndarray:
    """Each row's best cosine (dot product of L2-normalised rows) to ``questions``; row i skips column
    ``exclude[i]`` (when the queries are some of the questions themselves)."""
    out = np.full(len(queries), -1.0, dtype=np.float32)
    for start in range(0, len(queries), CHUNK):
        sims = queries[start : start + CHUNK] @ questions.T
        if exclude is not None:
            sims[np.arange(sims.shape[0]), exclude[start : start + CHUNK]] = -np.inf
        if sims.shape[1]:
            out[start : start + CHUNK] = sims.max(axis=1)
    return out


def youden_threshold(positives: np.ndarray, negatives: np.ndarray, grid: Sequence[float] = GRID) -> float:
    """The ``grid`` value maximising TPR - FPR (``score >= t`` predicts positive); the lowest such value on ties."""
    grid = np.asarray(grid, dtype=np.float64)
    tpr = (np.asarray(positives)[None, :] >= grid[:, None]).mean(axis=1)
    fpr = (np.asarray(negatives)[None, :] >= grid[:, None]).mean(axis=1)
    return float(grid[int(np.argmax(tpr - fpr))])


@dataclass(frozen=True)
class FaqRule:
    """The FAQ questions' embeddings and the knowledge base's threshold (and, gated, each question's penalty)."""

    questions: np.ndarray
    threshold: float
    penalties: np.ndarray | None = None
    """Gated rule: each FAQ question's best cosine to the model's non-knowledge training turns (``neg(f)``)."""
    margin: float = 0.0
    """Gated rule: the least ``cos(turn, f) - neg(f)`` that fires."""
    rows: Mapping[str, int] = field(default_factory=dict)
    """Gated rule: each FAQ question's row in :attr:`questions` (for :meth:`best_faq`)."""

    @classmethod
    def calibrate(cls, questions: np.ndarray, negatives: np.ndarray) -> FaqRule | None:
        """The rule for FAQ question embeddings ``questions`` given the model's non-knowledge training turns
        ``negatives``; ``None`` when either is too small to set a threshold (fewer than 2 questions, no turns)."""
        if len(questions) < 2 or len(negatives) == 0:
            return None
        rows = np.arange(len(questions))
        if len(rows) > MAX_POSITIVES:
            rows = np.sort(np.random.default_rng(13).choice(rows, MAX_POSITIVES, replace=False))
        positives = best_cosines(questions[rows], questions, exclude=rows)
        return cls(questions, youden_threshold(positives, best_cosines(negatives, questions)))

    @classmethod
    def gated(
        cls,
        titles: Sequence[str],
        questions: np.ndarray,
        negatives: np.ndarray,
        cosine: float = GATE_COSINE,
        margin: float = GATE_MARGIN,
    ) -> FaqRule | None:
        """The gated rule (DSTC11-format knowledge; see the module docstring) for the FAQ questions ``titles``
        embedded as ``questions``; ``None`` without questions or turns."""
        if len(questions) == 0 or len(negatives) == 0:
            return None
        rows = {title: i for i, title in enumerate(titles)}
        return cls(questions, cosine, best_cosines(questions, negatives), margin, rows)

    def best_faq(
        self, query: np.ndarray, snippets: Sequence[Snippet], floor: float = ENTITY_FAQ_COSINE, gated: bool = False
    ) -> Snippet | None:
        """The FAQ among ``snippets`` whose question is closest to the turn ``query`` (one embedding), if it
        reaches ``floor``; with ``gated``, only among the questions :attr:`margin` further from every non-knowledge
        training turn (those :meth:`matches_entity` fires on)."""
        best, best_cosine = None, floor
        for snippet in snippets:
            row = self.rows.get(snippet.title.strip()) if snippet.doc_type == "faq" else None
            if row is not None and (cosine := float(self.questions[row] @ query)) >= best_cosine:
                if not gated or (self.penalties is not None and cosine - float(self.penalties[row]) >= self.margin):
                    best, best_cosine = snippet, cosine
        return best

    def reaches(self, query_emb: np.ndarray, cosine: float) -> np.ndarray:
        """Gated rule: whether each turn is within ``cosine`` of *some* FAQ question of the knowledge base with the
        rule's margin (:meth:`matches` at the rule's own cosine; what :meth:`matches_entity` needs of one of the
        tracked place's, a cheap test first)."""
        out = np.zeros(len(query_emb), dtype=bool)
        if self.penalties is None:
            return out
        for start in range(0, len(query_emb), CHUNK):
            sims = query_emb[start : start + CHUNK] @ self.questions.T
            out[start : start + CHUNK] = ((sims >= cosine) & (sims - self.penalties[None, :] >= self.margin)).any(
                axis=1
            )
        return out

    def matches_entity(self, query: np.ndarray, snippets: Sequence[Snippet], cosine: float) -> bool:
        """Gated rule, for the FAQs among ``snippets`` (a tracked place's): whether the turn ``query`` (one
        embedding) is within ``cosine`` of one of their questions that is :attr:`margin` further from every
        non-knowledge training turn."""
        if self.penalties is None:
            return False
        for snippet in snippets:
            row = self.rows.get(snippet.title.strip()) if snippet.doc_type == "faq" else None
            if row is not None:
                sim = float(self.questions[row] @ query)
                if sim >= cosine and sim - float(self.penalties[row]) >= self.margin:
                    return True
        return False

    def matches(self, query_emb: np.ndarray) -> np.ndarray:
        """Whether each turn (L2-normalised embedding rows) paraphrases an FAQ question (gated: one unlike the
        training data's non-knowledge turns)."""
        if self.penalties is None:
            return best_cosines(query_emb, self.questions) >= self.threshold
        return self.reaches(query_emb, self.threshold)

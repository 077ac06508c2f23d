"""FAQ-only (DSTC9/10-format) knowledge: a user turn that paraphrases an FAQ question is knowledge-seeking.

DSTC9 Track 1 calls a turn knowledge-seeking when an FAQ of the knowledge base answers it (Kim et al., 2020). The
detector is trained on DSTC11 (reviews and FAQs of Cambridge hotels and restaurants), and on spoken DSTC10 turns about
San Francisco it misses most FAQ questions (zero-shot recall 0.46). For a DSTC9-format knowledge base its decision is
therefore OR'ed with: *the turn's best MiniLM cosine to one of the knowledge base's FAQ questions is at least t*.

``t`` is set per knowledge base without labels, by Youden's J (the cut maximising TPR - FPR; Youden, 1950) between

- positives: each distinct FAQ question's best cosine to the *other* FAQ questions of the same knowledge base (a
  paraphrase proxy: "Is there parking?" / "Do they have a parking lot?" are asked of many entities), and
- negatives: the training turns that are not knowledge-seeking (requests the booking APIs serve; their embeddings
  are stored with the model), against the same FAQ questions.

On DSTC10 val this moved zero-shot detection F1 from 0.6154 to 0.8087 (docs/dstc_detection.md).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from clarion.dstc.io import Knowledge

GRID = np.round(np.arange(0.40, 0.95, 0.005), 3)
"""Candidate thresholds (cosines) for :func:`youden_threshold`."""
CHUNK = 512
MAX_POSITIVES = 10_000
"""Larger knowledge bases calibrate on a seeded sample of this many FAQ questions (the cost is quadratic)."""


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
    """The FAQ questions' embeddings and the knowledge base's threshold."""

    questions: np.ndarray
    threshold: float

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

    def matches(self, query_emb: np.ndarray) -> np.ndarray:
        """Whether each turn (L2-normalised embedding rows) paraphrases an FAQ question."""
        return best_cosines(query_emb, self.questions) >= self.threshold

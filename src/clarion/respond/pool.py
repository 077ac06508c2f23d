"""Minimum Bayes risk choice over a pool of candidate responses (Kumar & Byrne, 2004).

A :class:`Pool` holds borrowed bodies with their weights (the first ``choosable`` may be chosen, the rest only
vote); :func:`mbr_weighted` picks the body with the highest weighted expected n-gram F-beta against the others
(:func:`ngram_utility`; F1 at ``beta`` 1).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

import numpy as np

from clarion.text import _TOKEN


def _ngrams(text: str) -> set:
    words = _TOKEN.findall(text.lower())
    return set(words) | set(zip(words, words[1:], strict=False))


def mbr_choice(candidates: Sequence[str]) -> int:
    """Index of the candidate with the highest summed Dice overlap (unigrams + bigrams) with the others."""
    grams = [_ngrams(c) for c in candidates]

    def dice(a: set, b: set) -> float:
        return 2 * len(a & b) / (len(a) + len(b)) if a and b else 0.0

    gains = [sum(dice(g, h) for j, h in enumerate(grams) if j != i) for i, g in enumerate(grams)]
    return int(np.argmax(gains)) if gains else 0


def ngram_utility(texts: Sequence[str], order: int = 4, beta: float = 1.0) -> np.ndarray:
    """``U[i, j]``: the mean over n = 1..``order`` of the F-``beta`` of ``texts[i]``'s n-gram set read as a
    hypothesis against ``texts[j]``'s as its reference: ``(1 + beta^2) |common| / (|i| + beta^2 |j|)``. ``beta`` 1
    is the (symmetric) F1; below 1 precision weighs more, so a body that says only what the others say wins over one
    that adds to it, as BLEU, a precision with a brevity penalty, counts.

    Sets (not counts) of lowercased word n-grams; the intersections are one indicator-matrix product per order.
    """
    n = len(texts)
    words = [_TOKEN.findall(t.lower()) for t in texts]
    utility = np.zeros((n, n))
    square = beta * beta
    for size in range(1, order + 1):
        grams = [{tuple(w[i : i + size]) for i in range(len(w) - size + 1)} for w in words]
        vocab: dict[tuple, int] = {}
        rows = [i for i, g in enumerate(grams) for _ in g]
        cols = [vocab.setdefault(x, len(vocab)) for g in grams for x in g]
        matrix = np.zeros((n, max(len(vocab), 1)), dtype=np.float32)
        matrix[rows, cols] = 1.0
        common = (matrix @ matrix.T).astype(float)
        sizes = np.array([len(g) for g in grams], dtype=float)
        total = sizes[:, None] + square * sizes[None, :]
        utility += np.divide((1 + square) * common, total, out=np.zeros_like(common), where=total > 0)
    return utility / order


def mbr_weighted(
    texts: Sequence[str],
    weights: Sequence[float],
    order: int = 4,
    candidates: int | None = None,
    beta: float = 1.0,
) -> int:
    """Index of the text with the highest weighted mean utility against the other texts (MBR).

    ``candidates``: only the first ``candidates`` texts can be chosen; the rest are evidence only. ``beta``: the
    utility's F-beta (:func:`ngram_utility`).
    """
    if len(texts) < 2:
        return 0
    return int(np.argmax(mbr_expected(texts, weights, order, beta)[:candidates]))


def mbr_expected(texts: Sequence[str], weights: Sequence[float], order: int = 4, beta: float = 1.0) -> np.ndarray:
    """Each text's weighted mean utility against the other texts (what :func:`mbr_weighted` maximises)."""
    weights = np.asarray(weights, dtype=float)
    utility = ngram_utility(texts, order, beta)
    np.fill_diagonal(utility, 0.0)
    return (utility @ weights) / np.maximum(weights.sum() - weights, 1e-9)


class Pool(NamedTuple):
    """The ``consensus`` pool: bodies (entity swapped, closing question cut), their MBR weights, and how many of
    them (the first ``choosable``, at least one) may be the answer; the rest are evidence only."""

    bodies: list[str]
    weights: list[float]
    choosable: int


def mean_embedding(rows: Sequence[np.ndarray] | np.ndarray, width: int | None = None) -> np.ndarray:
    """The L2-normalised mean of embedding rows; zeros when there are none (as wide as ``rows``' columns, else
    ``width``, else the pipeline's embeddings)."""
    arr = np.asarray(rows, dtype=np.float32)
    if arr.size == 0:
        if width is None and arr.ndim == 2:
            width = arr.shape[1]
        if width is None:
            from clarion.retrieve.packaged import N_DENSE

            width = N_DENSE
        return np.zeros(width, dtype=np.float32)
    mean = arr.mean(axis=0)
    norm = float(np.linalg.norm(mean))
    return mean / norm if norm > 0 else mean

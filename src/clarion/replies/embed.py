"""Sentence embeddings of a batch of contexts and replies (packaged all-MiniLM-L6-v2), each text encoded once.

A training set's texts are cached on disk (keyed by encoder and content, :func:`clarion.retrieve.dense.encode_cached`);
texts met at ranking time are encoded directly.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Candidates:
    """One context (utterances oldest first) and its candidate replies, with labels when known."""

    context: tuple[str, ...]
    replies: tuple[str, ...]
    relevance: tuple[int, ...] | None = None
    confidence: tuple[float, ...] | None = None
    source: str = ""
    """Where the context comes from (a dataset's name), for weighing sources equally in training."""


@dataclass
class Embedded:
    """Unit-norm embeddings of every distinct text of a batch, looked up by text."""

    index: dict[str, int]
    vectors: np.ndarray

    def of(self, texts: Sequence[str]) -> np.ndarray:
        return self.vectors[[self.index[t] for t in texts]]


def batch_texts(groups: Sequence[Candidates]) -> list[str]:
    """The distinct texts of ``groups`` (utterances and replies), sorted: the cache key of a training set."""
    return sorted({t for g in groups for t in (*g.context, *g.replies)})


def embed(groups: Sequence[Candidates], cached: bool = False) -> Embedded:
    """Embeddings of every text of ``groups``; ``cached`` keeps them on disk (training sets)."""
    from clarion.retrieve.dense import encode_cached, encode_queries

    texts = batch_texts(groups)
    if cached:
        vectors = encode_cached(texts, name="replies")
    else:
        vectors = encode_queries(texts)  # batches of 64: 128 long replies outgrow the L3 cache (docs/replies.md, Speed)
    return Embedded({t: i for i, t in enumerate(texts)}, vectors)

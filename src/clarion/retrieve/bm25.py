"""Lexical retrieval with bm25s (Lù, 2024, "BM25S: Orders of magnitude faster lexical search via eager
sparse scoring"), English stopwords and the Snowball stemmer."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np


class BM25Index:
    """A BM25 index over ``texts`` (ids kept beside them).

    >>> index = BM25Index(["a", "b"], ["red apple pie", "blue sky"])
    >>> index.scores(["apple"])[0].argmax()
    np.int64(0)
    """

    def __init__(self, ids: Sequence[str], texts: Sequence[str], k1: float = 1.5, b: float = 0.75):
        import bm25s
        import Stemmer

        self.ids = list(ids)
        self._stemmer = Stemmer.Stemmer("english")
        self._bm25s = bm25s
        tokens = bm25s.tokenize([t or "" for t in texts], stopwords="en", stemmer=self._stemmer, show_progress=False)
        self._model = bm25s.BM25(k1=k1, b=b)
        self._model.index(tokens, show_progress=False)

    def scores(self, queries: Sequence[str]) -> np.ndarray:
        """A ``(len(queries), len(ids))`` matrix of BM25 scores."""
        out = np.zeros((len(queries), len(self.ids)), dtype=np.float32)
        for i, query in enumerate(queries):
            tokens = self._bm25s.tokenize(
                [query], stopwords="en", stemmer=self._stemmer, show_progress=False, return_ids=False
            )[0]
            if tokens:
                out[i] = self._model.get_scores(tokens)
        return out

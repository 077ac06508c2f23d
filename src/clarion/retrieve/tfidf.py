"""Character n-gram TF-IDF similarity (scikit-learn), robust to the typos of crowd-written questions
("lokking", "purchace") that word-level BM25 misses.

Reference: Manning, Raghavan & Schütze, *Introduction to Information Retrieval*, ch. 6 (tf-idf, cosine).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np


class CharTfidf:
    """Sub-linear TF-IDF over ``char_wb`` n-grams (3-5), L2-normalised, fitted on ``texts``.

    >>> tfidf = CharTfidf(["red apple pie", "blue sky"])
    >>> tfidf.similarity(["an apple"], ["red apple pie", "blue sky"]).argmax()
    np.int64(0)
    """

    def __init__(self, texts: Sequence[str], ngram_range: tuple[int, int] = (3, 5), min_df: int = 2):
        from sklearn.feature_extraction.text import TfidfVectorizer

        self._vectorizer = TfidfVectorizer(
            analyzer="char_wb", ngram_range=ngram_range, min_df=min_df, sublinear_tf=True, dtype=np.float32
        )
        self._vectorizer.fit([t.lower() for t in texts])

    def transform(self, texts: Sequence[str]):
        """A sparse ``(len(texts), vocabulary)`` matrix of L2-normalised rows."""
        return self._vectorizer.transform([t.lower() for t in texts])

    def similarity(self, queries: Sequence[str], texts: Sequence[str]) -> np.ndarray:
        """Dense cosine similarities ``(len(queries), len(texts))``."""
        return (self.transform(queries) @ self.transform(texts).T).toarray().astype(np.float32)

"""Saving fitted TF-IDF vectorizers without pickle: JSON for vocabularies and parameters, NumPy arrays for weights
(loaded with ``allow_pickle=False``), so a model directory can never run code when it is loaded. Classifiers are
saved by :mod:`clarion.classifier`."""

from __future__ import annotations

from typing import Any

import numpy as np

_TFIDF_PARAMS = ("analyzer", "ngram_range", "sublinear_tf", "lowercase", "stop_words", "min_df")


def tfidf_state(vectorizer, prefix: str, arrays: dict[str, np.ndarray]) -> dict[str, Any]:
    """JSON state of a fitted ``TfidfVectorizer``; its ``idf_`` goes into ``arrays[prefix + 'idf']``."""
    params = vectorizer.get_params()
    arrays[prefix + "idf"] = np.asarray(vectorizer.idf_, dtype=np.float64)
    return {
        "params": {k: params[k] for k in _TFIDF_PARAMS},
        "vocabulary": {term: int(i) for term, i in vectorizer.vocabulary_.items()},
    }


def tfidf_from_state(state: dict[str, Any], prefix: str, arrays: dict[str, np.ndarray]):
    """The ``TfidfVectorizer`` saved by :func:`tfidf_state`, ready to ``transform``."""
    from sklearn.feature_extraction.text import TfidfVectorizer

    params = dict(state["params"])
    params["ngram_range"] = tuple(params["ngram_range"])
    vectorizer = TfidfVectorizer(**params)
    vectorizer.vocabulary_ = dict(state["vocabulary"])
    vectorizer.idf_ = arrays[prefix + "idf"]
    return vectorizer

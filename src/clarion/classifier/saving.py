"""One header format for every saved classifier, and fitted TF-IDF vectorizers saved without pickle."""

from __future__ import annotations

from typing import Any

import numpy as np

from clarion.errors import ModelError

FORMAT_VERSION = 1
"""The classifier header's format."""


def kinds() -> dict[str, Any]:
    """Every classifier by kind: the need classifiers (:mod:`clarion.classifier.ordered`) and the binary ones."""
    from clarion.classifier.binary import BINARY
    from clarion.classifier.ordered import CLASSIFIERS

    return {**CLASSIFIERS, **BINARY}


def header(kind: str, params: dict[str, Any], prefix: str = "") -> dict[str, Any]:
    """A classifier's JSON header in the current format."""
    return {"format_version": FORMAT_VERSION, "kind": kind, "params": dict(params), "arrays": prefix}


def save_classifier(classifier, arrays: dict[str, np.ndarray], prefix: str = "") -> dict[str, Any]:
    """Put ``classifier``'s state into ``arrays`` (keys ``prefix + name``) and return its JSON header."""
    for key, value in classifier.state.items():
        arrays[prefix + key] = np.asarray(value)
    return header(classifier.name, classifier.params, prefix)


def load_classifier(saved: dict[str, Any], arrays: dict[str, np.ndarray]):
    """The classifier :func:`save_classifier` saved (``saved``: its header); a header of another format or kind
    raises :class:`ModelError`."""
    if not isinstance(saved, dict) or saved.get("format_version") != FORMAT_VERSION:
        found = saved.get("format_version") if isinstance(saved, dict) else saved
        raise ModelError(f"classifier format {found!r}, expected {FORMAT_VERSION}; retrain the model")
    known = kinds()
    if saved.get("kind") not in known:
        raise ModelError(f"unknown classifier kind {saved.get('kind')!r}; expected one of: {', '.join(known)}")
    classifier = known[saved["kind"]](**saved.get("params", {}))
    prefix = saved.get("arrays", "")
    state = {key[len(prefix) :]: value for key, value in arrays.items() if key.startswith(prefix)}
    if not state:
        raise ModelError(f"no arrays saved for the {saved['kind']} classifier (prefix {prefix!r})")
    classifier.state = state
    return classifier


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

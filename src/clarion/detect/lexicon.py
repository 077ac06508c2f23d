"""Lexical-ambiguity features from WordNet 3.0 (Miller, 1995): how many senses the request's topic has.

A request whose topic phrase is itself a WordNet entry with several senses ("iron", "the wall", "joints") is
the classic ambiguous query (Sanderson, "Ambiguous queries: test collections need more sense", SIGIR 2008).
WordNet comes from Debian's ``wordnet-base`` files or nltk's data path (:func:`clarion.wordnet.load_wordnet`).
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from clarion.detect.form import TOKEN, stopwords, topic_phrase
from clarion.wordnet import READING, sense_counts

LEXICON_FEATURES = (
    "wn_phrase_senses",
    "wn_phrase_known",
    "wn_max_senses",
    "wn_head_senses",
    "wn_head_domains",
    "wn_known_share",
)


@lru_cache(maxsize=65_536)
def _senses(entry: str) -> tuple[int, int]:
    """The number of WordNet senses of ``entry`` (a word, or words joined by ``_``) and of their lexicographer files
    (a function of the entry alone, remembered: requests share most of their words)."""
    with READING:
        return sense_counts(entry)


def lexicon_features(request: str) -> np.ndarray:
    """The :data:`LEXICON_FEATURES` of one request's topic phrase (its content words)."""
    stop = stopwords()
    words = [t for t in TOKEN.findall(topic_phrase(request)) if t not in stop]
    if not words:
        return np.zeros(len(LEXICON_FEATURES))
    phrase = _senses("_".join(words))[0]
    senses = [_senses(w)[0] for w in words]
    head, domains = _senses(words[-1])
    values = (
        np.log1p(phrase),
        phrase > 0,
        np.log1p(max(senses)),
        np.log1p(head),
        domains,
        sum(s > 0 for s in senses) / len(senses),
    )
    return np.asarray(values, dtype=np.float64)

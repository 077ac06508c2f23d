"""Words of a text as the rules and generators read them: tokens, content-word stems, negation, WordNet.

One place for the text helpers the pipeline shares: :func:`words_of` (lower-case tokens), :func:`content_words`
(Porter stems without English stop words), :func:`negated` (a negation word).
"""

from __future__ import annotations

import re
from functools import lru_cache

_TOKEN = re.compile(r"[a-z0-9']+")


_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")


def words_of(text: str) -> list[str]:
    """Lower-cased word tokens of ``text``."""
    return _TOKEN.findall(text.lower())


def content_words(text: str) -> set[str]:
    """Porter stems of the lower-cased words of ``text`` without scikit-learn's English stop words ("alcoholic" and
    "alcohol", "seating" and "seat" are one word; "Wi-Fi" and "wifi" too)."""
    from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS  # imported once; later calls find it loaded

    text = _WIFI.sub("wifi", text)
    return {_stem(w) for w in words_of(text) if w not in ENGLISH_STOP_WORDS}


_WIFI = re.compile(r"\bwi-?fi\b", re.IGNORECASE)
"""How texts write the wifi: "Wi-Fi" (two words to :func:`words_of`), "WiFi", "wifi"."""


@lru_cache(maxsize=65536)
def _stem(word: str) -> str:
    return _porter().stem(word)


@lru_cache(maxsize=1)
def _porter():
    from nltk.stem.porter import PorterStemmer

    return PorterStemmer()


_NEGATION = re.compile(
    r"\b(?:no|not|never|none|nothing|nor|cannot|without|lacks?|unavailable)\b|n't\b|\b(?:do|does|did|is|are|was|were|has|have|ca|wo)nt\b"
)


def negated(text: str) -> bool:
    """Whether ``text`` holds a negation word ("no", "not", "n't", "never", "without", "lacks", ...)."""
    return bool(_NEGATION.search(text.lower().replace("\u2019", "'")))


POLARITY = frozenset({"no", "yes", "yeah", "yep", "nope", "nah"})
"""Words that only say yes or no to the question: nothing a search for the need can use."""


def tidy_query(query: str) -> str:
    """``query`` as a person would write it: without yes/no words (:data:`POLARITY`) and without a run of words
    repeated right after itself ("jaguar animal animal" -> "jaguar animal"; the answer-understanding model may
    repeat the answer to weigh it in a search)."""
    words = [w for w in query.split() if w.lower().strip(",.!?") not in POLARITY]
    changed = True
    while changed:
        changed = False
        for n in range(len(words) // 2, 0, -1):
            for i in range(len(words) - 2 * n + 1):
                if [w.lower() for w in words[i : i + n]] == [w.lower() for w in words[i + n : i + 2 * n]]:
                    del words[i + n : i + 2 * n]
                    changed = True
                    break
            if changed:
                break
    return " ".join(words) or query

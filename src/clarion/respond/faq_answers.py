"""A borrowed body's yes/no opener that does not answer the turn."""

from __future__ import annotations

import re
from functools import lru_cache

from clarion.text import _SENTENCE_END

_OPEN_QUESTION = re.compile(r"^\W*(?:how|what|which|where|when|who|whom|whose|why)(?:'s|'re|\b)", re.IGNORECASE)


_POLAR_SENTENCE = re.compile(
    r"^(?:(?:yes|no)\b[,!]?\s*)?(?:(?:i\s+(?:believe|think)\s+)?(?:it|they|you|we|i)\s+"
    r"(?:do|does|did|can|is|are|will|have|has)(?:n't|\s+not)?"
    r"|yes|no)[.!]\s+(?=\S)",
    re.IGNORECASE,
)


_POLAR_WORD = re.compile(r"^(?:yes|no)\b[,!]?\s+(?=\w)", re.IGNORECASE)


def asks_open(turn: str) -> bool:
    """Whether the last question of ``turn`` (its last sentence ending with "?", else its last sentence) opens with
    a wh-word: "How's the interior at the restaurant?", not "Is it good for kids?" nor "I'd like to know if ..."."""
    sentences = [s for s in _SENTENCE_END.split(turn.strip()) if s]
    asked = [s for s in sentences if s.rstrip().endswith("?")] or sentences
    return bool(asked) and bool(_OPEN_QUESTION.match(asked[-1]))


def yes_to_the_opposite(turn: str, body: str) -> bool:
    """Whether ``body`` opens with "Yes" and its first sentence says the opposite of an adjective of ``turn``: a
    WordNet antonym of it that the turn does not hold, and not the adjective itself ("Is it noisy at night?" / "Yes,
    Acorn Guest House is quiet."). Hyphenated words stay whole ("non-alcoholic" holds no "alcoholic")."""
    if not re.match(r"\W*yes\b", body, re.IGNORECASE):
        return False
    asked = set(_HYPHENATED.findall(turn.lower()))
    said = set(_HYPHENATED.findall(_SENTENCE_END.split(body.strip())[0].lower()))
    return any(w not in said and (antonyms(w) & said) - asked for w in asked)


_HYPHENATED = re.compile(r"[a-z]+(?:-[a-z]+)*")


@lru_cache(maxsize=4096)
def antonyms(word: str) -> frozenset[str]:
    """The WordNet antonyms of ``word`` as an adjective (also those of the heads its satellite senses are similar to:
    "noisy" -> {"quiet"}, "dirty" -> {"clean"}); Debian's WordNet (:func:`clarion.evaluate.dstc9.debian_wordnet`)."""
    from clarion.evaluate.dstc9 import debian_wordnet

    wordnet = debian_wordnet()
    out = set()
    for synset in wordnet.synsets(word, pos="a") + wordnet.synsets(word, pos="s"):
        for sense in [synset, *synset.similar_tos()]:
            out.update(a.name().lower() for lemma in sense.lemmas() for a in lemma.antonyms())
    return frozenset(out)


def without_polar_opener(body: str) -> str:
    """``body`` without an opening sentence that only says yes or no ("It does.", "Yes you can.") or, else, without
    an opening "Yes," / "No," (the next letter capitalised): a borrowed answer to a yes/no question does not answer
    "How good is the service at Kohinoor?" with "Yes, the service at Kohinoor is great and friendly."."""
    match = _POLAR_SENTENCE.match(body)
    if match is None or re.match(r"(?:but|however|although|though|and|yet)\b", body[match.end() :], re.IGNORECASE):
        match = _POLAR_WORD.match(body)  # "They do not. But the food is good." keeps its first sentence
    if match is None:
        return body
    rest = body[match.end() :]
    return rest[:1].upper() + rest[1:]

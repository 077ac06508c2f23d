"""A borrowed body's yes/no opener that does not answer the turn, and an FAQ's answer added to a body lacking it."""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import lru_cache

from clarion.ground.names import _whose, display_name, swap_entity
from clarion.respond.template import as_sentence
from clarion.text import _SENTENCE_END, content_words

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
    "noisy" -> {"quiet"}, "dirty" -> {"clean"}); Debian's WordNet (:func:`clarion.wordnet.load_wordnet`)."""
    from clarion.wordnet import load_wordnet

    wordnet = load_wordnet()
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


def faq_answers(snippets: Sequence) -> list[tuple[str, str | None]]:
    """``(answer, entity name)`` of the FAQs among ``snippets`` (:class:`~clarion.types.Snippet`), for
    :func:`with_faq_answers`."""
    return [(s.body, s.entity_name) for s in snippets if s.doc_type == "faq"]


def with_faq_answers(body: str, faqs: Sequence[tuple[str, str | None]], cover: float, several: bool = False) -> str:
    """``body`` followed by each selected FAQ answer, ``(answer, entity name)``, of which it holds less than
    ``cover`` of the content words (the entity's name written as the responses write it; rule ``faq_cover``). A
    training answer chosen by consensus can be about the reviews of the same aspect and leave out the fact the
    selected FAQ states ("the view is a parking lot" for "do they have outdoor seating?").

    With ``several`` (the answer is about several places), an added answer that does not name its place says whose,
    as :func:`~clarion.respond.template.snippets_response` does."""
    have, parts = content_words(body), [body]
    for answer, entity in faqs:  # swap_entity writes a misspelt name right (respelled) as it cuts or rewrites it
        plain = swap_entity(answer, entity, "") if entity else answer  # the name is no content
        words = content_words(plain)
        if words and len(words & have) / len(words) < cover:
            said = as_sentence(swap_entity(answer, entity, display_name(entity)) if entity else answer)
            parts.append(_whose(said, display_name(entity)) if several and entity else said)
            have |= words
    return " ".join(parts)

"""A selected FAQ's answer in a borrowed response: added when the body lacks it, and bodies that contradict it."""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import lru_cache

from clarion.respond.names import _whose, display_name, swap_entity
from clarion.respond.pool import Pool
from clarion.respond.template import as_sentence
from clarion.text import _NEGATION, _SENTENCE_END, content_words, is_food, negated, unknown_word, words_of

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


def faq_answers(snippets: Sequence) -> list[tuple[str, str | None]]:
    """``(answer, entity name)`` of the FAQs among ``snippets`` (:class:`~clarion.data.dstc.Snippet`), for
    :func:`with_faq_answers`."""
    return [(s.body, s.entity_name) for s in snippets if s.doc_type == "faq"]


_CLAUSE = re.compile(r"(?<=[.!?])\s+|[,;:]|\b(?:but|while|although|though|whereas|however|and)\b", re.IGNORECASE)


def contradicts(body: str, answer: str, name: str | None, question: str | None = None) -> bool:
    """Whether ``body`` says the opposite of the FAQ ``answer``: its clause holding most of the content words of the
    FAQ's ``question`` (of the answer when no question is given; the entity's ``name`` cut) holds at least one, is
    negated where the answer is not or the other way round, and shares a word with what the negated side denies
    (:func:`negation_focus`): "Yes, Zizzi Avonford has a very nice area for dining outdoors" against "Do you provide
    any outdoor seating?" / "Zizzi Avonford does not offer outdoor seating.". A negation in another clause ("they
    serve alcohol, but I am not sure about specifics", "... while others say they were not worth the price") does not
    count, nor a body about another side of the topic ("the breakfast options are very good" against "Breakfast is
    not free."). A negation of availability alone ("Outdoor seating is not available.") denies the topic itself."""
    topic = question if question else answer
    words = content_words(swap_entity(topic, name, "") if name else topic)
    if not words or not words & content_words(body):
        return False
    clause = max(_CLAUSE.split(body.strip()), key=lambda part: len(words & content_words(part)))
    if negated(clause) == negated(answer):
        return False
    negative, positive = (answer, clause) if negated(answer) else (clause, answer)
    return bool(denied(negative, words) & content_words(positive))  # "not free" says nothing of how good it is


def denied(text: str, topic: set[str]) -> set[str]:
    """What a negated ``text`` denies (:func:`negation_focus`), or its ``topic`` words too when it denies only that a
    thing is available ("Outdoor seating is not available.": the outdoor seating itself)."""
    focus = negation_focus(text)
    if focus and focus <= _availability():
        focus |= topic
    return focus


@lru_cache(maxsize=1)
def _availability() -> frozenset[str]:
    """Stems of the words with which an FAQ denies that a thing exists at all ("not available", "not offered")."""
    return frozenset(content_words("available offered provided allowed permitted served accepted"))


def negation_focus(text: str, span: int = 3) -> set[str]:
    """Content-word stems of the (up to) ``span`` content words after the first negation in ``text`` — what it
    denies: "Breakfast is not free." -> {free}; "There is no outdoor seating." -> {outdoor, seat}."""
    match = _NEGATION.search(text.lower().replace("\u2019", "'"))
    if match is None:
        return set()
    after = [w for w in words_of(text[match.end() :]) if content_words(w)]
    return set().union(*(content_words(w) for w in after[:span])) if after else set()


def agreeing(pool: Pool, faqs: Sequence[tuple[str, str | None, str]]) -> Pool:
    """``pool`` with the choosable bodies that contradict a selected FAQ, ``(answer, entity name, question)``
    (:func:`contradicts`; :func:`faq_claims`), moved to the voters."""
    if not faqs or pool.choosable == 0:
        return pool
    head = range(pool.choosable)
    ok = [j for j in head if not any(contradicts(pool.bodies[j], a, n, q) for a, n, q in faqs)]
    if len(ok) == pool.choosable:
        return pool
    order = ok + [j for j in head if j not in ok] + list(range(pool.choosable, len(pool.bodies)))
    scale = None if pool.scale is None else [pool.scale[j] for j in order]
    sources = None if pool.sources is None else [pool.sources[j] for j in order]
    return Pool([pool.bodies[j] for j in order], [pool.weights[j] for j in order], len(ok), scale, sources)


def dishes(text: str, specific: frozenset[str], names: frozenset[str] = frozenset()) -> set[str]:
    """The words of ``text`` that name a dish or a drink: ``specific`` (in the knowledge of few places: "biryani",
    "fondue", "mussels"; not "food", "meal", "dishes") and a food in WordNet (:func:`is_food`) or a word WordNet does
    not know ("gimbap", "korma", "noir") that no place's name holds (``names``: "lensfield" of a misspelt name)."""
    return {w for w in words_of(text) if w in specific and (is_food(w) or (unknown_word(w) and w not in names))}


def faq_claims(snippets: Sequence) -> list[tuple[str, str | None, str]]:
    """``(answer, entity name, question)`` of the FAQs among ``snippets``, for :func:`agreeing`."""
    return [(s.body, s.entity_name, s.title) for s in snippets if s.doc_type == "faq"]


def with_faq_answers(
    body: str, faqs: Sequence[tuple[str, str | None]], cover: float, denials: bool = False, several: bool = False
) -> str:
    """``body`` followed by each selected FAQ answer, ``(answer, entity name)``, of which it holds less than
    ``cover`` of the content words (the entity's name written as the responses write it). A training answer chosen
    by consensus can be about the reviews of the same aspect and leave out the fact the selected FAQ states ("the
    view is a parking lot" for "do they have outdoor seating?"); docs/dstc.md describes it.

    With ``denials``, an answer that denies (:func:`negated`) is added too when the body holds nothing of what it
    denies (:func:`denied`), and then the body loses its yes/no opener (:func:`without_polar_opener`): "Yes,
    ... Gonville Hotel offers full English/Irish breakfast ..." holds "breakfast", half of "Breakfast is not free.",
    and had answered "Is breakfast included?" without it.

    With ``several`` (the answer is about several places), an added answer that does not name its place says whose,
    as :func:`snippets_response` does ("... El Shaddai is also adequately fast. Alexander Bed and Breakfast: Free Wifi
    internet is available.")."""
    have, parts = content_words(body), [body]
    for answer, entity in faqs:  # swap_entity writes a misspelt name right (respelled) as it cuts or rewrites it
        plain = swap_entity(answer, entity, "") if entity else answer  # the name is no content
        words = content_words(plain)
        if not words:
            continue
        missed = len(words & have) / len(words) < cover
        if not missed and denials and negated(plain) and not denied(plain, words) & have:
            missed = True
            parts[0] = without_polar_opener(parts[0])
        if missed:
            said = as_sentence(swap_entity(answer, entity, display_name(entity)) if entity else answer)
            parts.append(_whose(said, display_name(entity)) if several and entity else said)
            have |= words
    return " ".join(parts)

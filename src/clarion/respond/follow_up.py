"""The question a response closes with ("Would you like to book a room?"), learnt per domain from the training
responses (:class:`Closings`), and cutting a borrowed one off."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from functools import lru_cache

import numpy as np

from clarion.data.dstc import key_entities
from clarion.respond.pool import _ngrams
from clarion.text import _SENTENCE_END, content_words, negated

FOLLOW_UP_OTHER = "Do you have any other questions?"
"""A general closing question that offers nothing: after an answer that says the place takes no reservations
(:func:`closed`), and for a domain the training responses did not close (:attr:`Closings.default` of
:data:`GENERAL`)."""


FOLLOW_UP_TWO = "Would you like to know more about either of them?"


FOLLOW_UP_MANY = "Would you like to know more about any of them?"
"""General closing questions when the selected snippets are about two / more entities (a comparison: there is no
one place to book; rule ``entity_follow_up``)."""


MIN_CLOSINGS = 5
"""Closed training responses a domain needs for a closing question of its own (else :attr:`Closings.default`)."""


@dataclass(frozen=True)
class Closings:
    """The question a response about one place closes with, per domain, learnt from the training responses
    (:meth:`learn`; saved with the model). Nothing about one dataset's wording is written here: a model trained on
    hotel and restaurant dialogues learns their booking offers from them."""

    by_domain: dict[str, str] = field(default_factory=dict)
    default: str = FOLLOW_UP_OTHER
    """The question for a domain without one of its own."""

    @classmethod
    def learn(cls, responses: Sequence[str], keys: Sequence[Iterable[tuple]]) -> Closings:
        """Per domain, the consensus closing question of the training ``responses`` about one place of it (``keys``:
        each response's gold snippet keys): the one with the highest summed Dice overlap of word unigrams and bigrams
        with the others (minimum Bayes risk, as :func:`~clarion.respond.pool.mbr_choice`); ``default``: the same over
        every domain. A domain with fewer than :data:`MIN_CLOSINGS` closed responses uses ``default``."""
        questions: dict[str, list[str]] = {}
        for response, turn_keys in zip(responses, keys, strict=True):
            entities = key_entities(turn_keys)
            question = split_follow_up(response)[1]
            if len(entities) == 1 and question:
                questions.setdefault(entities[0][0], []).append(question)
        every = [q for domain in sorted(questions) for q in questions[domain]]
        if not every:
            return cls()
        by_domain = {d: consensus_question(qs) for d, qs in sorted(questions.items()) if len(qs) >= MIN_CLOSINGS}
        return cls(by_domain, consensus_question(every))

    def for_keys(self, keys: Sequence[tuple], by_entities: bool = False) -> str:
        """The closing question for a response about ``keys``: the first key's domain's; with ``by_entities``,
        :data:`FOLLOW_UP_TWO` / :data:`FOLLOW_UP_MANY` when the keys span two / more entities."""
        if by_entities:
            entities = len(key_entities(keys))
            if entities > 1:
                return FOLLOW_UP_TWO if entities == 2 else FOLLOW_UP_MANY
        return self.by_domain.get(keys[0][0], self.default) if keys else self.default

    def offers(self) -> frozenset[str]:
        """The learnt closing questions (they offer to book, in booking domains): after an answer saying the place
        takes no reservations, :func:`closed` replaces them."""
        return frozenset({*self.by_domain.values(), self.default} - {FOLLOW_UP_OTHER})

    def to_json(self) -> dict:
        return {"by_domain": dict(self.by_domain), "default": self.default}

    @classmethod
    def from_json(cls, state: dict) -> Closings:
        return cls(dict(state["by_domain"]), str(state["default"]))


GENERAL = Closings()
"""The closing questions without training responses: :data:`FOLLOW_UP_OTHER` for every domain."""


def consensus_question(questions: Sequence[str]) -> str:
    """The question with the highest summed Dice overlap (word unigrams and bigrams) with the other ``questions``
    (ties: the first); :func:`~clarion.respond.pool.mbr_choice` over distinct texts weighted by their counts."""
    counts = Counter(questions)
    texts = list(counts)  # first appearance order
    grams = [_ngrams(t) for t in texts]
    vocab: dict = {}
    rows = [i for i, g in enumerate(grams) for _ in g]
    cols = [vocab.setdefault(x, len(vocab)) for g in grams for x in g]
    matrix = np.zeros((len(texts), max(len(vocab), 1)))
    matrix[rows, cols] = 1.0
    sizes = matrix.sum(axis=1)
    total = sizes[:, None] + sizes[None, :]
    dice = np.divide(2 * (matrix @ matrix.T), total, out=np.zeros((len(texts), len(texts))), where=total > 0)
    weights = np.array([counts[t] for t in texts], dtype=float)
    gains = dice @ weights - np.diag(dice)  # a text's overlap with itself does not count
    return texts[int(np.argmax(gains))]


def split_follow_up(response: str) -> tuple[str, str | None]:
    """``(body, question)``: a response's closing question sentence split off (None when it has none)."""
    sentences = _SENTENCE_END.split(response.strip())
    if len(sentences) > 1 and sentences[-1].endswith("?"):
        return " ".join(sentences[:-1]), sentences[-1]
    return response.strip(), None


def follow_up_for(keys: Sequence[tuple], by_entities: bool = False, closings: Closings = GENERAL) -> str:
    """:meth:`Closings.for_keys` of ``closings`` (a model's: ``NeighbourBank.closings``)."""
    return closings.for_keys(keys, by_entities)


def closed(body: str, follow_up: str, closings: Closings = GENERAL) -> str:
    """``body`` with the appended question ``follow_up``, except a learnt closing question (:meth:`Closings.offers`,
    a booking offer in booking domains) after a body that says the place takes no reservations
    (:func:`refuses_reservations`), which gets :data:`FOLLOW_UP_OTHER`: "Pizza Hut City Centre does not take
    reservations. Would you like to make a reservation?" had been the answer to "Can I make a reservation for a large
    group?"."""
    if follow_up in closings.offers() and refuses_reservations(body):
        follow_up = FOLLOW_UP_OTHER
    if follow_up:
        body = without_joined_question(body)
    return f"{body} {follow_up}".strip() if follow_up else body


_JOINED_QUESTION = re.compile(r",\s*(?:would|will|shall|is there|do you|can i|let's)\b[^.!?]*\?$", re.IGNORECASE)
"""A closing question joined to the sentence before it by a comma ("... according to the reviews that I found, would
you like to book a room there tonight?"; 8 of DSTC11's 1,546 responses), which :func:`split_follow_up` (sentence
ends) leaves in the body."""


def without_joined_question(body: str) -> str:
    """``body`` without a comma-joined closing question (:data:`_JOINED_QUESTION`), closed with a full stop: a
    borrowed body had kept its own offer before the appended one ("..., would you like to book a room there tonight?
    Would you like to book a room?")."""
    match = _JOINED_QUESTION.search(body)
    if match is None or not body[: match.start()].strip():
        return body
    return body[: match.start()].rstrip() + "."


def refuses_reservations(text: str) -> bool:
    """Whether a sentence of ``text`` says that reservations are not taken: a negation beside a word for them, not
    of a need and not about another thing booked ("Panahar does not take reservations.", "You cannot make a
    reservation at Ask Restaurant."; not "Reservations are not needed.", "No reservation is needed for parking.")."""
    for sentence in _SENTENCE_END.split(text.strip()):
        if _RESERVATION.search(sentence) and not content_words(sentence) & _not_refusals() and negated(sentence):
            return True
    return False


_RESERVATION = re.compile(r"\b(?:reser|resr|resa)\w*v", re.IGNORECASE)
"""A word for reservations, as the knowledge spells it ("reservations", "reseravtions", "reservatiions")."""


@lru_cache(maxsize=1)
def _not_refusals() -> frozenset[str]:
    """Stems that make a negated sentence about reservations something other than a refusal of bookings at the
    place: another thing booked ("... for parking", "... seats outside") or a need denied ("not needed")."""
    return frozenset(content_words("parking outdoor outside needed required necessary"))


def with_follow_up(
    response: str, keys: Sequence[tuple], follow_up: str | None = None, closings: Closings = GENERAL
) -> str:
    """``response``'s own closing question replaced by ``follow_up`` (None: ``closings``' for ``keys``; used on the
    ``lm`` generator's output)."""
    question = closings.for_keys(keys) if follow_up is None else follow_up
    return closed(split_follow_up(response)[0], question, closings)

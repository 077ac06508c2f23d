"""The question a response closes with ("Would you like to book a room?"), and cutting a borrowed one off."""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import lru_cache

from clarion.data.dstc import key_entities
from clarion.text import _SENTENCE_END, content_words, negated

FOLLOW_UP = "Would you like to make a reservation?"


FOLLOW_UPS = {"hotel": "Would you like to book a room?", "restaurant": FOLLOW_UP}


_BOOKING_OFFERS = frozenset(FOLLOW_UPS.values())  # FOLLOW_UP is the restaurants' offer
"""The appended question by domain (else :data:`FOLLOW_UP`): the best of the five most frequent closing
questions of the train responses, then a per-domain variant, on a validation slice of the train split
(docs/dstc.md)."""


FOLLOW_UP_OTHER = "Do you have any other questions?"
"""The appended question after an answer that says the place takes no reservations (:func:`closed`): the most
frequent closing question of the train responses that offers no booking."""


FOLLOW_UP_TWO = "Would you like to know more about either of them?"


FOLLOW_UP_MANY = "Would you like to know more about any of them?"
"""The appended question when the selected snippets are about two / more entities (a comparison: there is no one
place to book; the most frequent closing question of such train responses, docs/dstc.md)."""


def split_follow_up(response: str) -> tuple[str, str | None]:
    """``(body, question)``: a response's closing question sentence split off (None when it has none)."""
    sentences = _SENTENCE_END.split(response.strip())
    if len(sentences) > 1 and sentences[-1].endswith("?"):
        return " ".join(sentences[:-1]), sentences[-1]
    return response.strip(), None


def follow_up_for(keys: Sequence[tuple], by_entities: bool = False) -> str:
    """The appended question for a response about ``keys``: :data:`FOLLOW_UPS` by the first key's domain; with
    ``by_entities``, :data:`FOLLOW_UP_TWO` / :data:`FOLLOW_UP_MANY` when the keys span two / more entities."""
    if by_entities:
        entities = len(key_entities(keys))
        if entities > 1:
            return FOLLOW_UP_TWO if entities == 2 else FOLLOW_UP_MANY
    return FOLLOW_UPS.get(keys[0][0], FOLLOW_UP) if keys else FOLLOW_UP


def closed(body: str, follow_up: str) -> str:
    """``body`` with the appended question ``follow_up``, except a booking offer after a body that says the place
    takes no reservations (:func:`refuses_reservations`), which gets :data:`FOLLOW_UP_OTHER`: "Pizza Hut City Centre
    does not take reservations. Would you like to make a reservation?" had been the answer to "Can I make a
    reservation for a large group?"."""
    if follow_up in _BOOKING_OFFERS and refuses_reservations(body):
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


def with_follow_up(response: str, keys: Sequence[tuple], follow_up: str | None = None) -> str:
    """``response``'s own closing question replaced by ``follow_up`` (None: :func:`follow_up_for` of ``keys``; used on
    the ``lm`` generator's output)."""
    return closed(split_follow_up(response)[0], follow_up_for(keys) if follow_up is None else follow_up)

"""The extractive template generator: an FAQ answer as it is, review sentences in reported speech.

"Guests of X say that ...": first person becomes third person, sentences joined best first; one part per place.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from clarion.ground.names import _SMALL_WORDS, _display_written, _whose, display_name

_PRONOUNS = {
    "i": "they",
    "me": "them",
    "my": "their",
    "mine": "theirs",
    "myself": "themselves",
    "we": "they",
    "us": "them",
    "our": "their",
    "ours": "theirs",
    "ourselves": "themselves",
    "i'm": "they're",
    "i've": "they've",
    "i'd": "they'd",
    "i'll": "they'll",
    "we're": "they're",
    "we've": "they've",
    "we'd": "they'd",
    "we'll": "they'll",
}


_WORD = re.compile(r"[A-Za-z']+")


def third_person(sentence: str) -> str:
    """First-person review text in the third person: "I loved my room" -> "they loved their room"."""

    def swap(match: re.Match) -> str:
        word = match.group(0)
        return _PRONOUNS.get(word.lower(), word)

    text = _WORD.sub(swap, sentence.strip()).replace("they was", "they were").replace("they am", "they are")
    text = _THEIR_X_AND_THEY.sub(r"\1hey and their \2", text)  # "my wife and I" -> "they and their wife"
    text = _THEM_AND_THEIR.sub(r"\1hey and their", text)  # "Me and my wife loved it" -> "they and their wife ..."
    return text[:1].lower() + text[1:] if text[1:2].islower() else text


_THEIR_X_AND_THEY = re.compile(r"(?:^|(?<=, )|(?<=\band ))([Tt])heir (\w+(?: \w+)?) and they\b")  # a subject


_THEM_AND_THEIR = re.compile(r"^([Tt])hem and their\b")


@dataclass(frozen=True)
class Selected:
    """What a generator reads: the chosen snippets' texts and types, and the entity's display name."""

    name: str
    reviews: tuple[str, ...] = ()
    faqs: tuple[str, ...] = ()  # FAQ answers


def as_sentence(text: str) -> str:
    """``text`` stripped, with a full stop when it does not end as a sentence does ("Pets are not allowed at
    avalon" is one of 58 DSTC11 FAQ answers written without one)."""
    text = text.strip()
    return text if not text or re.search(r"[.!?][\"')\]]*$", text) else f"{text}."


def template_response(selected: Selected, max_reviews: int = 2) -> str:
    """The extractive template (see the module docstring)."""
    parts = [as_sentence(f) for f in selected.faqs[:1]]
    reviews = [reported(r, selected.name) for r in selected.reviews[:max_reviews]]
    if reviews:
        parts.append(f"Guests of {selected.name} say that " + ", and ".join(reviews) + ".")
    return " ".join(parts) if parts else f"I'm sorry, I have no information about that for {selected.name}."


def reported(review: str, name: str) -> str:
    """``review`` in reported speech about the place ``name`` (:func:`third_person`, its first letter as the review
    wrote it when it opens with the name), without its closing punctuation: what follows "Guests of X say that"."""
    return _name_kept(review, third_person(review), name).rstrip(".!? ")


def _name_kept(review: str, reported: str, name: str) -> str:
    """``reported`` (:func:`third_person` of ``review``) with its first letter as ``review`` wrote it when the review
    opens with the place's name: "Bloomsbury Restaurant was a great choice" is not "bloomsbury Restaurant was ..."."""
    first = next((w for w in name.lower().split() if w not in _SMALL_WORDS), None)
    opening = review.split(maxsplit=1)[0].lower().strip(",.!?'\"") if review.strip() else ""
    return review.strip()[:1] + reported[1:] if first is not None and opening == first else reported


def snippets_response(snippets: Sequence, names: Mapping, max_reviews: int = 2) -> str:
    """:func:`template_response` of the selected ``snippets`` (:class:`~clarion.types.Snippet`), one per entity
    in order of appearance (each entity's reviews under its own name), joined; ``names``: (domain, entity id) ->
    name. An FAQ answer that writes its place's name as the knowledge's upper-case name ("There is no onsite fitness
    center at LOVELL LODGE.", 249 of DSTC11's 2,869) gets it as :func:`display_name` writes it."""
    entities = list(dict.fromkeys((s.domain, s.entity_id) for s in snippets))
    parts = []
    for entity in entities:
        own = [s for s in snippets if (s.domain, s.entity_id) == entity]
        raw, name = names.get(entity), display_name(names.get(entity))
        reviews = tuple(s.body for s in own if s.doc_type == "review")
        faqs = tuple(_display_written(s.body, raw) for s in own if s.doc_type != "review")
        if len(entities) > 1:  # several places: an answer that does not say whose gets the name
            faqs = tuple(_whose(f, name) for f in faqs)
        parts.append(template_response(Selected(name, reviews, faqs), max_reviews))
    return " ".join(parts)

"""Aspect anchors (``PipelineConfig.aspect_anchors``, DSTC11-format knowledge): a word of a user's turn that names an
FAQ aspect the model's training turns never use ties the turn to the tracked place's FAQ whose question holds it.

MiniLM puts "Is the food at Curry Garden prepared halal?" far from "Does the CURRY GARDEN have halal options?", and
the selector, trained on dialogues that never ask about halal food, high chairs or airport shuttles, answers such a
turn from the food reviews it knows. A word is an anchor when it occurs (as a Porter stem, the place's own name cut)
in the FAQ questions of at least :data:`MIN_PLACES` places of the knowledge base — an aspect places answer —, those
questions are about one thing (their MiniLM embeddings within :data:`COHERENCE` of their mean, on average: "halal"
0.88, "shuttle" 0.95; not "bring", 0.74, which asks about wine, dogs and wheelchairs), and no training turn of the
model holds it.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Mapping, Sequence

import numpy as np

from clarion.data.dstc import Snippet
from clarion.text import content_words

MIN_PLACES = 5
"""The fewest places whose FAQ questions must hold a word for it to name an aspect."""
MIN_QUESTIONS = 5
"""The fewest distinct FAQ questions that must hold it."""
COHERENCE = 0.8
"""The least mean cosine of those questions to their (normalised) mean embedding."""


_COMPOUND = re.compile(r"\b(high|wheel)[\s-]+(chairs?)\b", re.IGNORECASE)
"""Open compounds the FAQs also write closed ("high chair", "highchair"), joined so that "chair" alone names neither."""


def stems_of(text: str) -> set[str]:
    """The content-word stems of ``text`` (:func:`~clarion.text.content_words`), "high chair" and
    "wheel chair" read as one word each."""
    return content_words(_COMPOUND.sub(r"\1\2", text))


def question_stems(snippet: Snippet, name: str | None) -> set[str]:
    """The content-word stems of an FAQ's question without those of its place's name."""
    return stems_of(snippet.title) - content_words(name or "")


def aspect_stems(
    faqs: Mapping[tuple, Sequence[Snippet]], names: Mapping[tuple, str], rows: Mapping[str, int], questions: np.ndarray
) -> frozenset[str]:
    """The stems of the FAQ questions (``faqs`` by place) that name an aspect: asked at :data:`MIN_PLACES` places or
    more, in :data:`MIN_QUESTIONS` distinct questions or more, which are :data:`COHERENCE` alike (``questions``: the
    FAQ rule's embeddings, row ``rows[title]``)."""
    places: Counter = Counter()
    held: dict[str, set[int]] = {}
    for place, snippets in faqs.items():
        stems: set[str] = set()
        for snippet in snippets:
            words = question_stems(snippet, names.get(place))
            stems |= words
            row = rows.get(snippet.title.strip())
            for word in words if row is not None else ():
                held.setdefault(word, set()).add(row)
        places.update(stems)
    out = set()
    for word, n in places.items():
        found = sorted(held.get(word, ()))
        if n < MIN_PLACES or len(found) < MIN_QUESTIONS:
            continue
        centre = questions[found].mean(axis=0)
        centre /= np.linalg.norm(centre) or 1.0
        if float((questions[found] @ centre).mean()) >= COHERENCE:
            out.add(word)
    return frozenset(out)


def anchors(turn: str, aspects: frozenset[str], seen: frozenset[str]) -> set[str]:
    """The stems of ``turn`` (names cut) that name an aspect (``aspects``, :func:`aspect_stems`) and that no training
    turn holds (``seen``, stems)."""
    return (stems_of(turn) & aspects) - seen


def anchored(snippets: Sequence[Snippet], stems: set[str], names: Mapping[tuple, str]) -> list[Snippet]:
    """The FAQs among ``snippets`` whose question holds one of ``stems``."""
    return [
        s for s in snippets if s.doc_type == "faq" and stems & question_stems(s, names.get((s.domain, s.entity_id)))
    ]

"""Whether a turn asks an opinion: praise or complaint words, or what the reviews say.

:func:`asks_opinion` keeps an FAQ the turn's other words are near from answering a question the reviews answer (rule
``aspect_anchors``, the outranking FAQ), and :data:`REVIEW_CUE` flags a turn asking what reviews say (rule
``review_cues``).
"""

from __future__ import annotations

import re

_POSITIVE = (
    r"(?:excellent|amazing|wonderful|fantastic|great|superb|lovely|delicious|tasty|friendly|helpful|welcoming|"
    r"attentive|spotless|immaculate|clean|comfortable|cosy|cozy|spacious|beautiful|stunning|perfect|fresh|convenient|"
    r"outstanding|impressive|pleasant|nice|good)"
)
_NEGATIVE = (
    r"(?:dirty|noisy|loud|rude|slow|small|tiny|cramped|expensive|overpriced|pricey|cold|bland|uncomfortable|"
    r"unfriendly|unhelpful|poor|bad|terrible|awful|mediocre|disappointing|disappointed|smelly|stained|broken|limited|"
    r"crowded|far from|outdated|old|greasy|salty|overcooked|undercooked|lacking)"
)
REVIEW_CUE = re.compile(
    r"\b(reviews?|reviewers?|(?:people|guests|customers) say|say about|people think|think of|what'?s it like)\b", re.I
)
"""Words of a turn that asks what the reviews say (DSTC11's subjective knowledge): in the train split of
dstc11_track5, 15 of the 15 last user turns holding one are knowledge-seeking. "recommend" and "rating" are not
among them (52 booking turns hold them), nor "any good" ("Any good Italian places?" is a search)."""

_OPINION = re.compile(rf"\b(?:{_POSITIVE}|{_NEGATIVE})\b", re.IGNORECASE)
_HOW_OLD = re.compile(r"\bhow old\b", re.IGNORECASE)  # "How old do I have to be to check in?" asks a rule


def asks_opinion(turn: str) -> bool:
    """Whether ``turn`` (names cut) asks an opinion: it holds a word of praise or complaint (:data:`_POSITIVE`,
    :data:`_NEGATIVE`: "Is the restaurant located in a nice area?", "does either hotel offer friendly staff?") or asks
    what the reviews say (:data:`REVIEW_CUE`). The reviews answer such a turn,
    not an FAQ about a facility its other words are near ("Can you tell me where to park at your restaurant?")."""
    return bool(_OPINION.search(_HOW_OLD.sub("", turn)) or REVIEW_CUE.search(turn))

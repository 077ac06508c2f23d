"""What guests dislike, or like, about a place: turns that ask for it, and the review sentences that state a complaint
(or praise).

DSTC11's questions about reviews nearly all name an aspect ("Are the rooms clean?"); a user asking what people dislike
about a place names none, and the selector, trained on aspects, answers with whatever it finds closest — praise of the
views, for "What do guests dislike about the Gonville Hotel?". Such a turn is answered from the place's review
sentences that state a complaint, found by their wording (:data:`COMPLAINT`): on DSTC11's knowledge it marks 872 of
8,013 review sentences, and 37 of 40 sampled (seed 50) read as complaints ("The service was a bit slow", "I wished the
portions were bigger", "the only downside here is ..."; the misses: "no complaints there", an ironic question, a
sentence about "the same" as the one before it).

The mirror question, what guests like about a place ("What do people love most about the Golden Curry?"), is asked by
no DSTC11 train turn and had been left to the dialogue manager; it is answered from review sentences stating praise
(:data:`PRAISE`; no complaint wording, negation or word leaning on the sentence before; five words at least): 1,043 of
the 8,013 review sentences, and 36 of 40 sampled (seed 53) read as praise (the other four mix it with a complaint: "...
the view from where we sat looked out over a construction site", "the beer on the other hand was just okay").
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from clarion.data.dstc import Snippet
from clarion.respond.names import mid_sentence
from clarion.respond.template import reported

ASKS_DOWNSIDES = re.compile(
    r"\b(?:dislike[sd]?|(?:don'?t|do not|didn'?t|did not)\s+(?:people\s+|guests\s+|customers\s+|reviewers\s+|they\s+)?"
    r"(?:like|enjoy)|not\s+(?:like|enjoy)|complain\w*|complaints?|downsides?|drawbacks?|negatives?|bad things|"
    r"anything bad)\b",
    re.IGNORECASE,
)
"""A turn asking what guests dislike, complain of, or the downsides of a place ("What don't people like about the
Gonville Hotel?", "Any negatives about the Lensfield Hotel?")."""

ASKS_COMPLAINTS = re.compile(r"\b(?:complain\w*|complaints?|downsides?|drawbacks?|negatives?)\b", re.IGNORECASE)
"""A turn asking whether there are complaints, about an aspect or not ("Are there any complaints about the rooms?"),
whose answer's "Yes" would say there are; "I don't like the noise, so ... is it quiet?" is none (its "Yes" answers)."""

_NEGATIVE = (
    r"(?:dirty|noisy|loud|rude|slow|small|tiny|cramped|expensive|overpriced|pricey|cold|bland|uncomfortable|"
    r"unfriendly|unhelpful|poor|bad|terrible|awful|mediocre|disappointing|disappointed|smelly|stained|broken|limited|"
    r"crowded|far from|outdated|old|greasy|salty|overcooked|undercooked|lacking)"
)
COMPLAINT = re.compile(
    r"\b(?:unfortunately|downside|drawback|(?<!no )complain\w*|(?<!no )complaints?|disappoint\w*|"
    r"the only (?:problem|issue|thing)|wish(?:ed)?|could (?:have|'ve) been|"
    r"not (?:very |that |so |too |really )?(?:good|great|clean|comfortable|friendly|helpful|big|large|spacious|quiet|"
    r"worth|impressed|happy|pleased|fresh|tasty)|"
    rf"(?:was|were|is|are|seemed|felt|a bit|a little|too|very|really|quite|rather|extremely|somewhat) {_NEGATIVE})\b",
    re.IGNORECASE,
)
"""A review sentence stating a complaint: a negative word after "was", "were", "too", "a bit", ... ("the food was
overpriced"), "not very good/clean/...", "unfortunately", "the only problem", "wish", "disappointed"; "no complaints"
is none."""

_NOT_ASPECTS = frozenset(
    "what which is are was were do does did any anything something thing things there people guest guests customer "
    "customers reviewer reviewers visitor visitors diner diners traveller travellers traveler travelers everyone "
    "anyone somebody someone say said think thought mention mentioned find found like liked enjoy enjoyed dislike "
    "disliked dislikes complain complained complains complaining complaint complaints downside downsides drawback "
    "drawbacks negative negatives bad about of at the a an in with to for it its they them their place hotel "
    "restaurant guesthouse house stay staying stayed eat eating dine dining visit visiting review reviews tell me "
    "you know can could would should i we my our don't dont do not didn't didnt did have has had been most much "
    "many usually generally really ever anybody so that this those these".split()
)


ASKS_UPSIDES = re.compile(
    r"\b(?:(?:people|guests|customers|reviewers|visitors|diners|they|everyone)\s+(?:most\s+)?"
    r"(?:like|likes|liked|love|loves|loved|enjoy|enjoys|enjoyed|rave about|praise|praised)|praised?|praises|"
    r"best things?|best parts?|highlights?|good things|strengths?|positives?|upsides?|(?:good|great) about)\b",
    re.IGNORECASE,
)
"""A turn asking what guests like or praise, or the best things of a place ("What do people love most about the Golden
Curry?", "What are the highlights of the Lensfield Hotel?")."""

_PRAISE_WORDS = frozenset(
    "like likes liked love loves loved enjoy enjoys enjoyed rave raves praise praised praises best part parts "
    "highlight highlights good great positive positives upside upsides strength strengths what's whats are".split()
)
"""The asking words of :data:`ASKS_UPSIDES`' turns: no aspect."""


def asks_downsides(turn: str) -> bool:
    """Whether ``turn`` (names cut) asks what guests dislike about a place without naming an aspect: every word
    but the asking and opinion words (:data:`_NOT_ASPECTS`) gone ("What do people dislike about the ?", not "Any
    complaints about the rooms at the ?", which the selector answers about the rooms)."""
    if not ASKS_DOWNSIDES.search(turn):
        return False
    return not [w for w in re.findall(r"[a-z']+", turn.lower()) if w not in _NOT_ASPECTS]


def asks_upsides(turn: str) -> bool:
    """Whether ``turn`` (names cut) asks what guests like about a place without naming an aspect
    (:func:`asks_downsides`' mirror: "What do people like about the ?", not "Do people like the food at the ?")."""
    if not ASKS_UPSIDES.search(turn) or ASKS_DOWNSIDES.search(turn):
        return False
    return not [w for w in re.findall(r"[a-z']+", turn.lower()) if w not in _NOT_ASPECTS and w not in _PRAISE_WORDS]


_POSITIVE = (
    r"(?:excellent|amazing|wonderful|fantastic|great|superb|lovely|delicious|tasty|friendly|helpful|welcoming|"
    r"attentive|spotless|immaculate|clean|comfortable|cosy|cozy|spacious|beautiful|stunning|perfect|fresh|convenient|"
    r"outstanding|impressive|pleasant|nice|good)"
)
PRAISE = re.compile(
    rf"\b(?:loved|enjoyed|highly recommend\w*|(?:was|were|is|are|seemed|very|really|so|extremely|incredibly|truly|"
    rf"absolutely|always) {_POSITIVE})\b",
    re.IGNORECASE,
)
"""A review sentence stating praise: a positive word after "was", "were", "very", ... ("the staff were very
friendly"), "loved", "enjoyed", "highly recommend"; one with a complaint's wording or a negation is none."""
_NEGATION = re.compile(r"\b(?:not|never|no|none|nothing)\b|n't\b", re.IGNORECASE)
_LEANING = re.compile(r"\b(?:both|too|though|also|as well|either|again)\b", re.IGNORECASE)
"""Words that lean a review sentence on the one before it ("Both were excellent", "the breakfast was good too"): read
alone as an answer, they point at nothing."""


def praises(snippets: Sequence[Snippet], most: int = 2) -> list[Snippet]:
    """:func:`complaints`' mirror: the first review sentence stating praise (:data:`PRAISE`, no complaint wording, no
    negation, not leaning on the sentence before it, five words at least) from each of up to ``most`` reviews of
    ``snippets``."""
    return _first_per_review(snippets, _praising, most)


_FEWEST_WORDS = 5
"""A praise sentence shorter than this says nothing of what was liked ("Absolutely amazing.", "Highly recommend.")."""


def _praising(body: str) -> bool:
    """Whether a review sentence states praise that reads alone (:func:`praises`)."""
    if len(body.split()) < _FEWEST_WORDS or not PRAISE.search(body) or COMPLAINT.search(body):
        return False
    return not _NEGATION.search(body) and not _LEANING.search(body)


def complaints(snippets: Sequence[Snippet], most: int = 2) -> list[Snippet]:
    """The first review sentence of ``snippets`` stating a complaint (:data:`COMPLAINT`) from each of up to ``most``
    reviews, in the knowledge's order."""
    return _first_per_review(snippets, lambda body: bool(COMPLAINT.search(body)), most)


def _first_per_review(snippets: Sequence[Snippet], wanted, most: int) -> list[Snippet]:
    """The first review sentence of ``snippets`` whose body is ``wanted`` from each of up to ``most`` reviews."""
    out: list[Snippet] = []
    for snippet in snippets:
        if snippet.doc_type != "review" or not wanted(snippet.body):
            continue
        if all(s.doc_id != snippet.doc_id for s in out):
            out.append(snippet)
        if len(out) == most:
            break
    return out


_CONNECTIVE = re.compile(r"^(?:however|in addition|additionally|also|that said|but)\b,?\s*", re.IGNORECASE)
"""An opening that tied a review sentence to the one before it ("However, my bed was ..."); the answer joins its own."""


def downsides_response(name: str, found: Sequence[Snippet]) -> str:
    """The answer to what guests of ``name`` dislike, from the complaints ``found`` (:func:`complaints`) in reported
    speech (one line each, the opening that tied it to its review's sentence before cut), or that the reviews hold
    none."""
    inner = mid_sentence(name)  # "Some guests of the Golden Curry"
    if not found:
        return f"The reviews I have of {inner} mention no complaints."
    return f"Some guests of {inner} had complaints: {_said(found, name)}."


def upsides_response(name: str, found: Sequence[Snippet]) -> str:
    """:func:`downsides_response`'s mirror: what guests of ``name`` praise (:func:`praises`), or that the reviews
    single out nothing."""
    inner = mid_sentence(name)
    if not found:
        return f"The reviews I have of {inner} single out nothing in particular."
    return f"Some guests of {inner} had praise: {_said(found, name)}."


def _said(found: Sequence[Snippet], name: str) -> str:
    """The review sentences ``found`` in reported speech, joined (the opening that tied each to its review's sentence
    before cut)."""
    return ", and ".join(_CONNECTIVE.sub("", " ".join(reported(s.body, name).split())) for s in found)

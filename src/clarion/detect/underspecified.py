"""General signals that a request lacks what its task needs: label-free features for any request, not only ClariQ's.

Each cue group is a named, ablatable heuristic (:data:`CUE_GROUPS`; its contribution to the need model is measured by
leave-one-source-out cross-validation, ``benchmarks/need_sources.py``, and reported in docs/clarify.md):

- ``slots``: the request's task needs a value it does not give. For each slot of :data:`SLOTS` (a place, a time, a
  recipient, a budget, a device or version), whether the request asks for something that needs it (generic English
  words of the task: "restaurants", "flights", "gift", "buy", "reset") and whether it supplies a value (a place
  WordNet knows after "in"/"near"/"to"; a date word; "for my sister"; "under $50"; a product name WordNet does not
  know). Feature ``missing_<slot>`` is needed-and-not-given.
- ``reference``: the request presupposes something the assistant cannot know: a definite event or thing without a
  name ("the game", "the election"), a relative time ("last night", "latest"), the user's own things ("my order").
- ``specificity``: how much the request names: words WordNet does not know (names, brands, models), places and
  people WordNet knows as instances, numbers, capitalised words.
- ``asks_fact``: rule ``specific_question`` of the conversation policy: a question after one fact about something
  named ("What is the capital of France?").

Every word list here describes a kind of task in general English; none names a dataset's places or wording. Places
and people come from WordNet 3.0 (:mod:`clarion.wordnet`).
"""

from __future__ import annotations

import re
import threading
from functools import lru_cache

import numpy as np

from clarion.detect.form import normalise, stopwords

WORD = re.compile(r"[a-z0-9]+(?:'[a-z]+)?")
NAMED_TOKEN = re.compile(r"[A-Za-z0-9]+(?:'[A-Za-z]+)?")

SLOTS: dict[str, tuple[str, str]] = {
    "place": (
        r"\b(?:near|nearby|closest|nearest|local|restaurants?|cafes?|caf[eé]s|coffee shops?|bars?|pubs?|bakery|"
        r"bakeries|hotels?|motels?|hostels?|airbnb|stores?|shops?|malls?|dentists?|doctors?|clinics?|hospitals?|gyms?|"
        r"salons?|barbers?|plumbers?|electricians?|mechanics?|weather|forecast|flights?|fly|train tickets?|"
        r"bus tickets?|"
        r"delivery|deliver|takeout|take out|open now|things to do|places to (?:eat|go|stay|visit)|apartments?|"
        r"movers|parking|museums?|beaches|hikes|hiking trails?|tours?|concerts?|showtimes?|venues?|vets?)\b",
        r"\b(?:near me|nearby|around here|in my area|close to me|my location)\b",
    ),
    "time": (
        r"\b(?:weather|forecast|events?|concerts?|showtimes?|schedule|tickets?|book|booking|reservation|reserve|"
        r"flights?|appointment|open|hours|tides?|sunset|sunrise)\b",
        r"\b(?:today|tonight|tomorrow|weekend|now|this (?:week|month|year|morning|evening|afternoon)|next "
        r"(?:week|month|year|\w+day)|monday|tuesday|wednesday|thursday|friday|saturday|sunday|january|february|march|"
        r"april|may|june|july|august|september|october|november|december|\d{1,2} ?(?:am|pm)|\d{4}|in \d+ (?:days|"
        r"weeks))\b",
    ),
    "recipient": (
        r"\b(?:gifts?|presents?|stocking stuffers?|birthday ideas?|anniversary ideas?|card messages?|what to get|"
        r"what should i get|surprise)\b",
        r"\bfor (?:my|a|an|the|her|his|our|their|him|them|me|myself|mom|dad|mum|\w+ year old)\b",
    ),
    "budget": (
        r"\b(?:buy|purchase|shopping for|cheap|cheapest|affordable|best|recommend|good|deals?|price|worth it|should i "
        r"get|which \w+ should)\b",
        r"(?:[$€£¥]|\b(?:under|below|less than|around|about) \d|\b\d+ ?(?:dollars|bucks|euros|pounds|k)\b|\bbudget\b|"
        r"\bcheap|\baffordable\b|\bexpensive\b|\bluxury\b|\bpremium\b|\bhigh[- ]end\b|\bfree\b)",
    ),
    "version": (
        r"\b(?:reset|install|uninstall|reinstall|update|upgrade|download|crash|crashes|crashing|error|not working|"
        r"won't|doesn't|isn't|can't|stopped|fix|set up|setup|configure|connect|sync|password|log ?in|sign ?in|"
        r"settings|battery|screen|app|driver|printer|wifi|bluetooth)\b",
        "",  # given: a product name or number (see :func:`_gives`)
    ),
}
"""Per slot: (words of a task that needs the slot, words that give its value)."""

SLOT_FEATURES = tuple(f"{kind}_{slot}" for slot in SLOTS for kind in ("needs", "missing"))
REFERENCE_FEATURES = ("definite_unnamed", "relative_time", "own_things")
SPECIFICITY_FEATURES = ("unknown_share", "n_unknown", "n_places", "n_people", "n_numbers", "capital_share")
ASKS_FACT_FEATURES = ("asks_fact",)
CUE_GROUPS: dict[str, tuple[str, ...]] = {
    "slots": SLOT_FEATURES,
    "reference": REFERENCE_FEATURES,
    "specificity": SPECIFICITY_FEATURES,
    "asks_fact": ASKS_FACT_FEATURES,
}
"""The cue groups by name, each with its feature columns."""

_NEEDS = {slot: re.compile(needs) for slot, (needs, _) in SLOTS.items()}
_GIVES = {slot: re.compile(gives) for slot, (_, gives) in SLOTS.items() if gives}
_PLACE_AFTER = re.compile(r"\b(?:in|at|near|to|from|around|of|visiting|downtown) ((?:[a-z]+ ){0,2}[a-z]+)")
_DEFINITE = re.compile(
    r"\bthe (?:\w+ )?(?:game|match|race|fight|war|battle|election|vote|show|episode|series|movie|"
    r"film|book|song|album|meeting|test|exam|results?|score|winner|news|speech|debate|finale|"
    r"season|event|accident|storm|announcement|update|release|trial|case|deal)\b"
)
_RELATIVE = re.compile(
    r"\b(?:last (?:night|week|weekend|year|time|season)|yesterday|this (?:morning|season)|latest|"
    r"recent|recently|current|currently|just (?:came out|released|happened)|new|newest|upcoming)\b"
)
_OWN = re.compile(
    r"\b(?:my|our) (?:\w+ )?(?:order|account|flight|booking|reservation|package|bill|plan|"
    r"subscription|phone|computer|laptop|car|device|app|router|card|appointment|project|code|file)\b"
)
QUANTITY_WORDS = frozenset("many much long far old tall big high deep fast heavy large often".split())
FACT_WORDS = frozenset({"who", "when"})


@lru_cache(maxsize=1)
def _wordnet():
    from clarion.wordnet import load_wordnet

    return load_wordnet()


_READING = threading.Lock()
"""nltk's WordNet reader seeks in shared open files: one lookup at a time."""


@lru_cache(maxsize=65_536)
def word_kind(entry: str) -> str:
    """What WordNet says ``entry`` (a word, or words joined by ``_``) is: ``"place"`` or ``"person"`` (an instance of
    a location or a person), ``"known"`` (any other entry) or ``"unknown"`` (not in WordNet: a name, brand, model)."""
    if entry in stopwords():
        return "known"
    wn = _wordnet()
    with _READING:
        synsets = wn.synsets(entry)
        if not synsets:
            return "unknown"
        location, person = wn.synset("location.n.01"), wn.synset("person.n.01")
        for synset in synsets:
            for instance_of in synset.instance_hypernyms():
                above = set(instance_of.closure(lambda s: s.hypernyms())) | {instance_of}
                if location in above:
                    return "place"
                if person in above:
                    return "person"
    return "known"


def _entries(words: list[str]) -> list[str]:
    """The request's WordNet entries: two-word names first ("new_york"), else single content words."""
    stop, out, i = stopwords(), [], 0
    while i < len(words):
        if i + 1 < len(words) and word_kind(f"{words[i]}_{words[i + 1]}") in {"place", "person"}:
            out.append(f"{words[i]}_{words[i + 1]}")
            i += 2
            continue
        if words[i] not in stop and not words[i].isdigit():
            out.append(words[i])
        i += 1
    return out


def _gives_place(text: str) -> bool:
    if _GIVES["place"].search(text) or re.search(r"\b\d{5}\b", text):
        return True
    for phrase in _PLACE_AFTER.findall(text):
        words = phrase.split()
        for n in (3, 2, 1):  # the longest name first ("san francisco bay" before "san")
            for start in range(len(words) - n + 1):
                if word_kind("_".join(words[start : start + n])) == "place":
                    return True
    return False


def _gives(slot: str, text: str, kinds: list[str]) -> bool:
    if slot == "place":
        return _gives_place(text)
    if slot == "version":  # a product, model or version named: a word WordNet does not know, or a number
        return "unknown" in kinds or bool(re.search(r"\d", text))
    return bool(_GIVES[slot].search(text))


def asks_fact(text: str) -> bool:
    """Rule ``specific_question``: a question after one fact: a quantity ("how many/much/far/old ..."), or, about
    something named (a capitalised word after the first, or a number), a person or a date ("who ...", "when ...")
    or one attribute ("what/which is/was the X of ...")."""
    words = NAMED_TOKEN.findall(text)
    low = [w.lower() for w in words]
    if len(low) < 3:
        return False
    if low[0] == "how" and low[1] in QUANTITY_WORDS:
        return True
    named = any(w[0].isupper() or w[0].isdigit() for w in words[1:])
    attribute = low[0] in {"what", "which"} and low[1] in {"is", "was"} and low[2] == "the" and "of" in low[4:]
    return named and (low[0] in FACT_WORDS or attribute)


def missing_slots(request: str) -> list[str]:
    """The slots of :data:`SLOTS` the request's task needs and it does not give, in :data:`SLOTS`' order."""
    text = normalise(request)
    kinds = [word_kind(e) for e in _entries(WORD.findall(text))]
    return [s for s in SLOTS if _NEEDS[s].search(text) and not _gives(s, text, kinds)]


def cue_features(request: str) -> dict[str, np.ndarray]:
    """The features of every cue group of :data:`CUE_GROUPS` for one request."""
    text = normalise(request)
    words = WORD.findall(text)
    entries = _entries(words)
    kinds = [word_kind(e) for e in entries]
    slots = []
    for slot in SLOTS:
        needs = bool(_NEEDS[slot].search(text))
        slots += [needs, needs and not _gives(slot, text, kinds)]
    named = [w for w in request.split()[1:] if w[:1].isupper()] if any(c.islower() for c in request) else []
    unknown = sum(k == "unknown" for k in kinds)
    named_any = unknown or any(k in {"place", "person"} for k in kinds) or named
    reference = (bool(_DEFINITE.search(text)) and not named_any, bool(_RELATIVE.search(text)), bool(_OWN.search(text)))
    specificity = (
        unknown / max(len(entries), 1),
        np.log1p(unknown),
        sum(k == "place" for k in kinds),
        sum(k == "person" for k in kinds),
        sum(w.isdigit() for w in words),
        len(named) / max(len(request.split()) - 1, 1),
    )
    return {
        "slots": np.asarray(slots, dtype=np.float64),
        "reference": np.asarray(reference, dtype=np.float64),
        "specificity": np.asarray(specificity, dtype=np.float64),
        "asks_fact": np.asarray([asks_fact(request)], dtype=np.float64),
    }

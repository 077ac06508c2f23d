"""Request-form features: how long a request is and whether it is a generic "tell me about X" or a specific ask.

ClariQ requests come from the TREC Web Track topics, rewritten as requests (Aliannejadi et al., EMNLP 2021).
Broad requests ("Tell me about iron", "figs") need clarification far more often than specific asks
("How do you tie a Windsor knot?"); these features describe that surface form. Pure functions on text.
"""

from __future__ import annotations

import re

import numpy as np

TOKEN = re.compile(r"[a-z0-9]+(?:'[a-z]+)?")

GENERIC_TEMPLATES = (
    r"tell me (?:more )?(?:about|on|information about|information on)",
    r"(?:find|give|get) (?:me )?(?:more )?(?:info|information)(?: about| on| from)?",
    r"i(?:'| a)?m looking for(?: information| info)?(?: about| on)?",
    r"i(?:'| a)?m interested in",
    r"i(?:'d| would) like to (?:learn|know) (?:more )?about",
    r"i (?:want|need) (?:to (?:learn|know) )?(?:more )?(?:about|information about|information on)",
    r"(?:info|information) (?:about|on)",
    r"what should i know about",
    r"let's see",
)
_GENERIC = re.compile(r"^\s*(?:" + "|".join(GENERIC_TEMPLATES) + r")\b")
_WH = re.compile(r"^\s*(?:what|who|whom|which|when|where|why|how|is|are|can|does|do|should)\b")
_PROCEDURAL = re.compile(r"\bhow (?:to|do|can|should|does|is)\b")
_LOCATE = re.compile(r"\b(?:where (?:can|to|should|do)|buy|order|near|find condos)\b")
_DEFINITION = re.compile(r"^\s*(?:what is|what are|who is|who was|what was|what does)\b")

FORM_FEATURES = (
    "n_tokens",
    "n_chars",
    "n_topic_tokens",
    "n_topic_content",
    "generic_template",
    "wh_question",
    "procedural",
    "locate",
    "definition",
    "question_mark",
    "bare_phrase",
    "capital_ratio",
    "has_digit",
)


def normalise(request: str) -> str:
    """Lower case, typographic apostrophes made plain, whitespace collapsed."""
    text = request.replace("\u2019", "'").replace("\u2018", "'").lower()
    return " ".join(text.split())


def without_final_period(request: str) -> str:
    """``request`` without the periods (and spaces) it ends with, unless nothing else is left: whether a user ends a
    request with a period says nothing about what it asks."""
    return request.rstrip(" .") or request


def topic_phrase(request: str) -> str:
    """The request with a generic opening ("tell me about", "find information on", ...) removed."""
    text = normalise(request)
    return _GENERIC.sub("", text, count=1).strip(" .?!")


def stopwords() -> frozenset[str]:
    from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS

    return frozenset(ENGLISH_STOP_WORDS)


def form_features(request: str) -> np.ndarray:
    """The :data:`FORM_FEATURES` of one request, as float64."""
    text = normalise(request)
    tokens = TOKEN.findall(text)
    topic = TOKEN.findall(topic_phrase(request))
    stop = stopwords()
    generic = bool(_GENERIC.match(text))
    wh = bool(_WH.match(text))
    words = request.split()
    # capitalised words mark names; a request typed in capitals throughout has no such cue (read as lower case)
    cased = any(c.islower() for c in request)
    capitals = sum(1 for w in words[1:] if w[:1].isupper()) if cased else 0
    values = (
        len(tokens),
        len(text),
        len(topic),
        sum(1 for t in topic if t not in stop),
        generic,
        wh,
        bool(_PROCEDURAL.search(text)),
        bool(_LOCATE.search(text)),
        bool(_DEFINITION.match(text)),
        "?" in request,
        not generic and not wh,
        capitals / max(len(words) - 1, 1),
        any(c.isdigit() for c in text),
    )
    return np.asarray(values, dtype=np.float64)


NAMED_TOKEN = re.compile(r"[A-Za-z0-9]+(?:'[A-Za-z]+)?")
QUANTITY_WORDS = frozenset("many much long far old tall big high deep fast heavy large often".split())
"""Words after "how" that ask for one quantity ("how many", "how far", ...)."""
FACT_WORDS = frozenset({"who", "when"})
"""Question words that ask for one person or one date."""


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

"""Knowledge-seeking turn detection (DSTC9 Track 1 task 1, Kim et al., 2020).

A logistic regression over the last user turn: TF-IDF word 1-2-grams and character 2-5-grams (the lexical
shape of a question about reviews or FAQs) plus, when enabled, its all-MiniLM-L6-v2 embedding (Reimers &
Gurevych, 2019), which on our dstc11_track5 dev split removed most of the lexical model's errors.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass

import numpy as np

from clarion.bounds import FLAG, FRACTION, Bound, check_fields

_DETECT_BOUNDS = {
    "use_embeddings": FLAG,
    "C": Bound("float", 0, open_low=True),
    "threshold": FRACTION,
    "faq_rule": FLAG,
    "strip_names": FLAG,
    "entity_faq_cosine": Bound("float", 0, 1, optional=True),
}


_REQUEST_OPENER = re.compile(
    r"\b(?:what can you tell me about|(?:can|could|would) you (?:please )?tell me (?:a (?:bit|little) )?(?:more )?about"
    r"|(?:please )?tell me (?:a (?:bit|little) )?(?:more )?about|(?:i'?d|i would|i want to|i wanna) (?:like to )?"
    r"(?:know|hear|learn) (?:more |a bit |a little )?about|(?:(?:can|could|would) you (?:please )?(?:provide|give)"
    r"(?: me)? |do you have )?(?:any|some) (?:more )?(?:info|information|details) (?:on|about)|what about|how about)"
    r"\s+(?P<np>(?:the|their|its) (?P<head>.+?))[\s.?!]*$",
    re.I,
)
"""A request for information followed by a noun phrase to the end of the turn: "Tell me about the breakfast at
the Alexander B&B.", "What about their drinks?"."""
_HEAD_END = re.compile(r"\s(?:at|of|in|from|for|on|there|here|they|you)\b.*$", re.I)
_NOT_ASPECTS = re.compile(
    r"\b(?:ones?|places?|options?|hotels?|restaurants?|guest ?houses?|b ?& ?b|bed and breakfast|lodges?|inns?|"
    r"bars?|pubs?|cafes?|museums?|colleges?|attractions?|[a-z]*\d\w*|first|second|third|last|other|same|former|"
    r"latter|cheap\w*|expensive|moderate\w*|north|south|east|west|centre|center|reference|booking|reservation|"
    r"address|phone|postcode|post code|number|price range|area|stars?)\b",
    re.I,
)
"""Heads that name a place, point at one, or ask a booking API's slot ("What about the one in the north?",
"How about the moderate one?", "Tell me about the Portuguese restaurant", "What about the reference number?")."""
MAX_ASPECT_WORDS = 3


def as_question(text: str, names: Callable[[str], bool]) -> str | None:
    """``text`` asked as a question when it requests information about an aspect of a place in another form:
    "Tell me about the breakfast at the Alexander B&B." -> "How is the breakfast at the Alexander B&B?"; ``None``
    for any other turn. The aspect is the noun phrase's head up to a preposition, at most three words, holding
    no place word, no booking slot, no number and no entity name (``names(head)`` true when it holds one): a
    request about a place itself ("Tell me about the Acorn Guest House.") is a booking request in DSTC."""
    match = _REQUEST_OPENER.search(text)
    if match is None:
        return None
    head = _HEAD_END.sub("", match.group("head")).strip()
    if not head or len(head.split()) > MAX_ASPECT_WORDS or _NOT_ASPECTS.search(head) or names(head):
        return None
    return f"{text[: match.start()]}How is {match.group('np').rstrip(' .?!')}?"


_FOLLOW_UP = re.compile(
    r"^\W*(?:(?:and|so|ok|okay|well|then|also)\b\W*)*"
    r"(?:(?:what|how)\s+about|same\s+(?:question\s+|thing\s+|goes\s+)?(?:for|about|at|with)|and|"
    r"is\s+(?:that|it|this)\s+(?:also\s+)?(?:true|the\s+case|so)\s+(?:for|at|of|with))"
    r"\s*(?:(?:at|for|in|with|about|of)\s+)?(?:the\s+)?\W*"
    r"(?P<reference>(?:first|second|third|last|other)\s+(?:one|place|option|hotel|restaurant|guest\s?house)\b\W*|"
    r"(?:former|latter)\b\W*)?"
    r"(?:(?:then|too|instead|as\s+well|please)\b\W*)?$",
    re.IGNORECASE,
)
"""A user turn whose place names are cut (:meth:`EntityTracker.strip_names`) that only asks "and that place?": "How
about at the ?", "Okay, and what about the ?", "Same question for .", "And ?", "Ok. How about  then?"; or that
points at a place instead of naming it: "And the other one?", "What about the second one?"."""
_FOLLOW_UP_START = re.compile(r"^\W*(?:and|so|ok|okay|well|then|also|what|how|same|is)\b", re.IGNORECASE)


def follow_up_question(
    users: Sequence[str], mentions: Callable[[str], list], strip: Callable[[str], str]
) -> str | None:
    """The question an elliptical follow-up about another place asks: the user turns ``users`` (last last) end with
    one that names a place, or points at one ("the other one", "the second one"), and asks nothing more
    (:data:`_FOLLOW_UP`; "How about at the Gonville Hotel?" after "Do they have free parking at the Lensfield
    Hotel?"), and the user turn before it is a question (itself resolved first when it is such a follow-up too).
    Returns that question, or ``None``. ``mentions`` gives the places a text names, ``strip`` cuts them; the caller
    swaps the names (and resolves a pointing follow-up's place)."""
    if len(users) < 2 or not _FOLLOW_UP_START.match(users[-1]):  # most turns: no name lookup
        return None
    match = _FOLLOW_UP.match(strip(users[-1]))
    if match is None or not (match.group("reference") or mentions(users[-1])):
        return None
    previous = follow_up_question(users[:-1], mentions, strip) or users[-2]
    if "?" not in previous and not _QUESTION_OPENER.match(previous.strip()):
        return None
    return previous


_COORDINATION = re.compile(r"\s*,?\s+\band\b\s+|\s*,?\s+\bas well as\b\s+", re.IGNORECASE)
_ASKED = re.compile(r"[^.!?]*\?|[^.!?]+$")
_QUESTION_OPENER = re.compile(
    r"^(?:is|are|was|were|do|does|did|can|could|will|would|should|may|have|has|how|what|which|where|when|who|why)\b",
    re.IGNORECASE,
)
_FRAME_END = re.compile(
    r"\b(?:is|are|have|has|there|serve|serves|offer|offers|allow|allows|provide|provides|take|takes|accept|accepts|"
    r"get|bring|need)\b",
    re.IGNORECASE,
)


def coordinated_parts(text: str) -> list[str]:
    """The last question of ``text`` (its last stretch ending with "?", else an unterminated last stretch; none for a
    text ending with "." or "!") asked once per thing it joins with "and": "Do they have a pool and a gym?" -> ["Do
    they have a pool", "Do they have a gym?"] (a later part that is no question of its own gets the first part's
    opening up to its verb: "Does it have parking and wifi?" -> [..., "Does it have wifi?"]); one part without an "and"
    (entity names should be cut first: "A and B Guest House")."""
    asked = [m.group(0).strip() for m in _ASKED.finditer(text) if m.group(0).strip()]
    if not asked:
        return []
    parts = [part for part in _COORDINATION.split(asked[-1]) if re.search(r"[A-Za-z]{3}", part)]
    if len(parts) < 2:
        return parts
    frame = next((m for m in _FRAME_END.finditer(parts[0]) if m.start() > 0), None)
    opening = parts[0][: frame.end()] if frame is not None and _QUESTION_OPENER.match(parts[0]) else ""
    return parts[:1] + [p if _QUESTION_OPENER.match(p) or not opening else f"{opening} {p}" for p in parts[1:]]


PREFERENCE_WORDS = frozenset({"better", "best", "recommend", "suggest", "prefer"})
"""Words that ask which place to choose, not what a place is like."""
_CHOICE_FILLER = frozenset(
    "one ones option options choice choices place places hotel hotels restaurant restaurants guesthouse guesthouses "
    "guest house houses lodge think opinion overall personally really just say like want choose pick go yes ok okay "
    "alright right sure well hmm um uh thanks thank great good sound sounds two three ll ve".split()
)
"""Words that name no aspect in a request for a choice ("Okay, which one would you recommend?")."""


def might_ask_preference(text: str) -> bool:
    """Whether ``text`` holds "which" and a preference word: cutting names never adds them, so a turn without both
    needs no :func:`asks_preference_only`."""
    words = set(re.findall(r"[a-z]+", text.lower()))
    return "which" in words and not words.isdisjoint(PREFERENCE_WORDS)


def asks_preference_only(text: str) -> bool:
    """Whether ``text`` (entity names cut) asks which place to choose and names no aspect: "Which one is better?",
    "Which one would you recommend?" (train labels such requests not knowledge-seeking, 6 of 6, and every "which"
    question naming an aspect, "Which one has the best views?", knowledge-seeking, 34 of 34)."""
    from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS

    if not might_ask_preference(text):
        return False
    words = re.findall(r"[a-z]+", text.lower())
    return all(w in ENGLISH_STOP_WORDS or w in PREFERENCE_WORDS or w in _CHOICE_FILLER for w in words)


@dataclass
class DetectConfig:
    """Options of the detector (part of the model's config in meta.json)."""

    use_embeddings: bool = True
    C: float = 10.0
    threshold: float = 0.5
    faq_rule: bool = True
    """Also call a turn that paraphrases an FAQ question knowledge-seeking (gated for DSTC11-format knowledge)
    (:mod:`clarion.detect.faq_rule`; needs the dense embeddings)."""
    strip_names: bool = True
    """The gated FAQ rule compares turns and FAQ questions with entity names removed (models trained with it keep
    their non-knowledge turns' embeddings without names as well)."""
    entity_faq_cosine: float | None = 0.4
    """The gated FAQ rule also fires, at this lower cosine, for an FAQ of a place the dialogue tracks (DSTC11-format
    knowledge; the margin as the rule's): "Can I check in at 11 pm?" after the Lensfield Hotel is 0.74 (names cut)
    from its "What time can I check in at The Lensfield Hotel?", "Can I pay by card?" 0.57 from "Do you accept credit
    cards?", 0.43 from "What forms of payment do you accept?". Below
    :data:`~clarion.detect.faq_rule.ENTITY_FAQ_COSINE`, a turn only the gate took is answered from the closest
    FAQ the gate fires on (``FaqRule.best_faq(..., gated=True)``). 0.4 since 2026-11-27 (0.65, then 0.5 before; set
    with ``benchmarks/dstc_faq_probe.py`` and train cross-validation, docs/dstc.md). ``None``: off (models
    trained before it)."""

    def __post_init__(self) -> None:
        check_fields(self, _DETECT_BOUNDS)


class Detector:
    """Fit on (last user turn, target) pairs; predict a probability per turn.

    >>> det = Detector(DetectConfig(use_embeddings=False))
    >>> det.fit(["is it quiet?", "book it please", "are rooms clean?", "for 2 people"], [1, 0, 1, 0])
    >>> det.predict_proba(["is the staff friendly?"]).shape
    (1,)
    """

    def __init__(self, config: DetectConfig | None = None):
        self.config = config or DetectConfig()
        self._vectorizers = None
        self._model = None
        self._stems: frozenset[str] | None = None  # word_stems, computed on first use

    def _features(self, texts: Sequence[str], embeddings: np.ndarray | None, fit: bool = False):
        from scipy.sparse import csr_matrix, hstack
        from sklearn.feature_extraction.text import TfidfVectorizer

        if fit:
            self._vectorizers = [
                TfidfVectorizer(ngram_range=(1, 2), sublinear_tf=True),
                TfidfVectorizer(analyzer="char_wb", ngram_range=(2, 5), sublinear_tf=True),
            ]
            blocks = [v.fit_transform(texts) for v in self._vectorizers]
        else:
            blocks = [v.transform(texts) for v in self._vectorizers]
        if self.config.use_embeddings:
            if embeddings is None:
                from clarion.retrieve.dense import encode

                embeddings = encode(list(texts))
            blocks.append(csr_matrix(embeddings))
        return hstack(blocks).tocsr()

    def classifier(self):
        """A fresh classifier of this detector's configuration (:mod:`clarion.classifier`)."""
        from clarion.classifier import BinaryLogReg

        return BinaryLogReg(C=self.config.C, max_iter=3000)

    def fit(self, texts: Sequence[str], targets: Sequence[int], embeddings: np.ndarray | None = None) -> None:
        features = self._features(list(texts), embeddings, fit=True)
        self._model = self.classifier().fit(features, np.asarray(targets, dtype=int))

    def predict_proba(self, texts: Sequence[str], embeddings: np.ndarray | None = None) -> np.ndarray:
        """P(knowledge-seeking) for each text."""
        if not texts:
            return np.zeros(0)
        return self._model.predict_proba(self._features(list(texts), embeddings))[:, 1]

    def state(self, arrays: dict[str, np.ndarray]) -> dict:
        """JSON state (vectorizers, the classifier's header); weights go into ``arrays`` (the TF-IDF vocabularies:
        :mod:`clarion.dstc.models.persist`; the classifier: :func:`clarion.classifier.save_classifier`)."""
        from clarion.classifier import save_classifier
        from clarion.dstc.models.persist import tfidf_state

        return {
            "classifier": save_classifier(self._model, arrays, "detect_lr_"),
            "config": asdict(self.config),
            "vectorizers": [tfidf_state(v, f"detect_tfidf{i}_", arrays) for i, v in enumerate(self._vectorizers)],
        }

    @classmethod
    def from_state(cls, state: dict, arrays: dict[str, np.ndarray]) -> Detector:
        from clarion.classifier import load_classifier
        from clarion.dstc.models.persist import tfidf_from_state

        det = cls(DetectConfig(**state["config"]))
        det._vectorizers = [
            tfidf_from_state(v, f"detect_tfidf{i}_", arrays) for i, v in enumerate(state["vectorizers"])
        ]
        det._model = load_classifier(state["classifier"], arrays)
        return det

    def predict(self, texts: Sequence[str], embeddings: np.ndarray | None = None) -> np.ndarray:
        return self.predict_proba(texts, embeddings) >= self.config.threshold

    def word_stems(self) -> frozenset[str]:
        """The content-word stems of the training turns' words (the word TF-IDF's one-word terms; cached)."""
        if self._stems is None:
            from clarion.text import content_words

            terms = self._vectorizers[0].vocabulary_ if self._vectorizers else {}
            self._stems = frozenset(content_words(" ".join(t for t in terms if " " not in t)))
        return self._stems


def upgraded_state(state: dict) -> dict:
    """A detector state of DSTC model format 2 or older (before :mod:`clarion.classifier`) in the current layout: its
    logistic regression's arrays where they were (``detect_lr_``), a classifier header added."""
    from clarion.classifier import header

    fresh = Detector(DetectConfig(**state["config"])).classifier()
    return {**state, "classifier": header(fresh.name, fresh.params, "detect_lr_")}

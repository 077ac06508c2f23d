"""Clarifying questions beyond the bank: a specific question about what a request lacks, written for it.

When no bank question fits a request (the ClariQ bank was written for ClariQ's topics), the engine writes one
(:class:`QuestionWriter`). It asks about what is missing, with options where there are some:

1. ``senses``: the request's topic is a bare word (:data:`ARTICLES`) with several common senses in different WordNet
   domains: "Which do you mean: mercury the metallic element, the Roman deity, or the planet?"; the options are the
   senses.
2. ``kind``: what the request lacks, as a type among :data:`KINDS` ("place", "budget", "recipient", ...), predicted
   by a classifier learnt from requests labelled with what their question asks for (clarion's everyday requests):
   a logistic regression over the MiniLM embedding and the words of the request. Each kind has one question form
   that names the request's topic: "Which city or area are you looking for good coffee shops in?".

The question carries its options (``Written.options``, possibly none) and where it came from (``Written.source``).
A question with options ends with "...: A, B, or C?", so the answer can be matched to an option without any state
beyond the turns (:func:`options_in`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import lru_cache

import numpy as np

from clarion.detect.form import normalise, stopwords
from clarion.wordnet import READING, load_wordnet

KINDS: dict[str, str] = {
    "place": "Which city or area are you looking for {topic} in?",
    "time": "When do you need {topic}: which date or time?",
    "budget": "What is your budget for {topic}?",
    "recipient": "Who is the {topic} for, and what do they like?",
    "person": "Which person do you mean by {topic}?",
    "version": "Which device, model or version is {topic} about?",
    "reading": "Which {topic} do you mean?",
    "preference": "What kind of {topic} do you like?",
    "scope": "What would you like to know about {topic}?",
    "quantity": "How much or how many do you need for {topic}?",
    "purpose": "What will you use {topic} for?",
    "details": "Could you tell me more about {topic}: what exactly is happening?",
}
"""What a request may lack, with the question that asks for it (``{topic}``: the request's topic phrase)."""
DEFAULT_KIND = "scope"

_OPENING = re.compile(
    r"^(?:(?:hey|hi|ok|okay|so|please|can you|could you|would you|i need you to)\s+)*"
    r"(?:tell me (?:more )?(?:about|on)|give me (?:a list of |some |a |an )?|find (?:me )?(?:a |an |some )?|"
    r"show me (?:some )?|recommend (?:me )?(?:a |an |some )?|suggest (?:a |an |some )?|"
    r"i(?:'m| am) looking for (?:a |an |some )?|looking for (?:a |an |some )?|"
    r"i (?:want|need) (?:a |an |some |to (?:know|learn) about )?|need (?:a |an |some )?|"
    r"what are (?:some |the )?(?:good |best )?|where can i (?:buy|get|find) (?:a |an |some )?|"
    r"how (?:do|can|should) i |what(?:'s| is) (?:a |an |the )?|info(?:rmation)? (?:about|on) )"
)
_TAIL = re.compile(
    r"\s*(?:near me|nearby|around here|please|for me|ideas|suggestions|recommendations|options|tips|\?|!|\.)+$"
)


def topic_of(request: str) -> str:
    """The request's topic as a question can name it: without its opening ("give me a list of", "where can I buy")
    and its closing ("near me", "?")."""
    text = normalise(request).strip(" ?!.")
    for _ in range(2):  # "can you find me ..." loses both openings
        text = _OPENING.sub("", text, count=1).strip()
    head = text.split(", ")[0]  # "a new laptop for college, what should i get": the clause before the comma
    text = head if set(head.split()) - stopwords() else text
    return _TAIL.sub("", text).strip() or normalise(request).strip(" ?!.")


def options_in(question: str) -> list[str]:
    """The options of a question written as "...: A, B, or C?" (none for any other question)."""
    if not question.rstrip().endswith("?") or ": " not in question:
        return []
    tail = question.rstrip().rstrip("?").rsplit(": ", 1)[1]
    parts = [p.strip() for p in re.split(r",\s*(?:or\s+)?|\s+or\s+", tail) if p.strip()]
    return parts if len(parts) >= 2 else []


def with_options(lead: str, options: Sequence[str]) -> str:
    """``lead: A, B, or C?`` (the form :func:`options_in` reads back)."""
    listed = ", ".join(options[:-1]) + (", or " if len(options) > 2 else " or ") + options[-1]
    return f"{lead}: {listed}?"


@dataclass(frozen=True)
class Written:
    """A question written for a request: its text, options (possibly none) and source (``senses`` or ``kind:<k>``)."""

    text: str
    options: list[str] = field(default_factory=list)
    source: str = "kind:" + DEFAULT_KIND


MAX_OPTIONS = 3
ARTICLES = frozenset({"a", "an", "the"})
"""What a bare topic may hold besides its word ("the capital"). A topic with any other word is not bare: "when should i
see a doctor" has one content word, but asks when, not which doctor. On the everyday requests needing a question,
offering senses only for bare topics raised the mean cosine to people's questions from 0.433 to 0.440 and the share at
least as close as the repeated request from 68% to 69% (``benchmarks/questions_everyday.py``): of the 34 requests that
got senses when any topic with one content word did, the 24 that are not bare were mostly asked about the senses of a
word that was not what they lacked ("the medical practitioner or the play?"): 0.30 against 0.41 for their kind's
question."""


@lru_cache(maxsize=16_384)
def senses(word: str) -> tuple[str, ...]:
    """Up to :data:`MAX_OPTIONS` readings of a noun with senses in different WordNet domains, most frequent first,
    each named by what it is (its hypernym, or the class it is an instance of): ("the metallic element", "the Roman
    deity", "the terrestrial planet") for "mercury"; () when WordNet knows one domain only."""
    with READING:
        synsets = load_wordnet().synsets(word, "n")
        seen, out = set(), []
        for synset in synsets:
            if synset.lexname() in seen:
                continue
            above = synset.instance_hypernyms() or synset.hypernyms()
            if not above:
                continue
            seen.add(synset.lexname())
            out.append("the " + above[0].lemma_names()[0].replace("_", " "))
    out = list(dict.fromkeys(o for o in out if word not in o.split()))
    return tuple(out[:MAX_OPTIONS]) if len(out) >= 2 else ()


class QuestionWriter:
    """Writes a clarifying question for a request (see the module docstring); ``kinds`` is a fitted classifier of
    what a request lacks (:meth:`fit`), or None to ask about the topic's scope."""

    def __init__(self, classifier=None, vectorizer=None, labels: Sequence[str] = ()):
        self.classifier, self.vectorizer, self.labels = classifier, vectorizer, list(labels)

    @classmethod
    def fit(cls, requests: Sequence[str], kinds: Sequence[str], embeddings: np.ndarray, C: float = 3.0):
        """A writer whose kind classifier is fitted on ``requests`` labelled with what they lack."""
        from sklearn.feature_extraction.text import TfidfVectorizer
        from sklearn.linear_model import LogisticRegression

        vectorizer = TfidfVectorizer(ngram_range=(1, 2), sublinear_tf=True).fit(requests)
        classifier = LogisticRegression(C=C, max_iter=3000).fit(_design(vectorizer, requests, embeddings), kinds)
        return cls(classifier, vectorizer, classifier.classes_)

    def kind(self, requests: Sequence[str], embeddings: np.ndarray) -> list[str]:
        """What each request most likely lacks (:data:`DEFAULT_KIND` without a classifier)."""
        if self.classifier is None:
            return [DEFAULT_KIND] * len(requests)
        return list(self.classifier.predict(_design(self.vectorizer, requests, embeddings)))

    def write(self, requests: Sequence[str], embeddings: np.ndarray) -> list[Written]:
        """A question for each request."""
        return [self._one(r, k) for r, k in zip(requests, self.kind(requests, embeddings), strict=True)]

    def _one(self, request: str, kind: str) -> Written:
        topic = topic_of(request)
        words = [w for w in topic.split() if w not in ARTICLES]
        if len(words) == 1 and words[0] not in stopwords():  # a bare word ("mercury", "java"): which of its senses?
            readings = senses(words[0])
            if readings:
                return Written(with_options(f"Which do you mean by {topic}", readings), list(readings), "senses")
        return Written(KINDS.get(kind, KINDS[DEFAULT_KIND]).format(topic=topic), [], f"kind:{kind}")


def _design(vectorizer, requests: Sequence[str], embeddings: np.ndarray):
    import scipy.sparse as sparse

    return sparse.hstack([vectorizer.transform(requests), sparse.csr_matrix(3.0 * np.asarray(embeddings))]).tocsr()

"""Is the user's reply to a clarifying question an answer, or a new request?

After "Which aspect of dinosaurs do you mean?", "their extinction" answers the question but "i want to book a flight
to paris" starts over: the engine must then read the reply as the request, not narrow "dinosaurs" with it.
:class:`NewRequestDetector` is a logistic regression over features of the request, the question and the reply: the
packaged MiniLM's cosine of the reply with the request, with the question and with both (the mean of their
embeddings, normalised: on clarion's follow-ups the same AUC as encoding "request question" as one text, 0.970
against 0.971, and accuracy, 0.901, for a quarter fewer encoder positions); the reply's length and
the share of its words the question and the request already hold; the reply's form
(:data:`clarion.detect.form.FORM_FEATURES`: a question, "how to", "tell me about" ...). It learns from clarion's
follow-up set (``src/clarion/data/everyday/followups.jsonl``: replies labelled answer or new request) and from
ClariQ train: people's answers to its questions are answers, and another topic's request in their place is a new
request (``benchmarks/new_requests.py`` measures it).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from clarion.detect.form import FORM_FEATURES, form_features
from clarion.dialogue.state import State

WORD = re.compile(r"[a-z0-9']+")
FEATURES = (
    "cos_request",
    "cos_question",
    "cos_both",
    "n_words",
    "log_words",
    "share_question_words",
    "share_request_words",
    *(f"reply_{name}" for name in FORM_FEATURES),
)
SMALL_BATCH = 16
"""Texts per encoder batch when a service's batch of replies is read: the requests, questions and replies sorted by
length into batches of 16 pad far less than one batch padded to the longest."""
VERSION = 2
"""The features' version, part of the any-request model's key: 2 reads "both" as the normalised mean of the request's
and the question's embeddings (1 encoded them as one text)."""
THRESHOLD = 0.9
"""P(new request) at which a reply is read as one. Taking an answer for a new request loses the conversation's
topic, which costs more than the reverse: at 0.9, 1.3% of the answers of held-out ClariQ train topics are taken for
new requests (4.6% at 0.5) and 91% of clarion's follow-ups are read right (93% at 0.5; out of fold)."""


def features(requests: Sequence[str], questions: Sequence[str], replies: Sequence[str], encode=None) -> np.ndarray:
    """The :data:`FEATURES` of each (request, question, reply); ``encode``: texts -> L2-normalised embeddings
    (default: the packaged MiniLM)."""
    encode = encode or encode_known  # batches of 16 sorted by length: the views differ in length by several times
    if not replies:
        return np.zeros((0, len(FEATURES)))
    n = len(replies)
    emb = encode([*requests, *questions, *replies])  # one encoder pass for the three texts
    er, eq, ea = emb[:n], emb[n : 2 * n], emb[2 * n : 3 * n]
    both = er + eq
    both /= np.maximum(np.linalg.norm(both, axis=1, keepdims=True), 1e-12)
    rows = []
    for i, reply in enumerate(replies):
        words = WORD.findall(reply.lower())
        asked, requested = set(WORD.findall(questions[i].lower())), set(WORD.findall(requests[i].lower()))
        n = max(len(words), 1)
        rows.append(
            [
                float(ea[i] @ er[i]),
                float(ea[i] @ eq[i]),
                float(ea[i] @ both[i]),
                len(words),
                np.log1p(len(words)),
                len(set(words) & asked) / n,
                len(set(words) & requested) / n,
                *form_features(reply),
            ]
        )
    return np.asarray(rows, dtype=np.float64)


def encode_known(texts: Sequence[str], known: Sequence[np.ndarray | None] | None = None) -> np.ndarray:
    """The packaged MiniLM's embeddings of ``texts`` for :func:`features`: ``known[i]`` where it is given (an
    embedding already computed), the other texts encoded in batches of :data:`SMALL_BATCH`."""
    from clarion.retrieve.dense import encode_queries

    known = list(known) if known is not None else [None] * len(texts)
    missing = [i for i, row in enumerate(known) if row is None]
    if len(missing) == len(texts):
        return encode_queries(list(texts), batch_size=SMALL_BATCH)
    given = next(row for row in known if row is not None)
    out = np.zeros((len(texts), len(given)), dtype=np.float32)
    for i, row in enumerate(known):
        if row is not None:
            out[i] = row
    if missing:
        out[missing] = encode_queries([texts[i] for i in missing], batch_size=SMALL_BATCH)
    return out


@dataclass
class NewRequestDetector:
    """P(new request) of a reply: standardisation and a logistic regression over :func:`features`."""

    mean: np.ndarray
    scale: np.ndarray
    coef: np.ndarray
    intercept: float

    @classmethod
    def fit(cls, X: np.ndarray, y: Sequence[int], weights: np.ndarray | None = None, C: float = 1.0):
        from sklearn.linear_model import LogisticRegression

        mean, scale = X.mean(axis=0), X.std(axis=0)
        scale[scale == 0] = 1.0
        model = LogisticRegression(C=C, max_iter=3000).fit((X - mean) / scale, np.asarray(y, dtype=int), weights)
        return cls(mean, scale, model.coef_[0].astype(np.float64), float(model.intercept_[0]))

    def probability(self, X: np.ndarray) -> np.ndarray:
        return 1.0 / (1.0 + np.exp(-(((X - self.mean) / self.scale) @ self.coef + self.intercept)))

    def arrays(self, prefix: str) -> dict[str, np.ndarray]:
        values = {"mean": self.mean, "scale": self.scale, "coef": self.coef, "intercept": np.asarray([self.intercept])}
        return {prefix + k: v for k, v in values.items()}

    @classmethod
    def from_arrays(cls, arrays: dict[str, np.ndarray], prefix: str) -> NewRequestDetector:
        a = {k: arrays[prefix + k] for k in ("mean", "scale", "coef", "intercept")}
        return cls(a["mean"], a["scale"], a["coef"], float(a["intercept"][0]))


def restarted(state: State, is_new: Callable[[str, str, str], bool]) -> tuple[State, bool]:
    """``state`` read again from the last reply that ``is_new(request, question, reply)`` finds a new request: that
    reply becomes the request, with the exchanges after it; and whether any reply was one."""
    request, exchanges, found = state.request, [], False
    for e in state.exchanges:
        if is_new(request, e.question, e.answer):
            request, exchanges, found = e.answer, [], True
        else:
            exchanges.append(e)
    if not found:
        return state, False
    return State(request, tuple(exchanges), state.last, state.pending and bool(exchanges)), True

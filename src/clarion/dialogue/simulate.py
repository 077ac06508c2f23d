"""A user simulator for offline evaluation, after the organisers' synthetic multi-turn conversations.

A simulated user holds one hidden facet of a ClariQ topic. Asked one of its topic's bank questions, it answers
with the answer a person wrote for that facet (the labelled rows). Asked any other question, it answers "yes" or
"no" by a logistic regression on the cosine of the question to the facet's description and to the request, fitted
on the training rows (target: the person's answer opens with "yes"). The facet's words never leak into a learned
answer, so a simulated conversation reveals no more than a bare yes or no would.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from clarion.data.clariq import ClariqLabels
from clarion.data.clariq_constants import NO_QUESTION
from clarion.dialogue.understand import tokens


def _features(question: np.ndarray, facet: np.ndarray, request: np.ndarray) -> np.ndarray:
    return np.column_stack([(question * facet).sum(1), (question * request).sum(1)])


def unique(encode: Callable[[Sequence[str]], np.ndarray]) -> Callable[[Sequence[str]], np.ndarray]:
    """``encode`` computing each distinct text once."""

    def encoded(texts: Sequence[str]) -> np.ndarray:
        distinct = sorted(set(texts))
        row = {t: i for i, t in enumerate(distinct)}
        return encode(distinct)[[row[t] for t in texts]]

    return encoded


class UserSimulator:
    """Answers questions for a hidden facet (see the module docstring)."""

    def __init__(self, labels: ClariqLabels, encode: Callable[[Sequence[str]], np.ndarray], model):
        self.labels = labels
        self.encode = encode
        self.model = model
        self.topic_of = {f: t for t, fs in labels.facets.items() for f in fs}

    @classmethod
    def fit(cls, train: ClariqLabels, labels: ClariqLabels, encode: Callable) -> UserSimulator:
        """The yes/no model fitted on ``train``'s rows; the simulator answers for ``labels``' facets."""
        from sklearn.linear_model import LogisticRegression

        topic_of = {f: t for t, fs in train.facets.items() for f in fs}
        rows = [(f, q, a) for (f, q), a in train.answers.items() if q != NO_QUESTION and a.strip()]
        encode_once = unique(encode)
        questions = encode_once([train.question_text[q] for _, q, _ in rows])
        facets = encode_once([train.facet_desc[f] for f, _, _ in rows])
        requests = encode_once([train.requests[topic_of[f]] for f, _, _ in rows])
        y = np.array([tokens(a)[:1] == ["yes"] for _, _, a in rows])
        model = LogisticRegression().fit(_features(questions, facets, requests), y)
        return cls(labels, encode, model)

    def recorded(self, facet: str, question_id: str | None) -> str | None:
        answer = self.labels.answers.get((facet, question_id or ""), "")
        return answer if answer.strip() else None

    def p_yes(self, facet: str, question: str) -> float:
        emb = self.encode([question, self.labels.facet_desc[facet], self.labels.requests[self.topic_of[facet]]])
        return float(self.model.predict_proba(_features(emb[:1], emb[1:2], emb[2:3]))[0, 1])

    def answer(self, facet: str, question: str, question_id: str | None = None) -> str:
        """The hidden facet's answer to ``question``."""
        return self.recorded(facet, question_id) or ("yes" if self.p_yes(facet, question) >= 0.5 else "no")

"""Understanding the user's answers: the query as it stands after each answer, chosen among candidate rewrites.

After the system asks "are you interested in more than one hip roof design?" and the user says "no, I just want
pictures of one", the need is no longer "hip roof design" plus the question: the question was turned down and the
answer says what is wanted. The :class:`Rewriter` writes a few candidate queries from the query so far (``P``), the
question (``Q``) and the answer (``A``) — ``P + A`` (the organisers' baseline), ``P + Q + A``, the question's and
the answer's content words only, the query's content words without the frame most requests share ("tell me about",
``Pc``), ``P`` alone, ... (:data:`CANDIDATES`) — and a LightGBM model (LambdaRank by
default) orders them from features of the answer (its first word, which of the frequent answer words it holds:
affirmation, denial, "just", "only"; how much new content it brings; how much of the question it repeats) and of the
question. It is trained on ClariQ train, where each row pairs a hidden facet with an answer a person wrote to one
question: a candidate's relevance is the reciprocal rank of the row's facet among all train facets by the packaged
MiniLM's cosine (:mod:`clarion.dialogue.training`). Scoring needs no encoder, so a turn costs microseconds; the
vocabularies (request frame words, question frame words, answer filler words, frequent answer words) are learned
from the requests, the bank and the answers, never written by hand. A candidate leaving out the query so far is
chosen only when the answer has content words of its own (:meth:`Rewriter.keeps_topic`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from clarion.classifier import booster_predict

TOKEN = re.compile(r"[a-z0-9]+(?:'[a-z]+)?")

CANDIDATES = {
    "P+A": ("P", "A"),
    "P+Q+A": ("P", "Q", "A"),
    "P+Qc+Ac": ("P", "Qc", "Ac"),
    "P+Ac": ("P", "Ac"),
    "P": ("P",),
    "P+Qc": ("P", "Qc"),
    "P+Q": ("P", "Q"),
    "A": ("A",),
    "P+A+A": ("P", "A", "A"),
    "P+Ac+Ac": ("P", "Ac", "Ac"),
    "Qc+A": ("Qc", "A"),
    "P+A+Ac": ("P", "A", "Ac"),
    "Pc+A": ("Pc", "A"),
    "Pc+A+A": ("Pc", "A", "A"),
    "Pc+Ac": ("Pc", "Ac"),
    "Pc+Ac+Ac": ("Pc", "Ac", "Ac"),
    "Pc+Q+A": ("Pc", "Q", "A"),
    "Pc+Qc+Ac": ("Pc", "Qc", "Ac"),
    "Pc+A+Ac": ("Pc", "A", "Ac"),
}
"""Candidate rewrites by name: the parts joined, in order (``Pc``/``Qc``/``Ac``: the query's, question's and
answer's content words: the query without the words most requests are phrased with, "tell me about", "I'm looking
for information on", learned from the requests)."""

PARTS = {
    "P": "request",
    "Pc": "request_content",
    "Q": "question",
    "Qc": "question_content",
    "A": "answer",
    "Ac": "answer_content",
}
"""The parts candidates are made of, by their name in the feature columns (``c_<name>``: how often a candidate
holds the part)."""

TOPIC_PARTS = ("P", "Pc")
"""The parts that carry the query so far (the topic)."""

AFFIRMING = frozenset({"P+Q+A", "P+Qc+Ac", "P+Qc", "P+Q", "Pc+Q+A", "Pc+Qc+Ac"})
"""Candidates keeping the question's content: choosing one reads the answer as accepting the question."""


def tokens(text: str) -> list[str]:
    return TOKEN.findall(text.lower().replace("’", "'"))


@dataclass
class Vocabulary:
    """The word lists the features use, learned from the bank and the training answers."""

    frame: list[str] = field(default_factory=list)
    """Words in many bank questions ("would", "like", "know", "interested"): a question's frame, not content."""
    filler: list[str] = field(default_factory=list)
    """Words in many answers ("yes", "no", "want", "just"): an answer's frame."""
    first: list[str] = field(default_factory=list)
    """The most frequent first words of answers."""
    common: list[str] = field(default_factory=list)
    """The most frequent answer words (each a presence feature)."""
    question_first: list[str] = field(default_factory=list)
    """The most frequent first words of questions (yes/no questions against wh-questions)."""
    request_frame: list[str] = field(default_factory=list)
    """Words in many requests ("tell", "me", "about", "information", "looking"): a request's frame, not its topic."""

    @classmethod
    def learn(
        cls, questions: Sequence[str], answers: Sequence[str], share: float = 0.03, requests: Sequence[str] = ()
    ) -> Vocabulary:
        def frequent(texts, limit=None, cut=share):
            df: dict[str, int] = {}
            for text in texts:
                for word in set(tokens(text)):
                    df[word] = df.get(word, 0) + 1
            ranked = sorted(df, key=lambda w: (-df[w], w))
            kept = [w for w in ranked if df[w] >= cut * max(len(texts), 1)]
            return kept[:limit] if limit else kept

        firsts = [t[0] for t in map(tokens, answers) if t]
        qfirsts = [t[0] for t in map(tokens, questions) if t]
        return cls(
            frame=frequent(questions),
            filler=frequent(answers),
            first=frequent(firsts, 25, 0.0),
            common=frequent(answers, 40, 0.0),
            question_first=frequent(qfirsts, 12, 0.0),
            request_frame=frequent(requests),
        )


def _content(words: list[str], frame: set[str]) -> list[str]:
    return [w for w in words if w not in frame]


class Features:
    """The feature rows of the candidates for one (query so far, question, answer)."""

    def __init__(self, vocabulary: Vocabulary):
        self.v = vocabulary
        self._frame, self._filler = set(vocabulary.frame), set(vocabulary.filler)
        self._request_frame = set(vocabulary.request_frame)
        self.names = (
            ["candidate", *(f"c_{name}" for name in PARTS.values()), "c_added"]
            + [f"first={w}" for w in vocabulary.first]
            + ["first=other"]
            + [f"has={w}" for w in vocabulary.common]
            + [f"qfirst={w}" for w in vocabulary.question_first]
            + ["a_len", "a_content", "a_new", "q_len", "q_content", "q_new", "q_in_a", "a_in_q", "turn"]
        )

    def parts(self, query: str, question: str, answer: str) -> dict[str, str]:
        q, a = tokens(question), tokens(answer)
        return {
            "P": query.strip(),
            "Pc": " ".join(_content(tokens(query), self._request_frame)),
            "Q": " ".join(q),
            "A": " ".join(a),
            "Qc": " ".join(_content(q, self._frame)),
            "Ac": " ".join(_content(a, self._filler)),
        }

    def candidates(self, query: str, question: str, answer: str) -> dict[str, str]:
        parts = self.parts(query, question, answer)
        return {name: " ".join(p for p in (parts[k] for k in keys) if p) for name, keys in CANDIDATES.items()}

    def row(self, query: str, question: str, answer: str, turn: int = 1) -> list[float]:
        """The answer's and question's features (without the candidate column)."""
        p, q, a = set(tokens(query)), tokens(question), tokens(answer)
        qc, ac = _content(q, self._frame), _content(a, self._filler)
        first = a[0] if a else ""
        out = [float(first == w) for w in self.v.first] + [float(first not in self.v.first)]
        present = set(a)
        out += [float(w in present) for w in self.v.common]
        out += [float(bool(q) and q[0] == w) for w in self.v.question_first]
        new_a = [w for w in ac if w not in p and w not in set(q)]
        new_q = [w for w in qc if w not in p]
        q_in_a = len(set(qc) & present) / max(len(set(qc)), 1)
        a_in_q = len(set(ac) & set(q)) / max(len(set(ac)), 1)
        out += [len(a), len(ac), len(new_a), len(q), len(qc), len(new_q), q_in_a, a_in_q, float(turn)]
        return out

    def matrix(self, query: str, question: str, answer: str, turn: int = 1) -> np.ndarray:
        """One row per candidate: what it is made of and how many words it adds, then :meth:`row`."""
        base = self.row(query, question, answer, turn)
        texts = self.candidates(query, question, answer)
        before = len(tokens(query))
        rows = []
        for i, (name, keys) in enumerate(CANDIDATES.items()):
            made_of = [float(keys.count(k)) for k in PARTS]
            rows.append([float(i), *made_of, float(len(tokens(texts[name])) - before), *base])
        return np.array(rows, dtype=np.float64)


class Rewriter:
    """Chooses the query after each answer (see the module docstring)."""

    def __init__(self, vocabulary: Vocabulary, booster, meta: dict | None = None):
        self.vocabulary = vocabulary
        self.features = Features(vocabulary)
        self.booster = booster
        self.meta = meta or {}

    def scores(self, query: str, question: str, answer: str, turn: int = 1) -> dict[str, float]:
        predicted = booster_predict(self.booster, self.features.matrix(query, question, answer, turn))
        return {name: float(s) for name, s in zip(CANDIDATES, predicted, strict=True)}

    def rewrite(self, query: str, question: str, answer: str, turn: int = 1) -> tuple[str, str, dict[str, float]]:
        """(the new query, the chosen candidate's name, every candidate's score): the best-scored candidate that
        keeps the topic (:meth:`keeps_topic`)."""
        scores = self.scores(query, question, answer, turn)
        parts = self.features.parts(query, question, answer)
        texts = self.features.candidates(query, question, answer)
        kept = [name for name in CANDIDATES if self.keeps_topic(parts, name)]
        best = max(kept, key=lambda name: (scores[name], -list(CANDIDATES).index(name)))
        return texts[best] or query, best, scores

    @staticmethod
    def keeps_topic(parts: dict[str, str], name: str) -> bool:
        """Whether candidate ``name`` may be chosen: one leaving out the query so far ("A", "Qc+A"), or keeping only
        its content words when it has none, only when the answer has content words of its own (``Ac``), so a bare
        "no" or "I don't know" never deletes the topic."""
        keys = CANDIDATES[name]
        return "P" in keys or ("Pc" in keys and bool(parts["Pc"])) or bool(parts["Ac"])


def baseline_query(request: str, answers: Sequence[str]) -> str:
    """The organisers' multi-turn baseline: the request followed by every answer."""
    return " ".join([request.strip(), *(a.strip() for a in answers if a.strip())])

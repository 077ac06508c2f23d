"""P(unclear) for any request: whether it needs a clarifying question, learnt from several sources of requests.

The ClariQ need model (:mod:`clarion.clariq.need`) reads a request against ClariQ's question bank, so off ClariQ it
gives every request about the same probability. :class:`UnclearModel` reads only what any request carries:

- ``form``: length and form (:mod:`clarion.detect.form`);
- ``lexicon``: WordNet senses of the topic phrase (:mod:`clarion.detect.lexicon`);
- ``embedding``: the packaged MiniLM's embedding of the request;
- ``words``: TF-IDF of its word uni- and bigrams.

It is a logistic regression over the standardised hand-made features, the scaled embedding and the TF-IDF, trained on
requests labelled ask / don't ask from several sources (ClariQ's need labels: 1 is clear; AmbigNQ: a question with
several readings is unclear; clarion's everyday requests). A source of n requests weighs n ** 0.5 in total
(``source_balance``), so that AmbigNQ's 9,058 questions do not decide alone what "unclear" means, and within a source
the two classes are brought most of the way to the same weight (``class_balance``). Settings are chosen by
leave-one-source-out cross-validation (``benchmarks/need_sources.py``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from clarion.bounds import SEED, Bound, check_fields
from clarion.detect import form, lexicon
from clarion.errors import InputError

EMBEDDING_DIM = 384
HAND_GROUPS: dict[str, tuple[str, ...]] = {
    "form": form.FORM_FEATURES,
    "lexicon": lexicon.LEXICON_FEATURES,
}
"""The hand-made feature groups by name, with their columns, in canonical order."""
GROUPS = (*HAND_GROUPS, "embedding", "words")
"""Every group: the hand-made ones, the MiniLM embedding and ``words`` (TF-IDF of word uni- and bigrams)."""
DEFAULT_GROUPS = GROUPS
"""All of them: each one left out lowers the leave-one-source-out AUC or the within-source AUC on AmbigNQ
(``benchmarks/need_sources.py --ablate``; docs/clarify.md)."""

_BOUNDS = {
    "C": Bound("float", 0, open_low=True),
    "embedding_weight": Bound("float", 0),
    "source_balance": Bound("float", 0, 1),
    "class_balance": Bound("float", 0, 1),
    "seed": SEED,
}


def check_groups(groups: Sequence[str]) -> tuple[str, ...]:
    unknown = [g for g in groups if g not in GROUPS]
    if unknown or not groups:
        raise InputError(f"unclear-model groups must be some of {', '.join(GROUPS)}, got {list(groups)}")
    return tuple(g for g in GROUPS if g in groups)


@dataclass(frozen=True)
class UnclearConfig:
    """What defines an unclear model besides its training data."""

    groups: tuple[str, ...] = DEFAULT_GROUPS
    C: float = 0.3
    embedding_weight: float = 3.0
    """The L2-normalised embedding's scale against the standardised hand-made features."""
    source_balance: float = 0.5
    """How far each source is brought to the same total weight: 1 every source weighs the same, 0 every request
    does (a source weighs its size), in between a source of n requests weighs n ** (1 - source_balance)."""
    class_balance: float = 0.75
    """How far, within each source, asks and don't-asks are brought to the same weight (1: the same, each source's
    base rate taken out, so that P >= 0.5 is the same balanced decision whatever share of a source's requests need a
    question; 0: as they come)."""
    seed: int = 0

    def __post_init__(self) -> None:
        object.__setattr__(self, "groups", check_groups(tuple(self.groups)))
        check_fields(self, _BOUNDS)

    @property
    def hand(self) -> tuple[str, ...]:
        return tuple(g for g in self.groups if g in HAND_GROUPS)


def hand_features(requests: Sequence[str], groups: Sequence[str] = tuple(HAND_GROUPS)) -> np.ndarray:
    """The columns of the hand-made ``groups`` (:data:`HAND_GROUPS`, in their order) for each request."""
    groups = [g for g in HAND_GROUPS if g in groups]
    rows = []
    for request in requests:
        parts = {"form": form.form_features(request), "lexicon": lexicon.lexicon_features(request)}
        rows.append(np.concatenate([parts[g] for g in groups] or [np.zeros(0)]))
    return np.vstack(rows) if rows else np.zeros((0, sum(len(HAND_GROUPS[g]) for g in groups)))


def source_weights(sources: Sequence[str], balance: float = 1.0) -> np.ndarray:
    """Per-row weights (mean 1) under which a source of n rows weighs n ** (1 - balance) in total: with ``balance``
    1 every source weighs the same, with 0 every row does."""
    names, counts = np.unique(np.asarray(sources), return_counts=True)
    per = dict(zip(names, counts ** (-float(balance)), strict=True))
    weights = np.asarray([per[s] for s in sources], dtype=np.float64)
    return weights * len(weights) / weights.sum()


@dataclass
class Inputs:
    """What the model reads of some requests: the texts, their hand-made features (all of :data:`HAND_GROUPS`) and
    their embeddings; computed once and shared by every configuration a benchmark tries."""

    requests: list[str]
    hand: np.ndarray
    embeddings: np.ndarray

    @classmethod
    def of(cls, requests: Sequence[str], embeddings: np.ndarray | None = None) -> Inputs:
        if embeddings is None:
            from clarion.retrieve.dense import encode_queries

            embeddings = encode_queries(list(requests))
        return cls(list(requests), hand_features(requests), np.asarray(embeddings, dtype=np.float64))

    def take(self, rows: Sequence[int] | np.ndarray) -> Inputs:
        rows = np.asarray(rows, dtype=int)
        return Inputs([self.requests[i] for i in rows], self.hand[rows], self.embeddings[rows])

    @staticmethod
    def join(parts: Sequence[Inputs]) -> Inputs:
        return Inputs(
            [r for p in parts for r in p.requests],
            np.vstack([p.hand for p in parts]),
            np.vstack([p.embeddings for p in parts]),
        )


def _hand_columns(groups: Sequence[str]) -> np.ndarray:
    """The columns of :func:`hand_features`' full matrix that ``groups`` use."""
    at, keep = 0, []
    for group, names in HAND_GROUPS.items():
        if group in groups:
            keep.extend(range(at, at + len(names)))
        at += len(names)
    return np.asarray(keep, dtype=int)


def class_balanced(weights: np.ndarray, sources: Sequence[str], y: Sequence[int], balance: float = 1.0) -> np.ndarray:
    """``weights`` moved within each source towards its classes weighing the same: a class holding a share ``s`` of
    its source's weight is multiplied by ``(1 / (k s)) ** balance`` (``k`` classes; 1: each class weighs 1/k of the
    source), then each source is brought back to its total; the mean stays 1."""
    sources, y, out = np.asarray(sources), np.asarray(y), np.asarray(weights, dtype=np.float64).copy()
    for source in np.unique(sources):
        rows = sources == source
        total = out[rows].sum()
        classes = [rows & (y == c) for c in np.unique(y[rows])]
        for members in classes:
            out[members] *= (total / len(classes) / out[members].sum()) ** balance
        out[rows] *= total / out[rows].sum()
    return out * len(out) / out.sum()


@dataclass
class UnclearModel:
    """A fitted P(unclear) model: a logistic regression over the standardised hand-made features, the scaled
    embedding and the words' TF-IDF."""

    config: UnclearConfig
    mean: np.ndarray
    scale: np.ndarray
    coef: np.ndarray
    intercept: float
    vectorizer: object | None = None
    metrics: dict = field(default_factory=dict)

    def _design(self, inputs: Inputs):
        import scipy.sparse as sparse

        parts = [sparse.csr_matrix((inputs.hand[:, _hand_columns(self.config.hand)] - self.mean) / self.scale)]
        if "embedding" in self.config.groups:
            parts.append(sparse.csr_matrix(self.config.embedding_weight * inputs.embeddings))
        if self.vectorizer is not None:
            parts.append(self.vectorizer.transform(inputs.requests))
        return sparse.hstack(parts).tocsr()

    @classmethod
    def fit(
        cls, inputs: Inputs, y: Sequence[int], sources: Sequence[str], config: UnclearConfig = UnclearConfig()
    ) -> UnclearModel:
        """Fit on ``inputs`` with labels (1 = unclear) and each row's source."""
        from sklearn.feature_extraction.text import TfidfVectorizer
        from sklearn.linear_model import LogisticRegression

        hand = inputs.hand[:, _hand_columns(config.hand)]
        mean, scale = hand.mean(axis=0), hand.std(axis=0)
        scale[scale == 0] = 1.0
        vectorizer = None
        if "words" in config.groups:
            vectorizer = TfidfVectorizer(ngram_range=(1, 2), min_df=2, sublinear_tf=True).fit(inputs.requests)
        model = cls(config, mean, scale, np.zeros(0), 0.0, vectorizer)
        weights = source_weights(sources, config.source_balance)
        if config.class_balance:
            weights = class_balanced(weights, sources, y, config.class_balance)
        fitted = LogisticRegression(C=config.C, max_iter=3000, random_state=config.seed)
        fitted.fit(model._design(inputs), np.asarray(y, dtype=int), sample_weight=weights)
        model.coef, model.intercept = fitted.coef_[0].astype(np.float64), float(fitted.intercept_[0])
        return model

    def probability(self, inputs: Inputs) -> np.ndarray:
        """P(unclear) of each request of ``inputs``."""
        z = self._design(inputs) @ self.coef + self.intercept
        return 1.0 / (1.0 + np.exp(-np.asarray(z).ravel()))

    def predict(self, requests: Sequence[str], embeddings: np.ndarray | None = None) -> np.ndarray:
        """P(unclear) of each request."""
        return self.probability(Inputs.of(requests, embeddings))

    def arrays(self) -> dict[str, np.ndarray]:
        """The fitted arrays (the words' vectorizer is saved by its owner: :func:`clarion.classifier.tfidf_state`)."""
        return {"mean": self.mean, "scale": self.scale, "coef": self.coef, "intercept": np.asarray([self.intercept])}

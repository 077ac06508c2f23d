"""Reply-ranking methods, looked up by name in :data:`METHODS`.

Each method scores every reply of a context (higher = better) from a :class:`~.embed.Candidates` batch:

- ``random``: a seeded hash of context and reply (the floor);
- ``cosine``: zero-shot MiniLM cosine between the reply and the context (mean of its utterances' embeddings);
- ``matching``: a one-layer MLP from reply and context embeddings to the graded, confidence-weighted target;
- ``lambdamart``: LightGBM lambdarank over :mod:`.features` plus the out-of-fold ``matching`` score;
- ``quality`` and ``quality-trees``: a linear pairwise model and LightGBM lambdarank over the reply-quality
  features of :mod:`.quality`, and ``quality-ensemble`` (the default: the best mean over left-out sources,
  :mod:`.sources`), the two fused (:mod:`.quality_rank`);
- ``bilstm``: the Yandex 2018 winner's BiLSTM-distance model (:mod:`.bilstm`).
"""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

import numpy as np

from clarion.data.io import read_json, write_json
from clarion.errors import DataError, ModelError
from clarion.replies.embed import Candidates, Embedded


def targets(groups: Sequence[Candidates], weighted: bool) -> tuple[np.ndarray, np.ndarray]:
    """(relevance 0/1/2 per reply, weight per reply: the confidence when ``weighted``, else 1)."""
    rel = np.array([r for g in groups for r in g.relevance or ()], dtype=np.float64)
    conf = np.array([c for g in groups for c in g.confidence or ()], dtype=np.float64)
    return rel, conf if weighted else np.ones_like(rel)


def source_balance(groups: Sequence[Candidates]) -> np.ndarray:
    """A weight per reply under which every source (``Candidates.source``) weighs the same in all, shared equally
    by its contexts (a context's replies share its weight); the weights average 1 over the replies. One source
    (or none named): every context weighs the same."""
    contexts = Counter(g.source for g in groups)
    per_context = np.array([1.0 / (len(contexts) * contexts[g.source] * len(g.replies)) for g in groups])
    per_reply = np.repeat(per_context, [len(g.replies) for g in groups])
    return per_reply * len(per_reply)


def split_scores(groups: Sequence[Candidates], flat: np.ndarray) -> list[np.ndarray]:
    """A flat score vector cut back into one array per context."""
    bounds = np.cumsum([0, *(len(g.replies) for g in groups)])
    return [flat[a:b] for a, b in zip(bounds[:-1], bounds[1:], strict=True)]


@dataclass
class Method:
    """Base of the methods: ``fit`` (a no-op for zero-shot ones), ``scores``, ``save`` / ``load``."""

    name: ClassVar[str] = ""
    uses_embeddings: ClassVar[bool] = True
    trained: ClassVar[bool] = False
    weighted: bool = True
    """Weigh the training replies by their confidence (the ablation turns it off)."""

    def fit(self, groups: Sequence[Candidates], embedded: Embedded | None, progress=None) -> Method:
        return self

    def scores(self, groups: Sequence[Candidates], embedded: Embedded | None) -> np.ndarray:
        raise NotImplementedError

    def save(self, directory: Path) -> None:
        write_json(directory / "method.json", {"name": self.name, "weighted": self.weighted})

    @classmethod
    def load(cls, directory: Path) -> Method:
        return cls(weighted=bool(_method_json(directory).get("weighted", True)))


def _method_json(directory: Path) -> dict[str, Any]:
    try:
        data = read_json(directory / "method.json")
    except DataError as err:
        raise ModelError(f"{err}; retrain the model") from None
    if not isinstance(data, dict):
        raise ModelError(f"{directory}: method.json is not an object; retrain the model")
    return data


@dataclass
class RandomOrder(Method):
    name: ClassVar[str] = "random"
    uses_embeddings: ClassVar[bool] = False
    seed: int = 13

    def scores(self, groups, embedded):
        out = []
        for g in groups:
            key = "\x00".join(g.context)
            for reply in g.replies:
                digest = hashlib.sha256(f"{self.seed}\x00{key}\x00{reply}".encode()).digest()
                out.append(int.from_bytes(digest[:8], "big") / 2**64)
        return np.array(out)


@dataclass
class Cosine(Method):
    name: ClassVar[str] = "cosine"

    def scores(self, groups, embedded):
        from clarion.replies.features import feature_matrix

        return feature_matrix(groups, embedded, ["cos_whole"])[:, 0]


@dataclass
class Matching(Method):
    """A small MLP (one ReLU layer) from a reply's and its context's embeddings (their products, the reply's
    distance to the last utterance, the reply itself) to the graded target, weighted by confidence."""

    name: ClassVar[str] = "matching"
    trained: ClassVar[bool] = True
    hidden: int = 128
    seed: int = 13
    layers: list[np.ndarray] = field(default_factory=list, repr=False)

    def fit(self, groups, embedded, progress=None):
        from sklearn.neural_network import MLPRegressor

        from clarion.replies.features import pair_vectors

        y, w = targets(groups, self.weighted)
        mlp = MLPRegressor(
            hidden_layer_sizes=(self.hidden,), alpha=1e-3, early_stopping=True, random_state=self.seed, max_iter=200
        )
        mlp.fit(pair_vectors(groups, embedded), y, sample_weight=w)
        self.layers = [mlp.coefs_[0], mlp.intercepts_[0], mlp.coefs_[1][:, 0], mlp.intercepts_[1]]
        return self

    def scores(self, groups, embedded):
        from clarion.replies.features import pair_vectors

        if not self.layers:
            raise ModelError("the matching model is not trained")
        w0, b0, w1, b1 = self.layers
        return np.maximum(pair_vectors(groups, embedded) @ w0 + b0, 0.0) @ w1 + b1

    def save(self, directory):
        super().save(directory)
        np.savez(directory / "matching.npz", *self.layers)

    @classmethod
    def load(cls, directory):
        method = super().load(directory)
        try:
            with np.load(directory / "matching.npz", allow_pickle=False) as arrays:
                method.layers = [arrays[f"arr_{i}"] for i in range(4)]
        except (OSError, ValueError, KeyError) as err:
            raise ModelError(f"{directory / 'matching.npz'}: cannot read ({err}); retrain the model") from None
        return method


def _lambdamart():
    from clarion.replies.lambdamart import LambdaMartMethod

    return LambdaMartMethod


def _quality():
    from clarion.replies.quality_rank import QualityMethod

    return QualityMethod


def _quality_trees():
    from clarion.replies.quality_rank import QualityTrees

    return QualityTrees


def _quality_ensemble():
    from clarion.replies.quality_rank import QualityEnsemble

    return QualityEnsemble


def _bilstm():
    from clarion.replies.bilstm import BiLstmMethod

    return BiLstmMethod


METHODS: dict[str, Any] = {
    "random": lambda: RandomOrder,
    "cosine": lambda: Cosine,
    "matching": lambda: Matching,
    "lambdamart": _lambdamart,
    "quality": _quality,
    "quality-trees": _quality_trees,
    "quality-ensemble": _quality_ensemble,
    "bilstm": _bilstm,
}
"""Method name -> a function returning its class (heavy modules load only when chosen)."""
DEFAULT_METHOD = "quality-ensemble"


def method_class(name: str) -> type[Method]:
    if name not in METHODS:
        raise ModelError(f"unknown reply-ranking method {name!r}; choose from: {', '.join(METHODS)}")
    return METHODS[name]()


def load_method(directory: Path) -> Method:
    """The method saved in ``directory`` (its ``method.json`` names it)."""
    name = _method_json(directory).get("name")
    if name not in METHODS:
        raise ModelError(f"{directory}: method.json names an unknown method {name!r}; retrain the model")
    return method_class(name).load(directory)

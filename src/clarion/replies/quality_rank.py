"""Reply rankers over the :mod:`.quality` features: ``quality`` (a linear pairwise model), ``quality-trees``
(LightGBM lambdarank) and ``quality-ensemble`` (the default: the two fused).

``quality`` is RankNet with a linear scorer: a logistic regression on the differences of the standardised
features of two replies of one context, one pair per better / worse reply, strongly regularised (``C``); the score
of a reply is its standardised features times the weights. A pair weighs the mean of its two replies' weights:
the annotators' confidence (``weighted``) times, with ``balanced``, :func:`~.methods.source_balance` (every source
of the training contexts weighs the same). ``quality-trees`` fits the task's gains (0 / 1 / 2) with the same
per-reply weights. ``quality-ensemble`` trains both on the same features and weights and adds their scores, each
divided by its spread over the training replies (CombSUM of scores standardised once, on the training set, not per
context: a context of two replies would leave a per-context z-score nothing but +-1).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar

import numpy as np

from clarion.data.io import read_json, write_json
from clarion.errors import DataError, ModelError
from clarion.replies.methods import Method, source_balance, targets
from clarion.replies.quality import DEFAULT_FEATURES, QUALITY_FEATURES, Vocabulary, quality_matrix


def training_weights(groups, weighted: bool, balanced: bool) -> tuple[np.ndarray, np.ndarray]:
    """(relevance per reply, weight per reply: confidence when ``weighted``, times the source balance when
    ``balanced``)."""
    relevance, weight = targets(groups, weighted)
    return relevance, weight * source_balance(groups) if balanced else weight


def pairs(x: np.ndarray, relevance: np.ndarray, weight: np.ndarray, sizes) -> tuple[np.ndarray, np.ndarray]:
    """(feature differences of every better-minus-worse pair of one context and its mirror, their weights)."""
    diffs, weights, at = [], [], 0
    for n in sizes:
        rel = relevance[at : at + n]
        better, worse = np.nonzero(rel[:, None] > rel[None, :])
        diffs.append(x[at + better] - x[at + worse])
        weights.append((weight[at + better] + weight[at + worse]) / 2)
        at += n
    d, w = np.vstack(diffs), np.concatenate(weights)
    return np.vstack([d, -d]), np.concatenate([w, w])


@dataclass
class QualityMethod(Method):
    name: ClassVar[str] = "quality"
    trained: ClassVar[bool] = True
    balanced: bool = False
    """Weigh every source of the training contexts the same (:func:`~.methods.source_balance`)."""
    c: float = 0.01
    features: tuple[str, ...] = DEFAULT_FEATURES
    """The :data:`~.quality.QUALITY_FEATURES` read (:data:`~.quality.DEFAULT_FEATURES` by default)."""
    vocabulary: Vocabulary = field(default_factory=Vocabulary, repr=False)
    centre: list[float] = field(default_factory=list, repr=False)
    scale: list[float] = field(default_factory=list, repr=False)
    coef: list[float] = field(default_factory=list, repr=False)

    def _standard(self, x: np.ndarray) -> np.ndarray:
        return (x - np.array(self.centre)) / np.array(self.scale)

    def fit(self, groups, embedded, progress=None):
        self.vocabulary = Vocabulary.learn(groups, embedded)
        x = quality_matrix(groups, embedded, self.vocabulary, held_in=True, names=self.features)
        self.centre, self.scale = x.mean(axis=0).tolist(), (x.std(axis=0) + 1e-9).tolist()
        relevance, weight = training_weights(groups, self.weighted, self.balanced)
        self._fit(self._standard(x), relevance, weight, [len(g.replies) for g in groups])
        return self

    def _fit(self, x, relevance, weight, sizes) -> None:
        from sklearn.linear_model import LogisticRegression

        d, w = pairs(x, relevance, weight, sizes)
        y = np.repeat([1, 0], len(d) // 2)
        model = LogisticRegression(C=self.c, fit_intercept=False, max_iter=1000).fit(d, y, sample_weight=w)
        self.coef = model.coef_[0].tolist()

    def scores(self, groups, embedded):
        if not self.coef:
            raise ModelError(f"the {self.name} reply ranker is not trained")
        x = quality_matrix(groups, embedded, self.vocabulary, names=self.features)
        return self._predict(self._standard(x))

    def _predict(self, x: np.ndarray) -> np.ndarray:
        return x @ np.array(self.coef)

    def state(self) -> dict[str, Any]:
        return {"features": list(self.features), "centre": self.centre, "scale": self.scale, "coef": self.coef}

    def _restore(self, state: dict[str, Any]) -> None:
        """What a subclass adds to :meth:`state`, read back (a bad value raises ``ValueError`` or ``KeyError``)."""

    def save(self, directory):
        v = self.vocabulary
        write_json(directory / "method.json", {"name": self.name, "weighted": self.weighted, "balanced": self.balanced})
        write_json(
            directory / "quality.json",
            {**self.state(), "replies": v.replies, "df": v.document_frequency, "contexts_with": v.contexts_with},
        )
        write_json(directory / "pool.json", v.pool_keys)
        np.save(directory / "pool.npy", v.pool)

    @classmethod
    def load(cls, directory):
        method = super().load(directory)
        try:
            method.balanced = bool(read_json(directory / "method.json").get("balanced", False))
            state = read_json(directory / "quality.json")
            unknown = set(state["features"]) - set(QUALITY_FEATURES)
            if unknown:
                raise ValueError(f"features this version does not have: {', '.join(sorted(unknown))}")
            method.features = tuple(state["features"])
            method.centre, method.scale, method.coef = state["centre"], state["scale"], state.get("coef", [])
            method._restore(state)
            pool = np.load(directory / "pool.npy", allow_pickle=False)
            method.vocabulary = Vocabulary(
                state["replies"], state["df"], state["contexts_with"], read_json(directory / "pool.json"), pool
            )
        except (DataError, OSError, KeyError, TypeError, ValueError) as err:
            raise ModelError(f"{directory}: cannot read the {cls.name} model ({err}); retrain the model") from None
        return method


TREE_PARAMS: dict[str, Any] = {
    "objective": "lambdarank",
    "label_gain": [0, 1, 2],
    "learning_rate": 0.05,
    "num_leaves": 7,
    "min_data_in_leaf": 50,
    "feature_fraction": 0.8,
    "lambdarank_truncation_level": 6,
    "num_threads": 1,
}


@dataclass
class QualityTrees(QualityMethod):
    name: ClassVar[str] = "quality-trees"
    rounds: int = 150
    booster: Any = field(default=None, repr=False)

    def _fit(self, x, relevance, weight, sizes) -> None:
        from clarion.rerank.lambdamart import LambdaMART

        model = LambdaMART(rounds=self.rounds, params=TREE_PARAMS)
        self.booster = model.fit(x, relevance.astype(int), sizes, weights=weight)  # type: ignore[arg-type]
        self.coef = [1.0]  # marks the model as trained; the booster scores

    def _predict(self, x: np.ndarray) -> np.ndarray:
        return self.booster.predict(x)

    def save(self, directory):
        super().save(directory)
        self.booster.save(directory / "trees.txt")

    @classmethod
    def load(cls, directory):
        from clarion.rerank.lambdamart import LambdaMART

        method = super().load(directory)
        method.booster = LambdaMART.load(directory / "trees.txt")
        return method


def spread(scores: np.ndarray, sizes) -> float:
    """The root mean square of ``scores`` centred within each context (``sizes``: replies per context, in order): how
    far a model's scores set a context's replies apart, on average (1 when they never differ)."""
    bounds = np.cumsum([0, *sizes])
    centred = np.concatenate([scores[a:b] - scores[a:b].mean() for a, b in zip(bounds[:-1], bounds[1:], strict=True)])
    value = float(np.sqrt(np.mean(centred**2))) if len(centred) else 0.0
    return value if value > 1e-12 else 1.0


@dataclass
class QualityEnsemble(QualityTrees):
    """``quality`` plus ``quality-trees``, each divided by its :func:`spread` over the training replies (the features
    as the fit saw them, each training reply's own occurrence left out)."""

    name: ClassVar[str] = "quality-ensemble"
    linear: list[float] = field(default_factory=list, repr=False)
    spreads: list[float] = field(default_factory=list, repr=False)

    def _fit(self, x, relevance, weight, sizes) -> None:
        QualityMethod._fit(self, x, relevance, weight, sizes)
        self.linear = self.coef
        QualityTrees._fit(self, x, relevance, weight, sizes)
        self.spreads = [spread(x @ np.array(self.linear), sizes), spread(self.booster.predict(x), sizes)]

    def _predict(self, x: np.ndarray) -> np.ndarray:
        return x @ np.array(self.linear) / self.spreads[0] + self.booster.predict(x) / self.spreads[1]

    def state(self) -> dict[str, Any]:
        return {**super().state(), "linear": self.linear, "spreads": self.spreads}

    def _restore(self, state: dict[str, Any]) -> None:
        self.linear, self.spreads = [float(v) for v in state["linear"]], [float(v) for v in state["spreads"]]
        if len(self.linear) != len(state["features"]) or len(self.spreads) != 2 or min(self.spreads) <= 0:
            raise ValueError("linear weights or spreads of the wrong shape")

"""Classifiers for ordered labels 1..K, with a state of plain arrays so models save without pickle.

- ``logreg``: standardised features, multinomial logistic regression (scikit-learn).
- ``ordinal``: the cumulative binary decomposition of Frank & Hall ("A simple approach to ordinal
  classification", ECML 2001): one logistic regression per threshold P(y > k), differences give P(y = k).
- ``lgbm``: a small LightGBM multiclass model (Ke et al., NeurIPS 2017).
- ``blend``: the mean of ``logreg`` and ``lgbm`` probabilities.
- ``views``: ``logreg`` on the hand-crafted features mixed 2:1 with a strongly regularised ``logreg`` on the
  request embedding (late fusion of two views).

Every classifier returns probabilities over all ``n_classes`` labels (1..K), even when a label is absent
from a (tiny) training set, and rows sum to 1. :func:`decision_weights` tunes per-class multipliers of the
probabilities for the weighted F1 of the official ClariQ scorer, by coordinate ascent on out-of-fold
predictions of the training data.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from clarion.classifier.arrays import array_text, booster_from_text, booster_predict, text_array
from clarion.errors import InputError

N_CLASSES = 4
EPS = 1e-6


def _standardise_fit(X: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    mean = X.mean(axis=0)
    scale = X.std(axis=0)
    return mean, np.where(scale > 1e-12, scale, 1.0)


def _normalise(P: np.ndarray) -> np.ndarray:
    P = np.clip(P, EPS, None)
    return P / P.sum(axis=1, keepdims=True)


class LogReg:
    """Multinomial logistic regression on standardised features."""

    name = "logreg"

    def __init__(self, C: float = 0.3, seed: int = 0):
        self.C, self.seed = C, seed
        self.params = {"C": C, "seed": seed}
        self.state: dict[str, Any] = {}

    def fit(self, X: np.ndarray, y: np.ndarray) -> LogReg:
        from sklearn.linear_model import LogisticRegression

        mean, scale = _standardise_fit(X)
        model = LogisticRegression(C=self.C, max_iter=5000, random_state=self.seed)
        model.fit((X - mean) / scale, y)
        coef = np.zeros((N_CLASSES, X.shape[1]))
        intercept = np.full(N_CLASSES, -30.0)
        if len(model.classes_) == 2:  # scikit-learn's binary case: one row for the second class
            coef[model.classes_[1] - 1], intercept[model.classes_[1] - 1] = model.coef_[0], model.intercept_[0]
            coef[model.classes_[0] - 1], intercept[model.classes_[0] - 1] = 0.0, 0.0
        else:
            coef[model.classes_ - 1], intercept[model.classes_ - 1] = model.coef_, model.intercept_
        self.state = {"mean": mean, "scale": scale, "coef": coef, "intercept": intercept}
        return self

    def predict_proba(self, X: np.ndarray) -> np.ndarray:
        s = self.state
        logits = ((X - s["mean"]) / s["scale"]) @ s["coef"].T + s["intercept"]
        logits -= logits.max(axis=1, keepdims=True)
        return _normalise(np.exp(logits))


class Ordinal:
    """Frank & Hall cumulative logistic regressions: P(y > k) for k = 1..K-1."""

    name = "ordinal"

    def __init__(self, C: float = 0.1, seed: int = 0):
        self.C, self.seed = C, seed
        self.params = {"C": C, "seed": seed}
        self.state: dict[str, Any] = {}

    def fit(self, X: np.ndarray, y: np.ndarray) -> Ordinal:
        from sklearn.linear_model import LogisticRegression

        mean, scale = _standardise_fit(X)
        Z = (X - mean) / scale
        coef = np.zeros((N_CLASSES - 1, X.shape[1]))
        intercept = np.zeros(N_CLASSES - 1)
        for k in range(1, N_CLASSES):
            target = (y > k).astype(int)
            if target.min() == target.max():  # every example on one side of this threshold
                intercept[k - 1] = 30.0 if target[0] else -30.0
                continue
            model = LogisticRegression(C=self.C, max_iter=5000, random_state=self.seed).fit(Z, target)
            coef[k - 1], intercept[k - 1] = model.coef_[0], model.intercept_[0]
        self.state = {"mean": mean, "scale": scale, "coef": coef, "intercept": intercept}
        return self

    def predict_proba(self, X: np.ndarray) -> np.ndarray:
        s = self.state
        above = 1.0 / (1.0 + np.exp(-(((X - s["mean"]) / s["scale"]) @ s["coef"].T + s["intercept"])))
        above = np.minimum.accumulate(above, axis=1)  # P(y > k) must not increase with k
        ones = np.ones((len(X), 1))
        zeros = np.zeros((len(X), 1))
        cumulative = np.hstack([ones, above, zeros])
        return _normalise(cumulative[:, :-1] - cumulative[:, 1:])


class GBM:
    """A small LightGBM multiclass model (shallow trees, strong row/column subsampling)."""

    name = "lgbm"

    def __init__(self, n_estimators: int = 150, seed: int = 0):
        self.n_estimators, self.seed = n_estimators, seed
        self.params = {"n_estimators": n_estimators, "seed": seed}
        self.state: dict[str, Any] = {}
        self._booster = None

    def fit(self, X: np.ndarray, y: np.ndarray) -> GBM:
        import lightgbm as lgb

        params = {
            "objective": "multiclass",
            "num_class": N_CLASSES,
            "learning_rate": 0.03,
            "num_leaves": 7,
            "min_data_in_leaf": min(10, max(1, len(y) // 8)),
            "bagging_fraction": 0.8,
            "bagging_freq": 1,
            "feature_fraction": 0.7,
            "seed": self.seed,
            "deterministic": True,
            "num_threads": 1,
            "verbose": -1,
        }
        booster = lgb.train(params, lgb.Dataset(X, label=y - 1), num_boost_round=self.n_estimators)
        self.state = {"booster": text_array(booster.model_to_string())}
        self._booster = booster
        return self

    def predict_proba(self, X: np.ndarray) -> np.ndarray:
        if self._booster is None:
            text = array_text(self.state["booster"])
            self._booster = booster_from_text(text, "the need model's LightGBM classifier")
        return _normalise(booster_predict(self._booster, X))


class Blend:
    """The mean of the logistic-regression and LightGBM probabilities."""

    name = "blend"

    def __init__(self, C: float = 0.3, seed: int = 0):
        self.params = {"C": C, "seed": seed}
        self.parts = [LogReg(C, seed), GBM(seed=seed)]

    @property
    def state(self) -> dict[str, Any]:
        return {f"{i}.{k}": v for i, p in enumerate(self.parts) for k, v in p.state.items()}

    @state.setter
    def state(self, value: dict[str, Any]) -> None:
        for i, part in enumerate(self.parts):
            part.state = {k.split(".", 1)[1]: v for k, v in value.items() if k.startswith(f"{i}.")}

    def fit(self, X: np.ndarray, y: np.ndarray) -> Blend:
        for part in self.parts:
            part.fit(X, y)
        return self

    def predict_proba(self, X: np.ndarray) -> np.ndarray:
        return _normalise(np.mean([p.predict_proba(X) for p in self.parts], axis=0))


class Views:
    """Two logistic regressions, one per view, probabilities mixed ``1 : tail_weight``: the hand-crafted
    features (all columns but the last ``tail``) and an embedding view (the last ``tail`` columns, e.g. the
    384-d MiniLM request embedding, much more strongly regularised)."""

    name = "views"

    def __init__(self, C: float = 0.1, seed: int = 0, tail: int = 384, tail_C: float = 0.03, tail_weight: float = 0.5):
        self.tail, self.tail_weight = tail, tail_weight
        self.params = {"C": C, "seed": seed, "tail": tail, "tail_C": tail_C, "tail_weight": tail_weight}
        self.parts = [LogReg(C, seed), LogReg(tail_C, seed)]

    state = Blend.state

    def _views(self, X: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        if X.shape[1] <= self.tail:
            raise ValueError(f"the views classifier needs more than {self.tail} columns, got {X.shape[1]}")
        return X[:, : -self.tail], X[:, -self.tail :]

    def fit(self, X: np.ndarray, y: np.ndarray) -> Views:
        for part, view in zip(self.parts, self._views(X), strict=True):
            part.fit(view, y)
        return self

    def predict_proba(self, X: np.ndarray) -> np.ndarray:
        hand, tail = (p.predict_proba(v) for p, v in zip(self.parts, self._views(X), strict=True))
        return _normalise(hand + self.tail_weight * tail)


CLASSIFIERS: dict[str, Callable[..., Any]] = {
    "logreg": LogReg,
    "ordinal": Ordinal,
    "lgbm": GBM,
    "blend": Blend,
    "views": Views,
}


def make_classifier(name: str, **params: Any):
    """A fresh classifier registered as ``name`` (``params``: ``C`` for the linear ones, ``seed``)."""
    if name not in CLASSIFIERS:
        raise InputError(f"unknown classifier {name!r}; choose one of: {', '.join(CLASSIFIERS)}")
    cls = CLASSIFIERS[name]
    if cls is GBM:
        params.pop("C", None)
    return cls(**params)

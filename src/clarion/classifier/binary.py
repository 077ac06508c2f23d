"""Binary classifiers: scikit-learn's logistic regression and a bag of LightGBM boosters."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from clarion.classifier.arrays import array_text, booster_from_text, booster_predict, text_array


class BinaryLogReg:
    """scikit-learn's ``LogisticRegression(**params)`` for labels 0/1; ``state``: its ``coef``, ``intercept`` and
    ``classes`` (the fitted estimator is rebuilt from them, so a loaded one predicts exactly as the fitted one)."""

    name = "binary-logreg"

    def __init__(self, **params: Any):
        self.params = params
        self.state: dict[str, np.ndarray] = {}
        self._model = None

    def fit(self, X, y) -> BinaryLogReg:
        from sklearn.linear_model import LogisticRegression

        model = LogisticRegression(**self.params).fit(X, np.asarray(y, dtype=int))
        self.state = {
            "coef": np.asarray(model.coef_, dtype=np.float64),
            "intercept": np.asarray(model.intercept_, dtype=np.float64),
            "classes": np.asarray(model.classes_, dtype=np.int64),
        }
        self._model = model
        return self

    def _estimator(self):
        if self._model is None:
            from sklearn.linear_model import LogisticRegression

            model = LogisticRegression()
            model.coef_, model.intercept_, model.classes_ = (self.state[k] for k in ("coef", "intercept", "classes"))
            self._model = model
        return self._model

    def predict_proba(self, X) -> np.ndarray:
        return self._estimator().predict_proba(X)


class BoostedTrees:
    """LightGBM binary classifiers (``lightgbm.LGBMClassifier(**params)``), P(1) averaged over a bag of boosters
    (:meth:`bagged`); ``state``: each booster's text, ``trees.<i>``."""

    name = "boosted-trees"

    def __init__(self, **params: Any):
        self.params = params
        self._boosters: list | None = None
        self._texts: dict[str, np.ndarray] = {}

    @property
    def state(self) -> dict[str, np.ndarray]:
        if not self._texts and self._boosters:
            self._texts = {f"trees.{i}": text_array(b.model_to_string()) for i, b in enumerate(self._boosters)}
        return self._texts

    @state.setter
    def state(self, value: dict[str, np.ndarray]) -> None:
        self._texts, self._boosters = dict(value), None

    def fit(self, X, y) -> BoostedTrees:
        import lightgbm

        self._boosters, self._texts = [lightgbm.LGBMClassifier(**self.params).fit(X, y).booster_], {}
        return self

    def boosters(self) -> list:
        """The LightGBM boosters (read from :attr:`state` on first use)."""
        if self._boosters is None:
            keys = sorted(self._texts, key=lambda k: int(k.rsplit(".", 1)[1]))
            self._boosters = [booster_from_text(array_text(self._texts[k]), f"LightGBM trees {k}") for k in keys]
        return self._boosters

    @classmethod
    def bagged(cls, members: Sequence[BoostedTrees]) -> BoostedTrees:
        """One classifier predicting with the average of ``members``' boosters (fitted on different folds)."""
        bag = cls(**(members[0].params if members else {}))
        bag._boosters = [booster for member in members for booster in member.boosters()]
        return bag

    def positive(self, X) -> np.ndarray:
        """P(1) per row: the boosters' mean."""
        return np.mean([np.asarray(booster_predict(b, X)) for b in self.boosters()], axis=0)

    def predict_proba(self, X) -> np.ndarray:
        p = self.positive(X)
        return np.column_stack([1.0 - p, p])


BINARY: dict[str, type] = {BinaryLogReg.name: BinaryLogReg, BoostedTrees.name: BoostedTrees}

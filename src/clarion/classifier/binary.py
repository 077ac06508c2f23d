"""Binary classifiers: scikit-learn's logistic regression, an RBF support vector machine and a bag of LightGBM
boosters."""

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


class KernelSvm:
    """A support vector machine with the RBF kernel (scikit-learn's ``SVC(kernel="rbf", **params)``, gamma
    ``"scale"``) for labels 0/1, its decision values mapped to probabilities by Platt's sigmoid fitted on 5-fold
    out-of-fold decision values (``CalibratedClassifierCV(..., method="sigmoid", ensemble=False)``; fewer folds when a
    label has fewer than 5 examples). ``state``: the support vectors (CSR parts ``sv_data``, ``sv_indices``,
    ``sv_indptr``, ``sv_shape``), ``dual_coef``, ``intercept``, ``gamma`` and the sigmoid's ``platt`` (a, b);
    prediction computes the kernel from them, so a loaded one predicts as the fitted one."""

    name = "rbf-svm"

    def __init__(self, **params: Any):
        self.params = params
        self.state = {}

    @property
    def state(self) -> dict[str, np.ndarray]:
        return self._state

    @state.setter
    def state(self, value: dict[str, np.ndarray]) -> None:
        self._state, self._vectors = dict(value), None

    def _support(self):
        """The support vectors (CSR, transposed) and their squared norms, built from :attr:`state` once."""
        if self._vectors is None:
            from scipy.sparse import csr_matrix

            s = self._state
            sv = csr_matrix((s["sv_data"], s["sv_indices"], s["sv_indptr"]), shape=tuple(s["sv_shape"]))
            self._vectors = (sv.T.tocsr(), np.asarray(sv.multiply(sv).sum(axis=1)).ravel())
        return self._vectors

    def fit(self, X, y) -> KernelSvm:
        from scipy.sparse import csr_matrix, issparse
        from sklearn.calibration import CalibratedClassifierCV
        from sklearn.svm import SVC

        y = np.asarray(y, dtype=int)
        folds = min(5, int(np.bincount(y, minlength=2)[:2].min()))
        if folds < 2:
            raise ValueError("the RBF support vector machine needs two examples of each label or more")
        svc = SVC(kernel="rbf", gamma="scale", **self.params)
        calibrated = CalibratedClassifierCV(svc, method="sigmoid", cv=folds, ensemble=False)
        fitted = calibrated.fit(X, y).calibrated_classifiers_[0]
        model, sigmoid = fitted.estimator, fitted.calibrators[0]
        sv = csr_matrix(model.support_vectors_, dtype=np.float64)
        dual = model.dual_coef_.toarray() if issparse(model.dual_coef_) else np.asarray(model.dual_coef_)
        self.state = {
            "sv_data": sv.data,
            "sv_indices": sv.indices.astype(np.int64),
            "sv_indptr": sv.indptr.astype(np.int64),
            "sv_shape": np.asarray(sv.shape, dtype=np.int64),
            "dual_coef": dual[0].astype(np.float64),
            "intercept": np.asarray(model.intercept_, dtype=np.float64),
            "gamma": np.asarray([model._gamma], dtype=np.float64),
            "platt": np.asarray([sigmoid.a_, sigmoid.b_], dtype=np.float64),
        }
        return self

    def decision(self, X) -> np.ndarray:
        """The SVM's decision value per row (positive: label 1)."""
        from scipy.sparse import csr_matrix

        s, (vectors, norms) = self._state, self._support()
        X = csr_matrix(X, dtype=np.float64)
        squared = (
            np.asarray(X.multiply(X).sum(axis=1)).ravel()[:, None] + norms[None, :] - 2.0 * (X @ vectors).toarray()
        )
        kernel = np.exp(-s["gamma"][0] * np.maximum(squared, 0.0))
        return kernel @ s["dual_coef"] + s["intercept"][0]

    def predict_proba(self, X) -> np.ndarray:
        a, b = self._state["platt"]
        p = 1.0 / (1.0 + np.exp(a * self.decision(X) + b))
        return np.column_stack([1.0 - p, p])


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


BINARY: dict[str, type] = {BinaryLogReg.name: BinaryLogReg, KernelSvm.name: KernelSvm, BoostedTrees.name: BoostedTrees}

"""Repeated stratified cross-validation of a need classifier on a fixed feature matrix.

Every score is the official ClariQ weighted F1 (:func:`clarion.evaluate.clariq_official.clarification_need`)
of one held-out fold. With ``tune_decision`` the per-class decision weights are tuned inside each training
fold on its own inner out-of-fold predictions, so the held-out fold never influences them (nested CV).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from clarion.detect.classify import decide, decision_weights
from clarion.evaluate.clariq_official import clarification_need


@dataclass
class CVResult:
    """Fold scores of repeated stratified K-fold cross-validation."""

    scores: list[float] = field(default_factory=list)
    splits: int = 5
    repeats: int = 5

    @property
    def mean(self) -> float:
        return float(np.mean(self.scores)) if self.scores else 0.0

    @property
    def std(self) -> float:
        return float(np.std(self.scores)) if self.scores else 0.0

    def as_dict(self) -> dict[str, float | int]:
        return {"f1_mean": round(self.mean, 4), "f1_std": round(self.std, 4), "folds": len(self.scores)}


def f1(gold: np.ndarray, pred: np.ndarray) -> float:
    """The official weighted F1 of label arrays."""
    keys = [str(i) for i in range(len(gold))]
    return clarification_need(
        dict(zip(keys, map(int, gold), strict=True)), dict(zip(keys, map(int, pred), strict=True))
    ).means["F1"]


def out_of_fold(make: Callable, X: np.ndarray, y: np.ndarray, splits: int = 5, seed: int = 1) -> np.ndarray:
    """Out-of-fold probabilities ``(n, 4)`` of ``make()`` classifiers over stratified folds."""
    import warnings

    from sklearn.model_selection import StratifiedKFold

    P = np.zeros((len(y), 4))
    folds = StratifiedKFold(max(2, min(splits, len(y) // 2)), shuffle=True, random_state=seed)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # "the least populated class has only n members"
        for train, test in folds.split(X, y):
            P[test] = make().fit(X[train], y[train]).predict_proba(X[test])
    return P


def fit_decide(make: Callable, X: np.ndarray, y: np.ndarray, tune_decision: bool):
    """A classifier fitted on (X, y) and its decision weights (tuned on inner out-of-fold, or ones)."""
    weights = decision_weights(out_of_fold(make, X, y), y) if tune_decision else np.ones(4)
    return make().fit(X, y), weights


def repeated_cv(
    make: Callable,
    X: np.ndarray,
    y: np.ndarray,
    splits: int = 5,
    repeats: int = 5,
    seed: int = 13,
    tune_decision: bool = False,
) -> CVResult:
    """Weighted F1 of ``make()`` over ``repeats`` x ``splits`` stratified folds of (X, y)."""
    from sklearn.model_selection import RepeatedStratifiedKFold

    result = CVResult(splits=splits, repeats=repeats)
    folds = RepeatedStratifiedKFold(n_splits=splits, n_repeats=repeats, random_state=seed)
    for train, test in folds.split(X, y):
        model, weights = fit_decide(make, X[train], y[train], tune_decision)
        result.scores.append(f1(y[test], decide(model.predict_proba(X[test]), weights)))
    return result

"""The default reply ranker: LightGBM lambdarank (:class:`clarion.rerank.lambdamart.LambdaMART`) over the
:mod:`.features` and the out-of-fold score of the ``matching`` model, with the task's linear gains (0 / 1 / 2)
and, by default, each training reply weighted by its annotators' confidence."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar

import numpy as np

from clarion.errors import ModelError
from clarion.replies.features import FEATURES, feature_matrix
from clarion.replies.methods import Matching, Method, targets

PARAMS: dict[str, Any] = {
    "objective": "lambdarank",
    "eval_at": [6],
    "label_gain": [0, 1, 2],
    "learning_rate": 0.05,
    "num_leaves": 15,
    "min_data_in_leaf": 20,
    "lambdarank_truncation_level": 6,
    "num_threads": 1,
}
FOLDS = 5


@dataclass
class LambdaMartMethod(Method):
    name: ClassVar[str] = "lambdamart"
    trained: ClassVar[bool] = True
    rounds: int = 200
    matching: Matching | None = None
    booster: Any = field(default=None, repr=False)

    def _features(self, groups, embedded, matching_scores: np.ndarray) -> np.ndarray:
        return np.column_stack([feature_matrix(groups, embedded), matching_scores])

    def _out_of_fold(self, groups, embedded) -> np.ndarray:
        """The matching score of each training reply from a model fitted without its context's fold."""
        fold = np.arange(len(groups)) % FOLDS
        sizes = np.array([len(g.replies) for g in groups])
        row_fold = np.repeat(fold, sizes)
        out = np.zeros(int(sizes.sum()))
        for k in range(FOLDS):
            inside = [g for g, f in zip(groups, fold, strict=True) if f != k]
            held = [g for g, f in zip(groups, fold, strict=True) if f == k]
            model = Matching(weighted=self.weighted).fit(inside, embedded)
            out[row_fold == k] = model.scores(held, embedded)
        return out

    def fit(self, groups, embedded, progress=None):
        from clarion.rerank.lambdamart import LambdaMART

        tick = progress("lambdamart: matching folds, fit", FOLDS + 2) if progress else (lambda n: None)
        oof = self._out_of_fold(groups, embedded)
        tick(FOLDS)
        self.matching = Matching(weighted=self.weighted).fit(groups, embedded)
        x = self._features(groups, embedded, oof)
        y, w = targets(groups, self.weighted)
        tick(1)
        self.booster = _fit_weighted(LambdaMART(rounds=self.rounds, params=PARAMS), x, y, w, groups)
        tick(1)
        return self

    def scores(self, groups, embedded):
        if self.booster is None or self.matching is None:
            raise ModelError("the lambdamart reply ranker is not trained")
        return self.booster.predict(self._features(groups, embedded, self.matching.scores(groups, embedded)))

    def save(self, directory):
        self.matching.save(directory)  # writes method.json as matching's; overwritten below
        super().save(directory)
        self.booster.save(directory / "lambdamart.txt")

    @classmethod
    def load(cls, directory):
        from clarion.rerank.lambdamart import LambdaMART

        method = super().load(directory)
        method.matching = Matching.load(directory)
        method.booster = LambdaMART.load(directory / "lambdamart.txt")
        return method


def _fit_weighted(model, x: np.ndarray, y: np.ndarray, w: np.ndarray, groups) -> Any:
    """``LambdaMART.fit`` with per-reply weights (LightGBM multiplies each reply's lambda gradients by them)."""
    import lightgbm as lgb

    from clarion.rerank.lambdamart import DEFAULT_PARAMS

    sizes = [len(g.replies) for g in groups]
    data = lgb.Dataset(x, label=y.astype(int), group=sizes, weight=w, feature_name=[*FEATURES, "matching"])
    params = {**DEFAULT_PARAMS, **model.params}
    params.pop("metric", None)
    model.boosters = [lgb.train(params, data, num_boost_round=model.rounds)]
    return model

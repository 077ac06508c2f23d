"""A LightGBM LambdaMART combiner (Burges, "From RankNet to LambdaRank to LambdaMART: An Overview", 2010;
Ke et al., "LightGBM", NeurIPS 2017) over per-candidate feature vectors grouped by query.

Deterministic: fixed seed, ``deterministic=True`` and a fixed thread count, so retraining on the same data
gives the same model.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from clarion.data.io import atomic_writer, read_text
from clarion.errors import ModelError

DEFAULT_PARAMS: dict[str, Any] = {
    "objective": "lambdarank",
    "metric": "ndcg",
    "eval_at": [30],
    "learning_rate": 0.05,
    "num_leaves": 15,
    "min_data_in_leaf": 50,
    "feature_fraction": 0.8,
    "lambda_l2": 1.0,
    "lambdarank_truncation_level": 40,
    "seed": 13,
    "deterministic": True,
    "force_row_wise": True,
    "num_threads": 2,
    "verbose": -1,
}


@dataclass
class LambdaMART:
    """``fit(X, y, groups)`` then ``predict(X)``; ``groups`` are the sizes of consecutive query blocks."""

    rounds: int = 300
    params: dict[str, Any] = field(default_factory=dict)
    categorical: Sequence[int] = ()
    booster: Any = None

    def fit(self, x: np.ndarray, y: np.ndarray, groups: Sequence[int]) -> LambdaMART:
        import lightgbm as lgb

        if sum(groups) != len(x) or len(x) != len(y):
            raise ValueError(f"groups sum {sum(groups)}, rows {len(x)}, labels {len(y)} differ")
        train = lgb.Dataset(x, label=y, group=list(groups), categorical_feature=list(self.categorical) or "auto")
        self.booster = lgb.train({**DEFAULT_PARAMS, **self.params}, train, num_boost_round=self.rounds)
        return self

    def predict(self, x: np.ndarray) -> np.ndarray:
        if self.booster is None:
            raise ModelError("LambdaMART model is not trained")
        threads = 1 if len(x) < 10_000 else DEFAULT_PARAMS["num_threads"]  # threads cost more than they save
        return self.booster.predict(x, num_threads=threads)

    def feature_importance(self, names: Sequence[str]) -> dict[str, float]:
        """Total gain per feature name."""
        gains = self.booster.feature_importance(importance_type="gain")
        return {n: float(g) for n, g in zip(names, gains, strict=True)}

    def save(self, path: str | Path) -> None:
        with atomic_writer(path) as out:
            out.write(self.booster.model_to_string())

    @classmethod
    def load(cls, path: str | Path) -> LambdaMART:
        return cls(booster=booster_from_text(read_text(path), str(path)))


def booster_from_text(text: str, where: str):
    """A LightGBM booster from its saved text; a truncated or foreign text raises :class:`ModelError` naming
    ``where``. LightGBM aborts the whole process on some truncated model texts, so they are checked first."""
    import lightgbm as lgb

    if not isinstance(text, str) or "end of trees" not in text or "end of parameters" not in text:
        raise ModelError(f"{where}: not a complete LightGBM model (truncated?); retrain it")
    try:
        return lgb.Booster(model_str=text)
    except lgb.basic.LightGBMError as err:
        raise ModelError(f"{where}: not a LightGBM model ({err}); retrain it") from None

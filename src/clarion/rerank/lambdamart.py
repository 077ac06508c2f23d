"""A LightGBM LambdaMART combiner (Burges, "From RankNet to LambdaRank to LambdaMART: An Overview", 2010;
Ke et al., "LightGBM", NeurIPS 2017) over per-candidate feature vectors grouped by query.

Deterministic: fixed seed, ``deterministic=True`` and a fixed thread count, so retraining on the same data
on the same machine gives the same model (float-level differences between CPU types change the trees). With
``bag > 1`` it is a small bag of boosters trained with consecutive seeds (each tree sees its own 80% of the
features), whose mean score moves less with the seed than one booster's does.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from clarion.classifier import booster_from_text, booster_predict
from clarion.data.io import atomic_writer, read_text
from clarion.errors import DataError, ModelError

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
BAG_SEPARATOR = "\n# clarion: next booster of the bag\n"
"""Between the boosters of a bag in a saved model text."""


@dataclass
class LambdaMART:
    """``fit(X, y, groups)`` then ``predict(X)``; ``groups`` are the sizes of consecutive query blocks."""

    rounds: int = 300
    params: dict[str, Any] = field(default_factory=dict)
    categorical: Sequence[int] = ()
    bag: int = 1
    """Boosters trained with seeds ``seed``, ``seed + 1``, ...; the score is their mean."""
    boosters: list[Any] = field(default_factory=list)

    def fit(self, x: np.ndarray, y: np.ndarray, groups: Sequence[int], weights: np.ndarray | None = None) -> LambdaMART:
        """``weights``: one per row (LightGBM multiplies each row's lambda gradients by it), or none."""
        import lightgbm as lgb

        if sum(groups) != len(x) or len(x) != len(y):
            raise ValueError(f"groups sum {sum(groups)}, rows {len(x)}, labels {len(y)} differ")
        if isinstance(self.bag, bool) or not isinstance(self.bag, int) or self.bag < 1:
            raise ValueError(f"bag must be a positive integer, got {self.bag!r}")
        train = lgb.Dataset(
            x, label=y, group=list(groups), weight=weights, categorical_feature=list(self.categorical) or "auto"
        )
        params = {**DEFAULT_PARAMS, **self.params}
        self.boosters = [
            lgb.train({**params, "seed": params["seed"] + i}, train, num_boost_round=self.rounds)
            for i in range(self.bag)
        ]
        return self

    def predict(self, x: np.ndarray) -> np.ndarray:
        if not self.boosters:
            raise ModelError("LambdaMART model is not trained")
        return np.mean([booster_predict(b, x) for b in self.boosters], axis=0)

    def feature_importance(self, names: Sequence[str]) -> dict[str, float]:
        """Total gain per feature name (summed over the bag)."""
        gains = sum(b.feature_importance(importance_type="gain") for b in self.boosters)
        return {n: float(g) for n, g in zip(names, gains, strict=True)}

    def to_text(self) -> str:
        """The model as text: each booster's LightGBM model string, separated by :data:`BAG_SEPARATOR`."""
        if not self.boosters:
            raise ModelError("LambdaMART model is not trained")
        return BAG_SEPARATOR.join(b.model_to_string() for b in self.boosters)

    def save(self, path: str | Path) -> None:
        text = self.to_text()
        with atomic_writer(path) as out:
            out.write(text)

    @classmethod
    def load(cls, path: str | Path) -> LambdaMART:
        try:
            text = read_text(path)
        except DataError as err:  # a model file lost or unreadable: the model, not the user's data, is at fault
            raise ModelError(f"{err}; retrain it") from None
        parts = text.split(BAG_SEPARATOR)
        boosters = [booster_from_text(part, str(path)) for part in parts]
        return cls(bag=len(boosters), boosters=boosters)

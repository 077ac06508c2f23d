"""The naive score ensemble ``α·S_M + (1-α)·S_N`` over normalised scores.

The baseline of Schwartz, "Ensemble of MRR and NDCG models for Visual Dialog", NAACL 2021. ``S_M`` is the mean
of the MRR models' normalised scores (the model itself when there is one), ``S_N`` the NDCG model's. It is a
weighted sum, so it runs through ranx's ``wsum`` with weights ``α/k`` per MRR model and ``1-α`` for N; a
candidate a run did not score gets 0 from it after normalisation (ranx's convention).
"""

from __future__ import annotations

import math
from numbers import Real

from clarion.errors import InputError
from clarion.fuse.standard import Norm, ranx_fuse
from clarion.types import Run, check_run, check_runs


def alpha_ensemble(
    mrr_runs: list[Run],
    ndcg_run: Run,
    alpha: float = 0.5,
    norm: Norm | str = Norm.MIN_MAX,
) -> Run:
    """``α·mean(normalised MRR runs) + (1-α)·normalised NDCG run`` per query and candidate.

    ``alpha`` must lie in [0, 1]; ``norm`` is any :class:`~clarion.fuse.standard.Norm` (min-max by default,
    ``z-score`` for zero mean and unit variance).

    >>> alpha_ensemble([{"q": {"a": 1.0, "b": 0.0}}], {"q": {"a": 0.0, "b": 1.0}}, alpha=0.75)["q"]
    {'a': 0.75, 'b': 0.25}
    """
    if isinstance(alpha, bool) or not isinstance(alpha, Real) or not math.isfinite(alpha) or not 0 <= alpha <= 1:
        raise InputError(f"alpha must be a number in [0, 1], got {alpha!r}")
    if not isinstance(mrr_runs, list | tuple) or not mrr_runs:
        raise InputError("mrr_runs must be a non-empty list of runs")
    check_runs(mrr_runs, "MRR run")
    check_run(ndcg_run, "NDCG run")
    k = len(mrr_runs)
    weights = [alpha / k] * k + [1.0 - alpha]
    return ranx_fuse([*mrr_runs, ndcg_run], "wsum", norm, {"weights": weights}, label="alpha")

"""Rank fusion: the two-step MRR/NDCG ensemble, the alpha score ensemble, ranx's fusions and a tuner.

>>> from clarion.fuse import two_step
>>> two_step([{"q": {"a": 2.0, "b": 1.0}}], {"q": {"b": 2.0, "a": 1.0}}, rho_h=1)
{'q': {'a': 2.0, 'b': 1.0}}
"""

from __future__ import annotations

from clarion.fuse.alpha import alpha_ensemble
from clarion.fuse.registry import METHODS, FusionMethod, Method, Param, fuse, get_method
from clarion.fuse.standard import Norm, normalize, ranx_fuse
from clarion.fuse.tune import Target, Trial, TuneResult, random_search
from clarion.fuse.two_step import two_step

__all__ = [
    "METHODS",
    "FusionMethod",
    "Method",
    "Norm",
    "Param",
    "Target",
    "Trial",
    "TuneResult",
    "alpha_ensemble",
    "fuse",
    "get_method",
    "normalize",
    "random_search",
    "ranx_fuse",
    "two_step",
]

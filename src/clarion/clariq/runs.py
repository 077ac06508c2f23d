"""Turning score matrices over the question bank into ClariQ runs that meet the CLI contract."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from clarion.data.clariq_constants import MIN_DEPTH
from clarion.data.trec import strictly_decreasing
from clarion.errors import InputError
from clarion.types import Run


def top_k_run(topic_ids: Sequence[str], ids: Sequence[str], scores: np.ndarray, depth: int = 100) -> Run:
    """A run with each topic's ``depth`` best candidates (ties by id), scores strictly decreasing."""
    if depth < MIN_DEPTH:
        raise InputError(f"depth must be at least {MIN_DEPTH}, got {depth}")
    if scores.shape != (len(topic_ids), len(ids)):
        raise ValueError(f"scores shape {scores.shape} != ({len(topic_ids)}, {len(ids)})")
    order_ids = np.argsort(np.asarray(ids))  # id-ascending tie break
    run: Run = {}
    for row, tid in enumerate(topic_ids):
        col = scores[row][order_ids]
        best = order_ids[np.argsort(-col, kind="stable")[:depth]]
        values = strictly_decreasing(scores[row][best])
        run[str(tid)] = {ids[j]: v for j, v in zip(best, values, strict=True)}
    return run

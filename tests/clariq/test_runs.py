"""Runs always meet the contract: enough questions, strictly decreasing scores even under ties."""

from __future__ import annotations

import numpy as np
import pytest

from clarion.clariq.runs import top_k_run
from clarion.data.trec import strictly_decreasing
from clarion.errors import InputError


def test_strictly_decreasing_breaks_ties_and_rounding():
    assert strictly_decreasing([3.0, 3.0, 3.0000000001, 1.0]) == [3.0, 2.999999, 2.999998, 1.0]


@pytest.mark.parametrize("big", [1e12, 1e17, -1e15])
def test_strictly_decreasing_when_a_step_is_below_float_resolution(big):
    values = strictly_decreasing([big] * 5)
    assert all(a > b for a, b in zip(values, values[1:], strict=False))
    # as written with 6 decimals and read back, the scores stay distinct
    assert len({float(f"{v:.6f}") for v in values}) == 5


def test_top_k_run_orders_by_score_then_id():
    ids = [f"Q{i:05d}" for i in range(40, 0, -1)]
    scores = np.ones((1, 40))
    scores[0, 5] = 2.0
    run = top_k_run(["t"], ids, scores, depth=30)
    ranked = list(run["t"])
    assert ranked[0] == ids[5] and ranked[1:3] == ["Q00001", "Q00002"]
    values = list(run["t"].values())
    assert len(values) == 30 and all(a > b for a, b in zip(values, values[1:], strict=False))


def test_depth_below_contract_rejected():
    with pytest.raises(InputError, match="at least 30"):
        top_k_run(["t"], ["a"], np.ones((1, 1)), depth=5)

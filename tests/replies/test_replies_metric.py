"""The task's metric, pinned by hand-worked values."""

from __future__ import annotations

import math

import pytest

from clarion.errors import InputError
from clarion.evaluate.replies import dcg, mean_ndcg, ndcg


def test_dcg_by_hand():
    # ranks 1, 2, 3 discount by log2(2) = 1, log2(3) = 1.58496..., log2(4) = 2
    assert dcg([2, 0, 1]) == pytest.approx(2 + 0 + 0.5)
    assert dcg([0, 2, 1]) == pytest.approx(2 / math.log2(3) + 0.5)


def test_ndcg_by_hand():
    ideal = 2 + 1 / math.log2(3)  # 2.63093
    assert ndcg([2, 1, 0]) == 1.0
    assert ndcg([2, 0, 1]) == pytest.approx(2.5 / ideal)  # 0.950232
    assert ndcg([0, 2, 1]) == pytest.approx(1.761860 / ideal, abs=1e-6)  # 0.669672
    assert round(ndcg([0, 2, 1]), 6) == 0.669672
    assert ndcg([0, 0, 1, 1]) == pytest.approx((1 / 2 + 1 / math.log2(5)) / (1 + 1 / math.log2(3)))


def test_all_bad_context_counts_as_one():
    assert ndcg([0, 0, 0]) == 1.0


def test_mean_over_contexts_times_100000_and_confidence_unused():
    labels = {"1": {"a": 2, "b": 1, "c": 0}, "2": {"x": 0, "y": 2}, "3": {"p": 0}}
    ranking = {"1": ["c", "a", "b"], "2": ["y", "x"], "3": ["p"]}
    first = (0 + 2 / math.log2(3) + 1 / 2) / (2 + 1 / math.log2(3))  # 0.669672
    result = mean_ndcg(labels, ranking)
    assert result["ndcg"] == pytest.approx(100_000 * (first + 1 + 1) / 3)
    assert result["ndcg"] == pytest.approx(88989.1, abs=0.1)
    assert result["contexts"] == 3 and result["ndcg_all_bad"] == 1


def test_ranking_must_hold_the_labelled_replies():
    with pytest.raises(InputError, match="context 1"):
        mean_ndcg({"1": {"a": 2, "b": 0}}, {"1": ["a"]})

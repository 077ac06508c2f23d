"""The first-stage shortlist score (hand-worked)."""

from __future__ import annotations

import numpy as np

from clarion.rerank.features import FEATURES, first_stage, shortlist_score


def test_shortlist_score_propagates_to_nearest_questions():
    bal = np.asarray([[0.2, 0.0, 0.4]])
    share = np.asarray([[0.2, 0.0, 0.0]])
    lex = np.asarray([[0.0, 0.4, 0.0]])
    attached = np.asarray([[False, False, True]])
    nearest = np.asarray([[1], [2], [0]])  # one nearest neighbour each
    # own scores 0.4, 0.2, 0.4; plus half the neighbour's; attached question 2 minus 10
    got = shortlist_score(bal, share, lex, attached, nearest)
    assert np.allclose(got, [[0.5, 0.4, 0.6 - 10.0]])


def test_first_stage_reads_the_shortlist_score_column():
    block = np.zeros((1, 2, len(FEATURES)), dtype=np.float32)
    block[0, :, FEATURES.index("first_score")] = [3.0, 1.0]
    assert first_stage(block).tolist() == [[3.0, 1.0]]

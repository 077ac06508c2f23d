"""Sinkhorn balancing and the balanced shares of known requests (hand-worked cases)."""

from __future__ import annotations

import math

import numpy as np

from clarion.rerank.balance import BalancedPool, sinkhorn, solve_weight
from clarion.rerank.competition import COMPETITION_FEATURES, score_table


def test_sinkhorn_symmetric_2x2():
    a, b = sinkhorn(np.asarray([[2.0, 1.0], [1.0, 2.0]]), np.ones(2), np.ones(2))
    plan = a[:, None] * np.asarray([[2.0, 1.0], [1.0, 2.0]]) * b[None, :]
    assert np.allclose(plan, [[2 / 3, 1 / 3], [1 / 3, 2 / 3]])


def test_sinkhorn_keeps_the_cross_ratio():
    # A doubly stochastic 2x2 plan is [[p, 1-p], [1-p, p]]; scaling keeps K11·K22 / (K12·K21) = 1/2,
    # so p² / (1-p)² = 1/2 and p = √2 - 1.
    kernel = np.asarray([[1.0, 2.0], [1.0, 1.0]])
    a, b = sinkhorn(kernel, np.ones(2), np.ones(2), iterations=200)
    plan = a[:, None] * kernel * b[None, :]
    p = math.sqrt(2) - 1
    assert np.allclose(plan, [[p, 1 - p], [1 - p, p]], atol=1e-9)


def test_sinkhorn_3x3_unequal_masses():
    kernel = np.asarray([[1.0, 2.0, 3.0], [3.0, 1.0, 2.0], [2.0, 3.0, 1.0], [1.0, 1.0, 1.0]])
    rows, cols = np.ones(4), np.asarray([1.0, 1.0, 2.0])
    a, b = sinkhorn(kernel, rows, cols, iterations=500)
    plan = a[:, None] * kernel * b[None, :]
    assert np.allclose(plan.sum(axis=1), rows) and np.allclose(plan.sum(axis=0), cols)


def test_solve_weight_hand_worked():
    # β/(1+β) + β/(3+β) = 1  <=>  β² = 3
    beta = solve_weight(np.asarray([[1.0, 1.0]]), np.asarray([[1.0, 3.0]]), np.ones(2, dtype=bool), 1.0)
    assert math.isclose(beta[0], math.sqrt(3), rel_tol=1e-6)


def test_solve_weight_ignores_masked_questions():
    beta = solve_weight(np.ones((1, 3)), np.asarray([[1.0, 3.0, 1e9]]), np.asarray([True, True, False]), 1.0)
    assert math.isclose(beta[0], math.sqrt(3), rel_tol=1e-6)


def _pool():
    # four questions, two known requests: questions 0-1 look like request 0, questions 2-3 like request 1
    return np.asarray([[0.9, 0.1], [0.8, 0.3], [0.2, 0.9], [0.1, 0.7]])


def test_balanced_share_gives_each_request_its_fair_mass():
    pool = BalancedPool(_pool(), np.ones(4, dtype=bool), temperature=0.1)
    assert pool.mass == 2.0
    own = np.asarray([[0.9, 0.9, 0.1, 0.1], [0.1, 0.1, 0.1, 0.1]])
    share, log_weight = pool.share(own, np.asarray([-1, -1]))
    assert np.allclose(share.sum(axis=1), 2.0, atol=1e-4)
    assert share[0, 0] > share[0, 2]
    # a request like nobody gets a larger weight than one like request 0
    assert log_weight[1] > log_weight[0]


def test_balanced_share_leaves_the_request_itself_out():
    pool = BalancedPool(_pool(), np.ones(4, dtype=bool), temperature=0.1)
    own = _pool()[:, 0][None, :]
    alone, _ = pool.share(own, np.asarray([0]))
    rival, _ = pool.share(own, np.asarray([-1]))
    # alone it takes nearly all of its questions; competing with a copy of itself it takes less of them
    # (and, to reach its fair mass of 2, more of the other request's)
    assert alone[0, 0] > 0.99 and rival[0, 0] < alone[0, 0] - 0.02
    assert rival[0, 2] > alone[0, 2]
    assert np.allclose([alone.sum(), rival.sum()], 2.0, atol=1e-4)


def test_attached_questions_are_not_distributed():
    free = np.asarray([True, True, True, False])
    pool = BalancedPool(_pool(), free, temperature=0.1)
    share, _ = pool.share(np.asarray([[0.5, 0.5, 0.5, 0.5]]), np.asarray([-1]))
    assert math.isclose(float(share[0, :3].sum()), 1.5, rel_tol=1e-4)


def test_score_table_balances_the_shortlists():
    table = score_table(2, 4, [np.asarray([0, 1]), np.asarray([1, 2])], [[2.0, 1.0], [3.0, 0.0]], np.zeros(4, bool))
    assert np.isneginf(table.scores[0, 2]) and table.scores[1, 1] == 3.0
    assert len(table.pools) == 2 and "bal2" in COMPETITION_FEATURES
    # question 3 was shortlisted by nobody: it is not distributed
    assert table.pools[0].free.tolist() == [True, True, True, False]

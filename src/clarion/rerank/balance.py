"""Balanced (Sinkhorn) assignment of bank questions to known requests.

Every bank question was written for exactly one topic and every topic has about the same number of
questions, so the matrix "question q belongs to request u" is close to a transport plan with unit row sums
and equal column sums. The per-question softmax of :class:`clarion.rerank.features.PoolStats` only
normalises rows; Sinkhorn's alternating row/column normalisation (Sinkhorn & Knopp, "Concerning nonnegative
matrices and doubly stochastic matrices", 1967; Cuturi, "Sinkhorn distances", NeurIPS 2013) also spreads
the questions evenly over the requests: a request that would attract too many questions is damped, and a
request with few similar questions (generic ones) gets a larger weight.

:class:`BalancedPool` runs Sinkhorn once over the unattached questions and the unlabelled requests; a
request is then scored leave-one-out: its own column is removed, and its weight ``β`` is solved so that it
receives its fair share of questions given every other request's weight. This treats pool members (training
and dev requests) exactly like a new request. Pure numpy, deterministic.
"""

from __future__ import annotations

import numpy as np


def sinkhorn(
    kernel: np.ndarray, row_mass: np.ndarray, col_mass: np.ndarray, iterations: int = 50
) -> tuple[np.ndarray, np.ndarray]:
    """Scalings ``(a, b)`` such that ``diag(a) · kernel · diag(b)`` has row sums ``row_mass`` and column sums
    ``col_mass`` (approximately, after ``iterations`` alternating updates; exact on the columns).

    ``kernel`` must be positive; the masses must have equal totals for the plan to converge.
    """
    kernel = np.asarray(kernel, dtype=np.float64)
    a = np.ones(kernel.shape[0])
    b = np.ones(kernel.shape[1])
    for _ in range(iterations):
        a = row_mass / (kernel @ b)
        b = col_mass / (kernel.T @ a)
    return a, b


def solve_weight(mine: np.ndarray, rest: np.ndarray, mask: np.ndarray, mass: float, steps: int = 40) -> np.ndarray:
    """Per row ``i`` the weight ``β_i`` with ``Σ_{q: mask} β_i·mine_iq / (rest_iq + β_i·mine_iq) = mass``.

    The left side grows monotonically with ``β``, so bisection on ``log β`` over ``[-60, 60]`` finds it.
    ``mine``/``rest`` are ``(n, n_q)`` and positive, ``mask`` ``(n_q,)`` marks the questions that count.
    """
    lo = np.full(mine.shape[0], -60.0)
    hi = np.full(mine.shape[0], 60.0)
    m, r = mine[:, mask], rest[:, mask]
    for _ in range(steps):
        mid = (lo + hi) / 2.0
        beta = np.exp(mid)[:, None]
        got = (beta * m / (r + beta * m)).sum(axis=1)
        low = got < mass
        lo = np.where(low, mid, lo)
        hi = np.where(low, hi, mid)
    return np.exp((lo + hi) / 2.0)


class BalancedPool:
    """Sinkhorn weights of the unlabelled pool requests for ``pool`` similarities ``(n_q, n_u)``.

    ``free`` marks the questions to distribute (not attached to a labelled topic); each request's share
    of them is ``free.sum() / n_u``. Scores are shifted by ``offset`` (their maximum: 1 for cosines) so that
    ``exp((s - offset)/T)`` cannot overflow; ``-inf`` (not scored) gives a zero kernel entry.
    """

    def __init__(
        self, pool: np.ndarray, free: np.ndarray, temperature: float, iterations: int = 50, offset: float = 1.0
    ):
        self.temperature = temperature
        self.offset = offset
        self.free = np.asarray(free, dtype=bool)
        n_q, n_u = pool.shape
        self.exp = np.exp((pool.astype(np.float64) - offset) / temperature) + 1e-300
        self.mass = float(self.free.sum()) / max(n_u, 1)
        if n_u:
            rows = self.exp[self.free]
            _, self.weight = sinkhorn(rows, np.ones(len(rows)), np.full(n_u, self.mass), iterations)
        else:
            self.weight = np.zeros(0)
        self.total = self.exp @ self.weight

    def share(self, own: np.ndarray, self_col: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``(n_r, n_q)`` balanced shares of each request and its log weight ``(n_r,)``.

        ``own`` holds the requests' similarities to every bank question; ``self_col[i]`` is request ``i``'s
        pool column (``-1`` if it is not in the pool), whose contribution is left out of the competition.
        """
        mine = np.exp((own.astype(np.float64) - self.offset) / self.temperature) + 1e-300
        rest = np.broadcast_to(self.total, mine.shape).copy()
        for i, col in enumerate(self_col):
            if col >= 0:
                rest[i] -= self.weight[col] * self.exp[:, col]
        rest = np.maximum(rest, 1e-300)
        # questions the request does not score (-inf: off its shortlist) add nothing to its mass
        counted = self.free & (mine > 1e-290).any(axis=0)
        beta = solve_weight(mine, rest, counted, self.mass)
        share = beta[:, None] * mine / (rest + beta[:, None] * mine)
        return share.astype(np.float32), np.log(beta).astype(np.float32)

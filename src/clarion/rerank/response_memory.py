"""The "memory" feature of snippet selection: how much a candidate looks like the gold knowledge of the
training turns that asked something similar.

Knowledge-seeking questions repeat across entities ("is it quiet?", "are the rooms clean?"), and the gold
snippets of a similar training question (of another hotel) describe the same aspect. For a query ``q`` the
``k`` nearest training turns (MiniLM cosine of the user turns) are weighted by a softmax of their cosine
(temperature ``tau``); a candidate ``s`` scores ``sum_j w_j cos(s, g_j)`` and ``max_j cos(s, g_j)``, with ``g_j``
the normalised mean embedding of turn ``j``'s gold snippets. A k-nearest-neighbour label propagation; at
training time the turns of the same dialogue are excluded (leave-one-dialogue-out).
"""

from __future__ import annotations

from typing import Protocol

import numpy as np


class Memory(Protocol):
    """What the memory feature reads of the training turns (a :class:`clarion.respond.consensus.NeighbourBank`)."""

    responses: list[str]
    query_emb: np.ndarray  # (n, 384): the user turns
    knowledge_emb: np.ndarray  # (n, 384): the mean of each turn's gold snippets


N_MEMORY = 2


def memory_features(
    bank: Memory,
    query: np.ndarray,
    snippets: np.ndarray,
    exclude: np.ndarray | None = None,
    k: int = 10,
    tau: float = 0.05,
) -> np.ndarray:
    """``(n, 2)``: weighted and max cosine of each candidate to the neighbours' gold knowledge."""
    n = len(snippets)
    if n == 0 or len(bank.responses) == 0 or not np.any(query):
        return np.zeros((n, N_MEMORY), dtype=np.float32)
    sims = bank.query_emb @ query
    if exclude is not None:
        sims = np.where(exclude, -np.inf, sims)
    k = min(k, int(np.isfinite(sims).sum()))
    if k == 0:
        return np.zeros((n, N_MEMORY), dtype=np.float32)
    top = np.argpartition(-sims, k - 1)[:k]
    weights = np.exp((sims[top] - sims[top].max()) / tau)
    weights /= weights.sum()
    cos = snippets @ bank.knowledge_emb[top].T  # (n, k)
    return np.stack([cos @ weights, cos.max(axis=1)], axis=1).astype(np.float32)

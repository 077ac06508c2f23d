"""Second-stage "competition" features: how strongly each shortlisted question prefers this request over
the other known (unlabelled) requests, measured with the first-stage combiner's scores.

The first-stage per-question softmax compares raw cosines; once a combiner scores (request, question)
pairs far better than a cosine, the same competition can be run on its scores: a question every other
request scores low is probably this request's. ``table`` holds the first-stage score of every unlabelled
known request for the questions on its shortlist (``-inf`` elsewhere), and Sinkhorn-balanced shares over it
(:mod:`clarion.rerank.balance`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from clarion.rerank.balance import BalancedPool

COMPETITION_FEATURES = (
    "stage1",  # first-stage LambdaMART score
    "share2",  # per-question softmax share over the unlabelled requests' first-stage scores (T=0.5)
    "share2_soft",  # ... at T=2
    "margin2",  # score minus the best other request's score for this question
    "rank2",  # how many other requests score this question higher
    "neighbour_share2",  # mean share2 of the question's nearest bank questions
    "prf_dense_mean",  # mean cosine to the request's top first-stage questions (same topic, same writer)
    "prf_dense_max",
    "prf_lex_mean",  # mean character TF-IDF cosine to those questions
    "prf_lex_max",
    "prf_lead",  # fraction of those questions opening with the same two words
    "bal2",  # balanced (Sinkhorn) share over the unlabelled requests' first-stage scores (T=0.5)
    "bal2_soft",  # ... at T=2
)
PRF_DEPTH = 10
TEMPERATURES = (0.5, 2.0)
FLOOR = -10.0
"""Stand-in for "no other request shortlisted this question" in the margin."""


@dataclass
class Table:
    """The previous stage's scores of the unlabelled known requests ``(n_rows, n_questions)``, ``-inf``
    off their shortlists, and one :class:`BalancedPool` per temperature over them."""

    scores: np.ndarray
    pools: list[BalancedPool]


def score_table(n_rows: int, n_questions: int, shortlists, scores, attached: np.ndarray) -> Table:
    """A :class:`Table` with ``scores[i]`` at ``shortlists[i]``; ``attached`` questions are not distributed."""
    table = np.full((n_rows, n_questions), -np.inf, dtype=np.float32)
    for i, (cand, s) in enumerate(zip(shortlists, scores, strict=True)):
        table[i, cand] = s
    finite = np.isfinite(table)
    free = finite.any(axis=0) & ~attached
    offset = float(table[finite].max()) if finite.any() else 0.0
    return Table(table, [BalancedPool(table.T, free, t, offset=offset) for t in TEMPERATURES])


def competition_features(candidates: np.ndarray, scores: np.ndarray, table: Table, self_row: int, space) -> np.ndarray:
    """``(K, len(COMPETITION_FEATURES))`` for one request's shortlist ``candidates`` with first-stage
    ``scores``; ``self_row`` is the request's row of ``table`` (``-1`` if absent), left out of the pool."""
    others = table.scores[:, candidates]
    if self_row >= 0:
        others = np.delete(others, self_row, axis=0)
    out = np.zeros((len(candidates), len(COMPETITION_FEATURES)), dtype=np.float32)
    out[:, 0] = scores
    best = others.max(axis=0, initial=-np.inf) if len(others) else np.full(len(candidates), -np.inf)
    for j, t in enumerate(TEMPERATURES):
        top = np.maximum(best, scores)
        mine = np.exp((scores - top) / t)
        rest = np.exp((others - top[None, :]) / t).sum(axis=0) if len(others) else 0.0
        out[:, 1 + j] = mine / (mine + rest)
    out[:, 3] = scores - np.maximum(best, FLOOR)
    out[:, 4] = (others > scores[None, :]).sum(axis=0) if len(others) else 0
    share = np.zeros(len(space.nearest), dtype=np.float64)
    share[candidates] = out[:, 1]
    out[:, 5] = share[space.nearest[candidates]].mean(axis=1)
    out[:, 6:11] = feedback_features(candidates, scores, space)
    own = np.full((1, table.scores.shape[1]), -np.inf)
    own[0, candidates] = scores
    for j, pool in enumerate(table.pools):
        out[:, 11 + j] = pool.share(own, np.asarray([self_row]))[0][0, candidates]
    return out


def feedback_features(candidates: np.ndarray, scores: np.ndarray, space) -> np.ndarray:
    """Pseudo-relevance feedback: similarity of each candidate to the request's ``PRF_DEPTH`` best
    first-stage questions (itself excluded). A topic's questions were written together, by the same
    crowd workers, so they share words and phrasing ("did you want to know if ...")."""
    top = candidates[np.argsort(-scores, kind="stable")[:PRF_DEPTH]]
    same = candidates[:, None] == top[None, :]
    dense = space.bank_emb[candidates] @ space.bank_emb[top].T
    lex = (space.bank_tfidf[candidates] @ space.bank_tfidf[top].T).toarray()
    lead = (space.lead[candidates][:, None] == space.lead[top][None, :]).astype(np.float32)
    out = np.zeros((len(candidates), 5), dtype=np.float32)
    weight = np.maximum((~same).sum(axis=1), 1)
    for j, sim in enumerate((dense, lex)):
        masked = np.where(same, 0.0, sim)
        out[:, 2 * j] = masked.sum(axis=1) / weight
        out[:, 2 * j + 1] = np.where(same, -1.0, sim).max(axis=1)
    out[:, 4] = np.where(same, 0.0, lead).sum(axis=1) / weight
    return out

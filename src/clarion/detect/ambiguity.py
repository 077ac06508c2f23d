"""Ambiguity features from the ClariQ question bank: how many intents the bank and retrieval suggest.

The ClariQ bank is the union of per-topic clarifying-question sets, so the questions a request "wins" in a
per-question softmax over every known request (train, dev and public test requests, unlabelled; temperature
0.05, as in docs/architecture's measured observations) are mostly that request's own questions: how many it
wins, and how dissimilar they are, estimate how many intents (facets) it has. Pure numpy on L2-normalised
MiniLM embeddings; :class:`RequestPool` holds the precomputed per-question statistics of the known requests.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import numpy as np

TEMPERATURE = 0.05
MIN_SET = 3
MAX_SET = 40

BANK_FEATURES = (
    "won_argmax",
    "won_p50",
    "won_p90",
    "won_soft",
    "top1",
    "top5_mean",
    "top20_mean",
    "top20_std",
    "pool_max_sim",
    "pool_n_close",
)
SPREAD_FEATURES = (
    "set_pair_sim",
    "set_clusters_50",
    "set_clusters_65",
    "set_pc1_share",
    "set_centroid_sim",
    "set_request_sim",
    "top10_pair_sim",
    "top10_clusters_50",
)
MARKER_FEATURES = ("mark_alternative", "mark_referring", "mark_which", "mark_mention")

_ALTERNATIVE = re.compile(r"\bor\b")
_REFERRING = re.compile(r"\b(?:referring|do you mean|did you mean|talking about)\b")
_WHICH = re.compile(r"\b(?:which|what kind|what type|what sort|specific|particular)\b")


def same_request(key: str) -> str:
    """What identifies a request among the known ones: its normalised text (``form.normalise``) without final
    punctuation, so "Tell me about iron" is the known "Tell me about iron." and not its rival (which would win every
    one of its questions and turn its bank features into a stranger's)."""
    return key.rstrip(" .?!")


@dataclass
class RequestPool:
    """The known requests' embeddings and, per bank question, the statistics of their softmax scores."""

    bank: np.ndarray
    """(n_questions, d) L2-normalised bank question embeddings."""
    bank_texts: list[str]
    requests: np.ndarray
    """(n_requests, d) L2-normalised embeddings of the known requests."""
    request_keys: list[str]
    """The normalised text of each known request (a request equal to one of them, final punctuation aside, is not its
    own rival: :func:`same_request`)."""
    temperature: float = TEMPERATURE
    _scores: np.ndarray = field(init=False, repr=False)
    _mass: np.ndarray = field(init=False, repr=False)
    _top: np.ndarray = field(init=False, repr=False)
    _best: np.ndarray = field(init=False, repr=False)
    _second: np.ndarray = field(init=False, repr=False)
    _index: dict[str, int] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        self._scores = (self.requests @ self.bank.T).astype(np.float64)
        self._mass = np.exp((self._scores - 1.0) / self.temperature).sum(axis=0)
        n_questions = self.bank.shape[0]
        order = np.argsort(-self._scores, axis=0, kind="stable")
        self._top = order[0] if len(order) else np.full(n_questions, -1)
        columns = np.arange(n_questions)
        self._best = self._scores[order[0], columns] if len(order) else np.full(n_questions, -np.inf)
        self._second = self._scores[order[1], columns] if len(order) > 1 else np.full(n_questions, -np.inf)
        self._index = {}
        for i, key in enumerate(self.request_keys):  # the first of two keys that differ in punctuation only
            self._index.setdefault(same_request(key), i)

    def rivals(self, key: str) -> tuple[np.ndarray, np.ndarray]:
        """Per question: the softmax mass and the best score of every known request except ``key``."""
        own = self._index.get(same_request(key))
        if own is None:
            return self._mass, self._best
        mass = np.maximum(self._mass - np.exp((self._scores[own] - 1.0) / self.temperature), 0.0)
        return mass, np.where(self._top == own, self._second, self._best)

    def neighbours(self, key: str, embedding: np.ndarray) -> np.ndarray:
        """Cosine similarity of ``embedding`` to every other known request."""
        sims = self.requests @ embedding
        own = self._index.get(same_request(key))
        return sims if own is None else np.delete(sims, own)


def _pair_sim(vectors: np.ndarray) -> float:
    if len(vectors) < 2:
        return 1.0
    sims = vectors @ vectors.T
    n = len(vectors)
    return float((sims.sum() - np.trace(sims)) / (n * (n - 1)))


def _clusters(vectors: np.ndarray, *thresholds: float) -> tuple[float, ...]:
    """Number of average-linkage clusters with cosine distance below each threshold (one tree for all of them):
    ``fcluster(tree, t, criterion="distance").max()`` of each, counted from the tree (:func:`_merge_heights`)."""
    if len(vectors) < 2:
        return (float(len(vectors)),) * len(thresholds)
    from scipy.cluster.hierarchy import linkage

    heights = _merge_heights(linkage(vectors.astype(np.float64), method="average", metric="cosine"))
    return tuple(float(len(vectors) - np.count_nonzero(heights <= t)) for t in thresholds)


def _merge_heights(tree: np.ndarray) -> np.ndarray:
    """Per merge of a linkage ``tree``, the largest distance at which it or a merge below it joined (scipy's
    ``maxdists``). A cut at ``t`` keeps exactly the merges whose height is at most ``t``, each joining two clusters, so
    ``n - (heights <= t).sum()`` clusters remain: what ``fcluster`` counts, without its checks of the tree, which took
    most of the need features' clustering time (the tree is linkage's own)."""
    n = len(tree) + 1
    heights = np.empty(len(tree))
    for i, (left, right, distance, _) in enumerate(tree):
        below = [heights[int(c) - n] for c in (left, right) if c >= n]
        heights[i] = max([distance, *below])
    return heights


def _pc1_share(vectors: np.ndarray) -> float:
    if len(vectors) < 2:
        return 1.0
    centred = vectors - vectors.mean(axis=0)
    sv = np.linalg.svd(centred, compute_uv=False) ** 2
    return float(sv[0] / sv.sum()) if sv.sum() > 0 else 1.0


@dataclass
class BankView:
    """One request seen through the bank: similarities, win probabilities and its question set."""

    scores: np.ndarray
    prob: np.ndarray
    won: np.ndarray
    chosen: np.ndarray
    """Indices of the request's question set: questions it wins with p > 0.5 (at least ``MIN_SET``, by p)."""


def top_indices(values: np.ndarray, n: int) -> np.ndarray:
    """``np.argsort(-values, kind="stable")[:n]`` (the ``n`` largest, ties by index) without sorting all of ``values``:
    the bank has thousands of questions and a request needs its first few dozen."""
    if n >= len(values):
        return np.argsort(-values, kind="stable")
    nth = np.partition(values, len(values) - n)[len(values) - n]  # the n-th largest value
    candidates = np.flatnonzero(values >= nth)  # every tie of it included, so the index order decides among them
    return candidates[np.lexsort((candidates, -values[candidates]))][:n]


def top_values(values: np.ndarray, n: int) -> np.ndarray:
    """``np.sort(values)[::-1][:n]``, from a partition."""
    if n >= len(values):
        return np.sort(values)[::-1]
    return np.sort(np.partition(values, len(values) - n)[len(values) - n :])[::-1]


def bank_view(pool: RequestPool, key: str, embedding: np.ndarray) -> BankView:
    """Score one request (its normalised text ``key`` and embedding) against the bank and the pool."""
    scores = (pool.bank @ embedding).astype(np.float64)
    mass, best_rival = pool.rivals(key)
    own = np.exp((scores - 1.0) / pool.temperature)
    prob = own / (own + mass)
    n = int(np.clip((prob > 0.5).sum(), MIN_SET, MAX_SET))
    return BankView(scores, prob, scores > best_rival, top_indices(prob, n))


def bank_features(pool: RequestPool, view: BankView, key: str, embedding: np.ndarray) -> np.ndarray:
    """The :data:`BANK_FEATURES`: how many questions the request wins and how well the bank matches it."""
    top = top_values(view.scores, 20)
    neighbours = pool.neighbours(key, embedding)
    values = (
        view.won.sum(),
        (view.prob > 0.5).sum(),
        (view.prob > 0.9).sum(),
        view.prob.sum(),
        top[0],
        top[:5].mean(),
        top.mean(),
        top.std(),
        neighbours.max() if len(neighbours) else 0.0,
        (neighbours > 0.5).sum(),
    )
    return np.asarray(values, dtype=np.float64)


def spread_features(pool: RequestPool, view: BankView, embedding: np.ndarray) -> np.ndarray:
    """The :data:`SPREAD_FEATURES`: how dissimilar the request's questions (and its top 10) are."""
    chosen = pool.bank[view.chosen]
    top10 = pool.bank[top_indices(view.scores, 10)]
    centroid = chosen.mean(axis=0)
    norm = np.linalg.norm(centroid)
    values = (
        _pair_sim(chosen),
        *_clusters(chosen, 0.5, 0.65),
        _pc1_share(chosen),
        float(centroid @ embedding / norm) if norm > 0 else 0.0,
        float((chosen @ embedding).mean()),
        _pair_sim(top10),
        *_clusters(top10, 0.5),
    )
    return np.asarray(values, dtype=np.float64)


def marker_features(pool: RequestPool, view: BankView, topic_words: frozenset[str]) -> np.ndarray:
    """The :data:`MARKER_FEATURES`: the share of the request's questions that offer alternatives, ask
    "are you referring to ...", ask "which/what kind" or name the request's own words."""
    texts = [pool.bank_texts[i].lower() for i in view.chosen]
    n = max(len(texts), 1)
    return np.asarray(
        (
            sum(bool(_ALTERNATIVE.search(t)) for t in texts) / n,
            sum(bool(_REFERRING.search(t)) for t in texts) / n,
            sum(bool(_WHICH.search(t)) for t in texts) / n,
            sum(bool(topic_words & set(t.split())) for t in texts) / n,
        ),
        dtype=np.float64,
    )

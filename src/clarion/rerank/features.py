"""Features of (request, bank question) pairs for the learning-to-rank combiner.

The ClariQ bank is a union of per-topic question sets, so besides request↔question similarity the strongest
evidence is *which known request a question prefers*. For each question we take a softmax over the known
requests of its similarities (temperature 0.05) and read off the share of the request being ranked
("known requests" = the requests of train, dev and test topics, labels unused, plus the request itself).
Questions already attached to a labelled topic rarely belong to a new one (only 2 of the 909 test-topic
questions occur in train), so attachment is a feature too. The exception are *generic* questions
attached to several labelled topics ("are you looking for a specific web site" belongs to 18 train and
3 dev topics): they join every shortlist, and how many labelled topics own them is a feature. Since every
question belongs to exactly one topic and every topic has about 14, the same similarities are also
balanced by Sinkhorn over questions and requests (:class:`clarion.rerank.balance.BalancedPool`).

:class:`Space` holds the bank, the pool of known requests and their precomputed similarity statistics;
:meth:`Space.shortlist` picks each request's shortlist with :func:`first_stage` and returns its
``(n_requests, shortlist, n_features)`` block of :data:`FEATURES`.
Everything here is a pure function of its inputs (no I/O, no randomness).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING

import numpy as np
from scipy import sparse

from clarion.rerank.balance import BalancedPool

if TYPE_CHECKING:
    from clarion.retrieve.dense import Encoder

FEATURES = (
    "dense",  # MiniLM cosine(request, question)
    "dense_gap",  # cosine minus the request's best cosine over the bank
    "dense_share",  # per-question softmax share of this request among unlabelled known requests
    "dense_share_all",  # ... among all known requests (labelled ones included)
    "dense_margin",  # cosine minus the question's best cosine to another unlabelled request
    "dense_margin_all",  # ... to any other known request
    "lex",  # character n-gram TF-IDF cosine
    "lex_share",  # per-question softmax share over unlabelled requests, on TF-IDF cosines
    "lex_margin",  # TF-IDF cosine minus the best to another unlabelled request
    "bm25",  # BM25 score of the question for the request
    "bm25_norm",  # BM25 over the request's best BM25 score
    "attached",  # the question belongs to a labelled (training) topic
    "neighbour_share",  # mean dense_share of the question's nearest bank questions
    "form",  # question form: first word class (see FORMS)
    "q_len",  # question length in words
    "overlap",  # fraction of the request's content stems found in the question
    "r_len",  # request length in words
    "dense_bal",  # balanced (Sinkhorn) share of this request among unlabelled requests, on cosines
    "lex_bal",  # ... on TF-IDF cosines
    "bal_weight",  # log of the request's Sinkhorn weight (large: few questions look like it)
    "neighbour_bal",  # mean dense_bal of the question's nearest bank questions
    "first_score",  # the shortlist score (first_stage): shares propagated to nearest bank questions
    "owners",  # fraction of the labelled topics the question is attached to (other than the request's own)
    "owners_near",  # ... among the request's OWNER_NEIGHBOURS most similar labelled requests
)
OWNER_NEIGHBOURS = 20
"""Labelled requests nearest to the request over which ``owners_near`` is read."""
FORMS = ("are", "do", "would", "what", "which", "how", "who", "where", "is", "when", "can", "did")
"""First words that open most bank questions; anything else is form ``len(FORMS)``."""

_WORD = re.compile(r"[a-z0-9]+")


def question_form(texts: Sequence[str]) -> np.ndarray:
    """The index in :data:`FORMS` of each text's first word (``len(FORMS)`` for any other)."""
    codes = []
    for text in texts:
        words = _WORD.findall(text.lower())
        first = words[0] if words else ""
        codes.append(FORMS.index(first) if first in FORMS else len(FORMS))
    return np.asarray(codes, dtype=np.float32)


def lead_codes(texts: Sequence[str], words: int = 2) -> np.ndarray:
    """An integer code per text for its first ``words`` words (equal codes = same opening)."""
    codes: dict[str, int] = {}
    return np.asarray(
        [codes.setdefault(" ".join(_WORD.findall(t.lower())[:words]), len(codes)) for t in texts], dtype=int
    )


def word_count(texts: Sequence[str]) -> np.ndarray:
    return np.asarray([len(_WORD.findall(t.lower())) for t in texts], dtype=np.float32)


def _stem_analyzer():
    import Stemmer
    from bm25s.stopwords import STOPWORDS_EN

    stemmer, stop = Stemmer.Stemmer("english"), set(STOPWORDS_EN)

    def analyze(text: str) -> list[str]:
        return stemmer.stemWords([w for w in _WORD.findall(text.lower()) if w not in stop])

    return analyze


class PoolStats:
    """Per-question statistics of the similarities ``pool`` ``(n_q, n_u)`` to a set of known requests,
    computed once so that scoring a request costs ``O(n_q)``.

    Similarities are at most 1, so ``exp((s - 1)/T)`` cannot overflow.
    """

    def __init__(self, pool: np.ndarray, temperature: float):
        self.temperature = temperature
        self.exp = np.exp((pool.astype(np.float64) - 1.0) / temperature)
        self.total = self.exp.sum(axis=1)
        n_q, n_u = pool.shape
        self.top1 = np.full(n_q, -1.0, dtype=np.float32)
        self.top2 = np.full(n_q, -1.0, dtype=np.float32)
        self.arg = np.full(n_q, -1, dtype=int)
        if n_u >= 1:
            self.arg = pool.argmax(axis=1)
            self.top1 = pool[np.arange(n_q), self.arg].astype(np.float32)
        if n_u >= 2:
            rest = pool.copy()
            rest[np.arange(n_q), self.arg] = -np.inf
            self.top2 = rest.max(axis=1).astype(np.float32)

    def share(self, own: np.ndarray, self_col: np.ndarray, columns: np.ndarray | None = None) -> np.ndarray:
        """Per-question softmax share ``exp(own/T) / (exp(own/T) + Σ_{u ≠ self} exp(pool_u/T))``.

        ``own`` is ``(n_r, n_q)``; ``self_col[i]`` is the pool column of request ``i`` (``-1`` when it is
        not in the pool), whose term is replaced by ``own``. With ``columns`` ``(n_r, K)``, ``own`` holds
        only those questions' similarities.
        """
        mine = np.exp((own.astype(np.float64) - 1.0) / self.temperature)
        total = self.total[None, :] if columns is None else self.total[columns]
        drop = np.zeros_like(mine)
        for i, col in enumerate(self_col):
            if col >= 0:
                drop[i] = self.exp[:, col] if columns is None else self.exp[columns[i], col]
        return (mine / (total - drop + mine)).astype(np.float32)

    def best_other(self, self_col: np.ndarray, columns: np.ndarray) -> np.ndarray:
        """``(n_r, K)``: each of ``columns``' best similarity to a pool request other than request ``i``."""
        out = self.top1[columns]
        for i, col in enumerate(self_col):
            if col >= 0:
                out[i] = np.where(self.arg[columns[i]] == col, self.top2[columns[i]], out[i])
        return out


def nearest_neighbours(emb: np.ndarray, k: int, chunk: int = 512) -> np.ndarray:
    """``(n, k)``: the indices of each row's ``k`` most similar other rows (cosine, ties by index)."""
    out = np.zeros((len(emb), k), dtype=int)
    for start in range(0, len(emb), chunk):
        sim = emb[start : start + chunk] @ emb.T
        rows = np.arange(sim.shape[0])
        sim[rows, rows + start] = -np.inf
        part = np.argpartition(-sim, k, axis=1)[:, :k]
        order = np.lexsort((part, -np.take_along_axis(sim, part, axis=1)), axis=1)
        out[start : start + chunk] = np.take_along_axis(part, order, axis=1)
    return out


@dataclass
class Space:
    """The bank, the known requests and the precomputed pool statistics of one training context.

    ``bank_emb``/``pool_emb`` are L2-normalised MiniLM embeddings; ``labelled[u]`` marks pool requests whose
    topic is labelled, and ``owned[u]`` lists the bank indices attached to labelled request ``u``. Questions
    attached to at least ``generic_owners`` labelled topics (``0``: none) are *generic*: they are added to
    every shortlist.
    """

    bank_texts: list[str]
    bank_emb: np.ndarray
    pool_texts: list[str]
    pool_emb: np.ndarray
    labelled: np.ndarray
    owned: dict[int, np.ndarray]
    temperature: float = 0.05
    neighbours: int = 5
    generic_owners: int = 0
    encoder: Encoder = None
    """The encoder that embedded bank and pool (:data:`clarion.retrieve.dense.Encoder`: ``None`` for the packaged
    MiniLM, a fine-tuned directory, or a composite); requests must be encoded with it too."""

    def __post_init__(self) -> None:
        from sklearn.feature_extraction.text import CountVectorizer

        from clarion.retrieve.bm25 import BM25Index
        from clarion.retrieve.tfidf import CharTfidf

        self.tfidf = CharTfidf(list(self.bank_texts) + list(self.pool_texts))
        self.bank_tfidf = self.tfidf.transform(self.bank_texts)
        self.bm25 = BM25Index([str(i) for i in range(len(self.bank_texts))], self.bank_texts)
        self.stems = CountVectorizer(analyzer=_stem_analyzer(), binary=True, dtype=np.float32)
        self.bank_stems = self.stems.fit_transform(list(self.bank_texts) + list(self.pool_texts))[
            : len(self.bank_texts)
        ]
        self._tfidf_t = self.bank_tfidf.T.tocsr()
        self._stems_t = self.bank_stems.T.tocsr()
        self.form = question_form(self.bank_texts)
        self.q_len = word_count(self.bank_texts)
        self.lead = lead_codes(self.bank_texts)
        self.attached = np.zeros(len(self.bank_texts), dtype=bool)
        owners = np.zeros(len(self.bank_texts), dtype=int)
        for rows in self.owned.values():
            self.attached[rows] = True
            owners[rows] += 1
        self.generic = np.flatnonzero(owners >= self.generic_owners) if self.generic_owners > 0 else np.zeros(0, int)
        # pool columns of the labelled requests; owner_table[j, g]: does owner_cols[j] own generic question g
        self.owner_cols = np.asarray(sorted(self.owned), dtype=int)
        self.owner_table = np.zeros((len(self.owner_cols), len(self.generic)), dtype=np.float32)
        for j, u in enumerate(self.owner_cols):
            self.owner_table[j] = np.isin(self.generic, self.owned[u])
        self.unknown = np.flatnonzero(~self.labelled)
        dense_pool = self.bank_emb @ self.pool_emb.T
        lex_pool = (self.bank_tfidf @ self.tfidf.transform(self.pool_texts).T).toarray()
        t = self.temperature
        self.dense_unk = PoolStats(dense_pool[:, self.unknown], t)
        self.dense_all = PoolStats(dense_pool, t)
        self.lex_unk = PoolStats(lex_pool[:, self.unknown], t)
        self.dense_bal = BalancedPool(dense_pool[:, self.unknown], ~self.attached, t)
        self.lex_bal = BalancedPool(lex_pool[:, self.unknown], ~self.attached, t)
        self.nearest = nearest_neighbours(self.bank_emb, self.neighbours)
        self._index = {t: i for i, t in enumerate(self.pool_texts)}

    @cached_property
    def owner_stems(self) -> sparse.csr_matrix:
        """``(n_q, V)``: the content stems each bank question shares with the request of the topic it was written
        for — its labelled owners' requests, or for an unattached question the unlabelled known request nearest
        to it (cosine) — e.g. "new york" and "hotel" for "are you interested in new york hotel prices"."""
        pool = self.stems.transform(list(self.pool_texts)).tocsr()
        owner = sparse.lil_matrix((len(self.bank_texts), len(self.pool_texts)), dtype=np.float32)
        for u, rows in self.owned.items():
            owner[rows, u] = 1.0
        free = np.flatnonzero(~self.attached)
        if len(free) and len(self.unknown):
            nearest = self.unknown[(self.bank_emb[free] @ self.pool_emb[self.unknown].T).argmax(axis=1)]
            owner[free, nearest] = 1.0
        words = (owner.tocsr() @ pool).minimum(1.0)
        return words.multiply(self.bank_stems).tocsr()

    @cached_property
    def _owner_stems_t(self) -> tuple[np.ndarray, sparse.csr_matrix]:
        """How many :attr:`owner_stems` each question names, and the transposed matrix, for :meth:`foreign`."""
        return np.asarray(self.owner_stems.sum(axis=1)).ravel(), self.owner_stems.T.tocsr()

    def foreign(self, requests: Sequence[str]) -> np.ndarray:
        """``(n_r, n_q)``: how many of each question's :attr:`owner_stems` the request does not contain."""
        named, owner_t = self._owner_stems_t
        return named[None, :] - (self.stems.transform(list(requests)) @ owner_t).toarray()

    def pool_column(self, requests: Sequence[str]) -> np.ndarray:
        """The pool index of each request (exact text match), ``-1`` for requests not in the pool."""
        return np.asarray([self._index.get(r, -1) for r in requests], dtype=int)

    def attached_for(self, cols: np.ndarray) -> np.ndarray:
        """``(n_r, n_q)`` attachment; a labelled request's own questions are not "someone else's"."""
        attached = np.broadcast_to(self.attached, (len(cols), len(self.attached))).copy()
        for i, c in enumerate(cols):
            if c in self.owned:
                attached[i, self.owned[c]] = False
        return attached

    def shortlist(self, requests: Sequence[str], request_emb: np.ndarray, size: int):
        """Each request's ``size`` best questions by :func:`first_stage` (ties by bank order) and their
        features: ``(top (n_r, size), block (n_r, size, len(FEATURES)))``."""
        cols = self.pool_column(requests)
        unk_pos = {u: j for j, u in enumerate(self.unknown)}
        col_unk = np.asarray([unk_pos.get(c, -1) for c in cols], dtype=int)
        dense = request_emb @ self.bank_emb.T
        lex = (self.tfidf.transform(requests) @ self._tfidf_t).toarray()
        share = self.dense_unk.share(dense, col_unk)
        lex_share = self.lex_unk.share(lex, col_unk)
        bal, bal_weight = self.dense_bal.share(dense, col_unk)
        attached = self.attached_for(cols)
        s1 = shortlist_score(bal, share, lex_share, attached, self.nearest)
        ranked = s1.copy()
        ranked[:, self.generic] = -np.inf
        top = np.argsort(-ranked, axis=1, kind="stable")[:, :size]
        top = np.concatenate([top, np.broadcast_to(self.generic, (len(top), len(self.generic)))], axis=1)

        def take(matrix: np.ndarray) -> np.ndarray:
            return np.take_along_axis(matrix, top, axis=1)

        f = {name: k for k, name in enumerate(FEATURES)}
        out = np.zeros((len(requests), top.shape[1], len(FEATURES)), dtype=np.float32)
        out[..., f["dense"]] = take(dense)
        out[..., f["dense_gap"]] = take(dense) - dense.max(axis=1, keepdims=True)
        out[..., f["dense_share"]] = take(share)
        out[..., f["dense_share_all"]] = self.dense_all.share(take(dense), cols, top)
        out[..., f["dense_margin"]] = take(dense) - self.dense_unk.best_other(col_unk, top)
        out[..., f["dense_margin_all"]] = take(dense) - self.dense_all.best_other(cols, top)
        out[..., f["lex"]] = take(lex)
        out[..., f["lex_share"]] = take(lex_share)
        out[..., f["lex_margin"]] = take(lex) - self.lex_unk.best_other(col_unk, top)
        bm25 = self.bm25.scores(list(requests))
        out[..., f["bm25"]] = take(bm25)
        out[..., f["bm25_norm"]] = take(bm25) / np.maximum(bm25.max(axis=1, keepdims=True), 1e-6)
        out[..., f["attached"]] = take(attached)
        for i in range(len(requests)):
            out[i, :, f["neighbour_share"]] = share[i, self.nearest[top[i]]].mean(axis=1)
        out[..., f["form"]] = self.form[top]
        out[..., f["q_len"]] = self.q_len[top]
        r_stems = self.stems.transform(list(requests))
        hits = (r_stems @ self._stems_t).toarray()
        out[..., f["overlap"]] = take(hits) / np.maximum(np.asarray(r_stems.sum(axis=1)), 1.0)
        out[..., f["r_len"]] = word_count(requests)[:, None]
        out[..., f["dense_bal"]] = take(bal)
        out[..., f["lex_bal"]] = take(self.lex_bal.share(lex, col_unk)[0])
        out[..., f["bal_weight"]] = bal_weight[:, None]
        for i in range(len(requests)):
            out[i, :, f["neighbour_bal"]] = bal[i, self.nearest[top[i]]].mean(axis=1)
        out[..., f["first_score"]] = take(s1)
        if len(self.generic):
            owners, near = self.generic_owner_features(request_emb, cols)
            out[:, -len(self.generic) :, f["owners"]] = owners
            out[:, -len(self.generic) :, f["owners_near"]] = near
        return top, out

    def generic_owner_features(self, request_emb: np.ndarray, cols: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``(n_r, n_generic)`` twice: the fraction of labelled topics owning each generic question, and the
        fraction among the request's :data:`OWNER_NEIGHBOURS` most similar labelled requests; a labelled
        request's own topic is left out of both."""
        table = np.broadcast_to(self.owner_table, (len(cols), *self.owner_table.shape)).copy()
        sims = request_emb @ self.pool_emb[self.owner_cols].T
        for i, c in enumerate(cols):
            mine = np.flatnonzero(self.owner_cols == c)
            table[i, mine] = 0.0
            sims[i, mine] = -np.inf
        n_other = len(self.owner_cols) - np.asarray([c in self.owned for c in cols], dtype=np.float32)
        owners = table.sum(axis=1) / np.maximum(n_other, 1.0)[:, None]
        k = min(OWNER_NEIGHBOURS, max(len(self.owner_cols) - 1, 1))
        near = np.argsort(-sims, axis=1, kind="stable")[:, :k]
        near_owners = np.take_along_axis(table, near[:, :, None], axis=1).mean(axis=1)
        return owners, near_owners


def shortlist_score(bal, share, lex_share, attached, nearest: np.ndarray, weight: float = 0.5) -> np.ndarray:
    """The cheap first-stage score ``(n_r, n_q)``: balanced plus softmax dense share plus half the lexical
    share, plus ``weight`` times the mean of that over each question's ``nearest`` bank questions (a topic's
    questions were written together and resemble each other); attached questions last. Weights chosen by
    shortlist recall in cross-validation on train."""
    score = bal + share + 0.5 * lex_share
    return score + weight * score[:, nearest].mean(axis=2) - 10.0 * attached


def first_stage(block: np.ndarray) -> np.ndarray:
    """The :func:`shortlist_score` column of a ``(n_r, K, F)`` block of features."""
    return block[..., FEATURES.index("first_score")]

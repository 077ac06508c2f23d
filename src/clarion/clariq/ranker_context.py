"""What a ClariQ question ranker ranks over: the bank, the known requests and which of them are labelled, and the
pipeline's stage helpers (the shortlist, a later stage's features, the "no question" slot)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from clarion.data.clariq import ClariQ
from clarion.data.clariq_constants import NO_QUESTION
from clarion.rerank.competition import competition_features
from clarion.rerank.features import Space
from clarion.rerank.lambdamart import LambdaMART
from clarion.retrieve.dense import Encoder

POOL_SPLITS = ("train", "dev", "test")
"""Splits whose (unlabelled) requests form the pool of known requests."""


def bank_of(data: ClariQ) -> tuple[list[str], list[str]]:
    """Ids and texts of the bank's real questions (``Q00001`` left out)."""
    ids = [q for q in data.bank if q != NO_QUESTION]
    return ids, [data.bank[q] for q in ids]


@dataclass
class Context:
    """The bank, the known requests and which of them are labelled (with their questions)."""

    bank_ids: list[str]
    bank_texts: list[str]
    pool_texts: list[str]
    owned: dict[int, list[str]]
    """pool index of a labelled request -> the bank ids of its relevant questions."""
    encoder: Encoder = None
    """What embeds bank and requests (:attr:`RankerConfig.encoder`: packaged encoders and a fine-tuned MiniLM's
    directory, ``None`` standing for the packaged MiniLM)."""

    def space(self, temperature: float, generic_owners: int = 0) -> Space:
        from clarion.retrieve.dense import encode_cached

        pos = {q: i for i, q in enumerate(self.bank_ids)}
        owned = {u: np.asarray([pos[q] for q in qs if q in pos], dtype=int) for u, qs in self.owned.items()}
        labelled = np.zeros(len(self.pool_texts), dtype=bool)
        labelled[list(owned)] = True
        return Space(
            self.bank_texts,
            encode_cached(self.bank_texts, name="clariq-bank", encoder=self.encoder),
            self.pool_texts,
            encode_cached(self.pool_texts, name="clariq-requests", encoder=self.encoder),
            labelled,
            owned,
            temperature,
            generic_owners=generic_owners,
            encoder=self.encoder,
        )


def make_context(
    data: ClariQ, labelled: dict[str, set[str]], requests: dict[str, str], encoder: Encoder = None
) -> Context:
    """The context where the topics in ``labelled`` (topic id -> relevant ids) are known, embedded by
    ``encoder`` (:attr:`Context.encoder`)."""
    ids, texts = bank_of(data)
    pool = [t.request for t in data.known_requests(POOL_SPLITS)]
    index = {r: i for i, r in enumerate(pool)}
    for request in requests.values():
        if request not in index:
            index[request] = len(pool)
            pool.append(request)
    owned = {index[requests[t]]: sorted(qs - {NO_QUESTION}) for t, qs in labelled.items()}
    return Context(ids, texts, pool, owned, encoder)


def labelled_topics(data: ClariQ, splits: Sequence[str]) -> tuple[dict[str, set[str]], dict[str, str]]:
    """Relevant questions and requests of every topic of ``splits`` (keys ``split/topic``)."""
    rel, req = {}, {}
    for split in splits:
        labels = data.labels(split)
        for tid, qs in labels.questions.items():
            rel[f"{split}/{tid}"] = set(qs)
            req[f"{split}/{tid}"] = labels.requests[tid]
    return rel, req


def shortlist(space: Space, requests: Sequence[str], size: int, chunk: int = 64, embeddings: np.ndarray | None = None):
    """Yield ``(candidates (n, size), features (n, size, F))`` per chunk of requests (``embeddings``: the
    requests' own, when already computed)."""
    from clarion.retrieve.dense import encode_queries

    for start in range(0, len(requests), chunk):
        part = list(requests[start : start + chunk])
        emb = encode_queries(part, encoder=space.encoder) if embeddings is None else embeddings[start : start + chunk]
        yield space.shortlist(part, emb, size)


def insert_no_question(ranked: list[tuple[str, float]], position: int) -> list[tuple[str, float]]:
    """``ranked`` with ``Q00001`` at 0-based ``position``, its score halfway between its neighbours."""
    position = min(position, len(ranked))
    above = ranked[position - 1][1] if position > 0 else None
    below = ranked[position][1] if position < len(ranked) else None
    if above is None:
        score = (below if below is not None else 0.0) + 1.0
    elif below is None:
        score = above - 1.0
    else:
        score = (above + below) / 2.0
    return ranked[:position] + [(NO_QUESTION, score)] + ranked[position:]


def stage_features(feats, candidates, scores, table, row: int, space: Space) -> np.ndarray:
    """A later stage's ``(K, F + C)`` input: first-stage features plus competition features from the
    previous stage's ``scores`` (``row``: the request's row of ``table``, ``-1`` if absent)."""
    extra = competition_features(candidates, scores, table, row, space)
    return np.concatenate([feats, extra], axis=1)


def predict(model: LambdaMART, feats: np.ndarray) -> np.ndarray:
    """Scores ``(n, K)`` of a ``(n, K, F)`` block of shortlist features."""
    return model.predict(feats.reshape(-1, feats.shape[-1])).reshape(feats.shape[:2])

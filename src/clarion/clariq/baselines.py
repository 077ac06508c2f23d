"""ClariQ baselines: no question, BM25 over the question bank, zero-shot MiniLM dense retrieval, and the
majority-class need predictor."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

import numpy as np

from clarion.clariq.runs import top_k_run
from clarion.data.clariq import ClariQ
from clarion.data.clariq_constants import NO_QUESTION
from clarion.types import Run, Topic

TrainSplits = Sequence[str]


def bank_pool(data: ClariQ) -> tuple[list[str], list[str]]:
    """Ids and texts of the bank's real questions (``Q00001``, "no question", left out)."""
    ids = [q for q in data.bank if q != NO_QUESTION]
    return ids, [data.bank[q] for q in ids]


def rank_bm25(topics: list[Topic], data: ClariQ, train_splits: TrainSplits = ()) -> Run:
    """BM25 (bm25s, English stopwords, Snowball stemmer) of each request against the question bank."""
    from clarion.retrieve.bm25 import BM25Index

    ids, texts = bank_pool(data)
    scores = BM25Index(ids, texts).scores([t.request for t in topics])
    return top_k_run([t.id for t in topics], ids, scores)


def rank_dense(topics: list[Topic], data: ClariQ, train_splits: TrainSplits = ()) -> Run:
    """Zero-shot all-MiniLM-L6-v2 cosine similarity (bank embeddings cached on disk)."""
    from clarion.retrieve.dense import DenseIndex

    ids, texts = bank_pool(data)
    scores = DenseIndex(ids, texts, name="clariq-bank").scores([t.request for t in topics])
    return top_k_run([t.id for t in topics], ids, scores)


def rank_no_question(topics: list[Topic], data: ClariQ, train_splits: TrainSplits = ()) -> Run:
    """The organisers' NoQuestion baseline: ``Q00001`` first, followed by BM25's order so that the run
    still names 30 questions per topic (only the first counts for document relevance)."""
    run = rank_bm25(topics, data)
    out: Run = {}
    for tid, scores in run.items():
        top = max(scores.values())
        out[tid] = {NO_QUESTION: float(np.floor(top) + 1.0), **scores}
    return out


def need_majority(topics: list[Topic], data: ClariQ, train_splits: TrainSplits = ("train",)) -> dict[str, int]:
    """The most frequent clarification-need label of the training splits, for every topic."""
    counts: Counter[int] = Counter()
    for split in train_splits:
        counts.update(data.labels(split).need.values())
    label = min(counts, key=lambda k: (-counts[k], k))
    return {t.id: label for t in topics}

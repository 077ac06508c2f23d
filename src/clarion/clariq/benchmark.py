"""``clarion clariq benchmark``: every registered method on a labelled split, scored by the official tool.

Models are trained only on the splits before the evaluated one (dev is scored with train-only models), and
the organisers' sample runs are re-scored live, so the table shows clarion's numbers beside the quoted
leaderboard rows and the official runs' exact scores.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field

from clarion.clariq.methods import NEED_METHODS, RANK_METHODS, need_method, rank_method
from clarion.data.clariq import ClariQ
from clarion.data.trec import RunRow, read_run_rows
from clarion.evaluate.clariq_official import clarification_need, question_relevance

SAMPLE_RUNS = {"dev": ("dev_bm25", "dev_BERT-ranker", "dev_BERT-reranker")}
TRAIN_FOR = {"dev": ("train",), "test": ("train", "dev"), "train": ("train",)}


@dataclass
class BenchmarkResult:
    split: str
    questions: list[tuple[str, dict[str, float], float]] = field(default_factory=list)
    """(row name, Recall@k means, seconds)"""
    need: list[tuple[str, dict[str, float], float]] = field(default_factory=list)
    confusion: dict[str, list[list[int]]] = field(default_factory=dict)


def run_rows(run) -> list[RunRow]:
    """A Run dict as the rows the official scorers read."""
    return [RunRow(q, d, i, s, "clarion") for q, docs in run.items() for i, (d, s) in enumerate(docs.items())]


def confusion(gold: dict[str, int], pred: dict[str, int]) -> list[list[int]]:
    """4x4 counts, rows = gold label 1-4, columns = predicted label 1-4."""
    matrix = [[0] * 4 for _ in range(4)]
    for topic, label in gold.items():
        if pred.get(topic) in (1, 2, 3, 4):
            matrix[label - 1][pred[topic] - 1] += 1
    return matrix


def run_benchmark(
    data: ClariQ,
    split: str = "dev",
    rank_methods: list[str] | None = None,
    need_methods: list[str] | None = None,
    step: Callable[[str], None] | None = None,
) -> BenchmarkResult:
    """Score every rank and need method (and the official sample runs) on ``split``."""
    labels = data.labels(split)
    topics, train = labels.topics, TRAIN_FOR.get(split, ("train",))
    result = BenchmarkResult(split)
    for name in rank_methods if rank_methods is not None else list(RANK_METHODS):
        if step:
            step(f"rank: {name}")
        start = time.perf_counter()
        run = rank_method(name)(topics, data, train)
        scores = question_relevance(labels.questions, run_rows(run)).means
        result.questions.append((name, scores, time.perf_counter() - start))
    for sample in SAMPLE_RUNS.get(split, ()):
        path = data.path("sample_runs") / sample
        if path.exists():
            scores = question_relevance(labels.questions, read_run_rows(path)).means
            result.questions.append((f"official run {sample}", scores, 0.0))
    for name in need_methods if need_methods is not None else list(NEED_METHODS):
        if step:
            step(f"need: {name}")
        start = time.perf_counter()
        pred = need_method(name)(topics, data, train)
        scores = clarification_need(labels.need, pred).means
        result.need.append((name, scores, time.perf_counter() - start))
        result.confusion[name] = confusion(labels.need, pred)
    return result

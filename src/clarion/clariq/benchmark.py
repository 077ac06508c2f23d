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
from clarion.data.clariq import ClariQ, ClariqLabels
from clarion.data.clariq_constants import LABELLED_SPLITS
from clarion.data.trec import RunRow, read_run_rows
from clarion.errors import InputError
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
    documents: list[tuple[str, dict[str, float]]] = field(default_factory=list)
    """(official run, document-relevance means on the table its published .eval files imply)"""


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


def official_document_relevance(data: ClariQ, split: str) -> list[tuple[str, dict[str, float]]]:
    """The organisers' runs re-scored on the partial table their own ``.eval`` files imply (see
    :mod:`clarion.clariq.eval_table`); shows the document-relevance scorer reproducing them."""
    from clarion.clariq.eval_table import partial_table
    from clarion.data.clariq import read_eval_json
    from clarion.evaluate.clariq_official import document_relevance

    names = [f"{split}_no_q", f"{split}_bm25", f"{split}_worst_q"]
    folder = data.path("sample_runs")
    if not all((folder / n).exists() and (folder / f"{n}.eval").exists() for n in names):
        return []
    facets = data.labels(split).facets
    runs = {n: (read_run_rows(folder / n), read_eval_json(folder / f"{n}.eval")) for n in names}
    table = partial_table(facets, list(runs.values()))
    return [(f"official run {n}", document_relevance(table, facets, rows).means) for n, (rows, _) in runs.items()]


def split_labels(data: ClariQ, split: str) -> ClariqLabels:
    """The labels of the split to score; an unknown split or a missing labels file raises at once."""
    if split not in LABELLED_SPLITS:
        raise InputError(f"unknown split {split!r}; choose one of: {', '.join(LABELLED_SPLITS)}")
    return data.labels(split)


def in_sample(split: str) -> bool:
    """Whether the models scored on ``split`` learnt from it (``train``): its scores are fit, not evaluation."""
    return split in TRAIN_FOR.get(split, ())


def run_benchmark(
    data: ClariQ,
    split: str = "dev",
    rank_methods: list[str] | None = None,
    need_methods: list[str] | None = None,
    step: Callable[[str], None] | None = None,
    done: Callable[[], None] | None = None,
) -> BenchmarkResult:
    """Score every rank and need method (and the official sample runs) on ``split``.

    ``step(name)`` is called before each method and ``done()`` after it (for progress bars).
    """
    labels = split_labels(data, split)
    topics, train = labels.topics, TRAIN_FOR.get(split, ("train",))
    result = BenchmarkResult(split)
    for name in rank_methods if rank_methods is not None else list(RANK_METHODS):
        if step:
            step(f"rank: {name}")
        start = time.perf_counter()
        run = rank_method(name)(topics, data, train)
        scores = question_relevance(labels.questions, run_rows(run)).means
        result.questions.append((name, scores, time.perf_counter() - start))
        if done:
            done()
    for sample in SAMPLE_RUNS.get(split, ()):
        path = data.path("sample_runs") / sample
        if path.exists():
            scores = question_relevance(labels.questions, read_run_rows(path)).means
            result.questions.append((f"official run {sample}", scores, 0.0))
    result.documents = official_document_relevance(data, split)
    for name in need_methods if need_methods is not None else list(NEED_METHODS):
        if step:
            step(f"need: {name}")
        start = time.perf_counter()
        pred = need_method(name)(topics, data, train)
        scores = clarification_need(labels.need, pred).means
        result.need.append((name, scores, time.perf_counter() - start))
        result.confusion[name] = confusion(labels.need, pred)
        if done:
            done()
    return result

"""Training a reply ranker into a model directory, and the default model the CLI and the API share.

The default model is :data:`~.methods.DEFAULT_METHOD`, confidence-weighted, trained on the ``train`` part of
GRADE + DailyDialog++ as ``clarion replies convert`` writes it (:mod:`clarion.data.replies_convert`), each
context's source known (GRADE's three dialogue datasets, DailyDialog++), keyed in the cache by its settings and
the source files' fingerprint. Its score on the ``dev`` part is kept in ``meta.json``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from clarion.data.replies import ReplyRow
from clarion.replies.methods import DEFAULT_METHOD
from clarion.replies.ranker import ReplyRanker, groups_of, method_config, ranked_ids, tiny
from clarion.store import Progress, no_progress

DATASET = "replies"
SEED = 13


def evaluate_rows(ranker: ReplyRanker, rows: Sequence[ReplyRow], cached: bool = True) -> dict[str, float | int]:
    """The task's metric (mean NDCG x 100,000) of ``ranker`` on labelled ``rows`` (their embeddings cached)."""
    from clarion.evaluate.replies import mean_ndcg

    ids, groups = groups_of(rows)
    scores = ranker.score_groups(groups, cached)
    labels, ranking = {}, {}
    for context_id, group, score, block in zip(ids, groups, scores, _reply_ids(rows, ids), strict=True):
        labels[context_id] = dict(zip(block, group.relevance or (), strict=True))
        ranking[context_id] = ranked_ids(block, score)
    return mean_ndcg(labels, ranking)


def _reply_ids(rows: Sequence[ReplyRow], ids: Sequence[str]) -> list[list[str]]:
    by_context: dict[str, list[str]] = {}
    for row in rows:
        by_context.setdefault(row.context_id, []).append(row.reply_id)
    return [by_context[c] for c in ids]


def train_into(
    out: Path,
    rows: Sequence[ReplyRow],
    fingerprint: str,
    method: str = DEFAULT_METHOD,
    weighted: bool = True,
    progress: Progress = no_progress,
    dev: Sequence[ReplyRow] = (),
    sources: Mapping[str, str] | None = None,
) -> Path:
    """Train ``method`` on labelled ``rows`` and save it in ``out`` (``meta.json`` last, with the dev score
    when ``dev`` rows are given); ``sources`` names each context's source (context id -> name)."""
    from clarion.store import write_meta, writing

    _, groups = groups_of(rows, sources)
    ranker = ReplyRanker.train(groups, method, weighted, progress)
    metrics: dict[str, Any] = {"train_contexts": len(groups), "train_rows": len(rows)}
    if dev:
        metrics["dev"] = evaluate_rows(ranker, dev)
    with writing(out) as directory:
        ranker.method.save(directory)
        write_meta(directory, method_config(method, weighted), fingerprint, metrics)
    return out


def default_sources(data_dir: str | Path | None = None) -> dict[str, str]:
    """Context id -> source (``grade-convai2``, ..., ``dailydialog++``) of the converted data."""
    from clarion.data.location import dataset_dir
    from clarion.data.replies_convert import fine_sources

    rows = fine_sources(dataset_dir(DATASET, data_dir), SEED)
    return {r.context_id: name for name, part in rows.items() for r in part}


def default_data(data_dir: str | Path | None = None) -> tuple[list[ReplyRow], list[ReplyRow], str]:
    """(train rows, dev rows, fingerprint) of the converted GRADE + DailyDialog++ data."""
    from clarion.data.location import dataset_dir
    from clarion.data.replies_convert import convert

    root = dataset_dir(DATASET, data_dir)
    fingerprint = source_fingerprint(root)
    converted = convert(root, SEED)
    train, dev = converted.split("train"), converted.split("dev")
    if tiny():  # CI: a few hundred contexts
        keep = sorted({r.context_id for r in train})[::8]
        train = [r for r in train if r.context_id in set(keep)]
    return train, dev, fingerprint


def source_fingerprint(root: Path) -> str:
    """A short hash of the GRADE and DailyDialog++ files and the split seed."""
    from clarion.data.io import fingerprint_files
    from clarion.data.replies_convert import DAILYDIALOG_FILES, GRADE_FILE

    return f"{fingerprint_files(root / n for n in (GRADE_FILE, *DAILYDIALOG_FILES))[:12]}-s{SEED}"


def default_model_dir(data_dir: str | Path | None = None) -> Path:
    """Where the default model lives in the cache."""
    from clarion.data.location import dataset_dir
    from clarion.store import model_dir

    return model_dir("replies", "default", method_config(), source_fingerprint(dataset_dir(DATASET, data_dir)))


def ensure_default_model(data_dir: str | Path | None = None, progress: Progress = no_progress, say=None) -> Path:
    """The default model's directory, trained first when absent (:func:`clarion.store.ensure`; ``say`` announces
    it, default stderr)."""
    from clarion.store import ensure

    def train(directory: Path) -> None:
        rows, dev, fingerprint = default_data(data_dir)
        train_into(directory, rows, fingerprint, progress=progress, dev=dev, sources=default_sources(data_dir))

    what = f"the default reply ranker ({DEFAULT_METHOD})"
    return ensure(default_model_dir(data_dir), train, what, "GRADE + DailyDialog++ (train part)", say=say)

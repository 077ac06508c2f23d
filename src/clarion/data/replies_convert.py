"""Public human judgements written in the Yandex reply-ranking format, with a fixed held-out split.

Mapping (documented in docs/replies.md):

- **GRADE** (1-5 ratings by 8-11 annotators per context-reply pair): the pairs of one context (the exact
  ``Context`` text) make one context; a context with a single rated reply is dropped (nothing to rank). Label by
  the mean rating ``m``: ``good`` if ``m >= 3.5``, ``neutral`` if ``2.5 <= m < 3.5``, ``bad`` below. Each
  rating also reads as a label (4-5 good, 3 neutral, 1-2 bad); the confidence is the share of annotators whose
  rating reads as the assigned label.
- **DailyDialog++** (5 fitting, 5 adversarial and 5 random replies per context, no agreement figures): fitting
  replies are ``good``, adversarial and random ones ``bad``, all with confidence 1. Each context keeps at most
  6 replies (5 or 6, drawn per context with a seeded generator: 1-4 fitting ones, the rest adversarial and random,
  at least one of each), so that contexts look like the task's. The context keeps its last 3 utterances.

Rows of a context are shuffled (seeded), so no file order tells the kind of a reply. The split is by the
normalised last utterance (a seeded hash), so a context shared by both sources falls in one part: 70% ``train``,
15% ``dev`` (for choosing models) and 15% ``test`` (never used for choices).
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from clarion.data.io import read_json, read_lines
from clarion.data.replies import ReplyRow, write_replies
from clarion.errors import DataError

GRADE_FILE = "grade_human_judgement.json"
DAILYDIALOG_FILES = ("dailydialog_pp_dev.json", "dailydialog_pp_test.json")
SPLITS = {"train": 70, "dev": 85, "test": 100}
"""Split name -> upper bound of its hash buckets (of 100)."""
GOOD_MEAN, NEUTRAL_MEAN = 3.5, 2.5
MAX_REPLIES = 6
ID_BASE = {"grade": 100_000, "dailydialog_pp_dev": 200_000, "dailydialog_pp_test": 300_000}


def rating_label(rating: float) -> str:
    """The label one 1-5 rating (or a mean of them) reads as."""
    return "good" if rating >= GOOD_MEAN else "neutral" if rating >= NEUTRAL_MEAN else "bad"


def grade_label(ratings: list[float]) -> tuple[str, float]:
    """(label of the mean rating, share of the ratings that read as that label)."""
    label = rating_label(sum(ratings) / len(ratings))
    return label, round(sum(rating_label(r) == label for r in ratings) / len(ratings), 4)  # as the files hold it


def _flat(text: str) -> str:
    return " ".join(str(text).split())


def _context(utterances: list[str]) -> tuple[str, str, str]:
    last = [_flat(u) for u in utterances if _flat(u)][-3:]
    return tuple([""] * (3 - len(last)) + last)  # type: ignore[return-value]


def _ratings(record: dict, path: Path, index: int) -> list[float]:
    try:
        ratings = json.loads(record["HumanScores"])
        if not ratings or not all(isinstance(r, int | float) and 1 <= r <= 5 for r in ratings):
            raise ValueError
    except (KeyError, TypeError, ValueError):
        raise DataError(path, f"record {index}: HumanScores is not a JSON list of 1-5 ratings") from None
    return [float(r) for r in ratings]


def grade_rows(path: Path, seed: int) -> list[ReplyRow]:
    """GRADE's judgements as labelled rows (see the module docstring)."""
    records = read_json(path)
    if not isinstance(records, list):
        raise DataError(path, "expected a JSON list of records")
    by_context: dict[str, list[tuple[str, str, float]]] = {}
    for index, record in enumerate(records):
        if not isinstance(record, dict) or "Context" not in record or "Response" not in record:
            raise DataError(path, f"record {index}: expected an object with Context, Response and HumanScores")
        label, confidence = grade_label(_ratings(record, path, index))
        by_context.setdefault(record["Context"], []).append((_flat(record["Response"]), label, confidence))
    rows = []
    for number, (context, replies) in enumerate(by_context.items()):
        if len(replies) < 2:
            continue
        context_id = str(ID_BASE["grade"] + number)
        rows += _shuffled(context_id, _context(context.split("|||")), replies, seed)
    return rows


def _shuffled(context_id: str, context, replies: list[tuple[str, str, float]], seed: int) -> list[ReplyRow]:
    rng = np.random.default_rng([seed, int(context_id)])
    order = rng.permutation(len(replies))
    return [
        ReplyRow(context_id, context, str(i), *replies[j])
        for i, j in enumerate(order)  # type: ignore[arg-type]
    ]


def _sample_kinds(rng: np.random.Generator, available: dict[str, int]) -> dict[str, int]:
    """How many fitting, adversarial and random replies one DailyDialog++ context keeps (5 or 6 in all)."""
    total = int(rng.integers(5, MAX_REPLIES + 1))
    good = int(rng.integers(1, min(4, total - 2) + 1))
    adversarial = int(rng.integers(1, total - good))  # at least one of each negative kind
    counts = {"positive": good, "adversarial": adversarial, "random": total - good - adversarial}
    return {kind: min(n, available[kind]) for kind, n in counts.items()}


def dailydialog_rows(path: Path, seed: int) -> list[ReplyRow]:
    """DailyDialog++ contexts as labelled rows, at most :data:`MAX_REPLIES` replies each."""
    base = ID_BASE[path.stem]
    rows = []
    for number, line in read_lines(path):
        try:
            record = json.loads(line)
            kinds = {
                "positive": [_flat(r) for r in record["positive_responses"] if _flat(r)],
                "adversarial": [_flat(r) for r in record["adversarial_negative_responses"] if _flat(r)],
                "random": [_flat(r) for r in record["random_negative_responses"] if _flat(r)],
            }
            context, number_id = _context(record["context"]), int(record["id"])
        except (json.JSONDecodeError, KeyError, TypeError, ValueError):
            raise DataError(
                path, "expected a JSON object with id, context and the three response lists", number
            ) from None
        if not context[2]:
            continue
        rng = np.random.default_rng([seed, base + number_id])
        counts = _sample_kinds(rng, {k: len(v) for k, v in kinds.items()})
        replies = [
            (text, "good" if kind == "positive" else "bad", 1.0)
            for kind, n in counts.items()
            for text in rng.permutation(kinds[kind])[:n]
        ]
        rows += _shuffled(str(base + number_id), context, replies, seed)
    return rows


def source_of(context_id: str) -> str:
    """The source (``grade`` / ``dailydialog``) of a converted context, from its id."""
    return "grade" if context_id.isdigit() and int(context_id) < ID_BASE["dailydialog_pp_dev"] else "dailydialog"


def grade_datasets(path: Path) -> dict[str, str]:
    """Each GRADE context id, as :func:`grade_rows` numbers them, -> the dialogue dataset its context comes from
    (``convai2``, ``dailydialog`` or ``empatheticdialogues``: GRADE's ``Dataset`` without ``_EVAL``)."""
    first: dict[str, str] = {}
    for record in read_json(path):
        if isinstance(record, dict) and "Context" in record:
            first.setdefault(record["Context"], str(record.get("Dataset", "")).lower().removesuffix("_eval"))
    return {str(ID_BASE["grade"] + number): dataset for number, dataset in enumerate(first.values())}


def fine_sources(root: Path, seed: int = 13) -> dict[str, list[ReplyRow]]:
    """The rows by source for leave-one-source-out: GRADE's three dialogue datasets (``grade-convai2``,
    ``grade-dailydialog``, ``grade-empatheticdialogues``: replies of real systems, rated by people) and
    ``dailydialog++`` (people's replies against constructed negatives)."""
    datasets = grade_datasets(root / GRADE_FILE)
    out: dict[str, list[ReplyRow]] = {}
    for row in SOURCES["grade"](root, seed):
        out.setdefault(f"grade-{datasets[row.context_id]}", []).append(row)
    out["dailydialog++"] = SOURCES["dailydialog"](root, seed)
    return out


def split_of(last_utterance: str, seed: int) -> str:
    """The part (train / dev / test) of a context, from a seeded hash of its normalised last utterance."""
    key = re.sub(r"[^a-z0-9]+", " ", last_utterance.lower()).strip()
    bucket = int(hashlib.sha256(f"{seed}:{key}".encode()).hexdigest(), 16) % 100
    return next(name for name, bound in SPLITS.items() if bucket < bound)


SOURCES: dict[str, Callable[[Path, int], list[ReplyRow]]] = {
    "grade": lambda root, seed: grade_rows(root / GRADE_FILE, seed),
    "dailydialog": lambda root, seed: [r for f in DAILYDIALOG_FILES for r in dailydialog_rows(root / f, seed)],
}


@dataclass
class Converted:
    """Rows by (source, split)."""

    parts: dict[tuple[str, str], list[ReplyRow]]

    def split(self, name: str) -> list[ReplyRow]:
        return [r for (_, split), rows in self.parts.items() if split == name for r in rows]


def convert(root: Path, seed: int = 13) -> Converted:
    """Both sources under ``root`` (the ``replies`` data directory), split by context."""
    parts: dict[tuple[str, str], list[ReplyRow]] = {(s, p): [] for s in SOURCES for p in SPLITS}
    for source, read in SOURCES.items():
        for row in read(root, seed):
            parts[(source, split_of(row.context[2], seed))].append(row)
    return Converted(parts)


def write_converted(converted: Converted, out: Path) -> dict[str, dict[str, int]]:
    """Write ``{train,dev,test}.tsv`` (both sources) and ``{dev,test}_{source}.tsv``; returns the counts
    (file -> contexts, rows)."""
    files = {f"{split}.tsv": converted.split(split) for split in SPLITS}
    for (source, split), rows in converted.parts.items():
        if split != "train":
            files[f"{split}_{source}.tsv"] = rows
    counts = {}
    for name, rows in files.items():
        write_replies(out / name, rows)
        counts[name] = {"contexts": len({r.context_id for r in rows}), "rows": len(rows)}
    return counts

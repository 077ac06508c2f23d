"""Files of the graded reply-ranking task (Yandex Algorithm 2018 ML track, "General Conversation" format).

Plain tab-separated text, no header, no quoting (a field may hold ``"``), one candidate reply per line:

- training (labelled): ``context_id, context_2, context_1, context_0, reply_id, reply, label, confidence``
  (label ``good`` / ``neutral`` / ``bad``; confidence in [0, 1], the annotators' agreement);
- test: the same rows stopped after ``reply`` (6 fields);
- submission: ``context_id reply_id`` per test row (space or tab), contexts in ascending ``context_id`` order,
  each context's replies best first.

The context is oldest first; a context of fewer than 3 utterances leaves the first fields empty. Every malformed
line raises :class:`~clarion.errors.DataError` naming the file and line.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from clarion.data.io import atomic_writer, read_text
from clarion.errors import DataError, InputError

RELEVANCE: dict[str, int] = {"good": 2, "neutral": 1, "bad": 0}
"""Label -> graded relevance used by the metric."""
LABELLED_FIELDS = 8
TEST_FIELDS = 6
_ID = re.compile(r"\S+")


@dataclass(frozen=True)
class ReplyRow:
    """One candidate reply of one context, as read from (or written to) a task file."""

    context_id: str
    context: tuple[str, str, str]
    """``(context_2, context_1, context_0)`` as written: oldest first, leading ones possibly empty."""
    reply_id: str
    reply: str
    label: str | None = None
    confidence: float | None = None
    line: int = 0

    @property
    def utterances(self) -> list[str]:
        """The context's non-empty utterances, oldest first."""
        return [u for u in self.context if u.strip()]

    @property
    def relevance(self) -> int:
        if self.label is None:
            raise InputError(f"context {self.context_id} reply {self.reply_id} has no label")
        return RELEVANCE[self.label]


def context_key(context_id: str) -> tuple[int, int | str]:
    """Sort key of context ids: numbers in numeric order, before any other id (in string order)."""
    return (0, int(context_id)) if context_id.isdigit() else (1, context_id)


def _check_id(value: str, what: str, path, number: int) -> str:
    if not _ID.fullmatch(value):
        raise DataError(path, f"{what} must be one non-empty word, got {value!r}", number)
    return value


def _confidence(text: str, path, number: int) -> float:
    try:
        value = float(text)
    except ValueError:
        raise DataError(path, f"confidence must be a number in [0, 1], got {text!r}", number) from None
    if not (math.isfinite(value) and 0.0 <= value <= 1.0):
        raise DataError(path, f"confidence must be in [0, 1], got {text!r}", number)
    return value


def _parse_line(path, number: int, text: str, labelled: bool) -> ReplyRow:
    fields = text.split("\t")
    expected = LABELLED_FIELDS if labelled else TEST_FIELDS
    if len(fields) != expected:
        kind = "a labelled (training) file" if labelled else "a test file"
        raise DataError(path, f"expected {expected} tab-separated fields for {kind}, found {len(fields)}", number)
    context_id = _check_id(fields[0], "context_id", path, number)
    reply_id = _check_id(fields[4], "reply_id", path, number)
    if not fields[3].strip():
        raise DataError(path, "context_0 (the last utterance) is empty", number)
    label = confidence = None
    if labelled:
        label = fields[6].strip()
        if label not in RELEVANCE:
            raise DataError(path, f"unknown label {fields[6]!r}; expected one of: {', '.join(RELEVANCE)}", number)
        confidence = _confidence(fields[7].strip(), path, number)
    context = (fields[1], fields[2], fields[3])
    return ReplyRow(context_id, context, reply_id, fields[5], label, confidence, number)


def read_replies(path: str | Path, labelled: bool | None = None) -> list[ReplyRow]:
    """The rows of a training (8 fields) or test (6 fields) file. ``labelled=None`` takes the kind from the
    first line, and every line must then have the same number of fields. A (context_id, reply_id) pair given
    twice, or a context whose utterances differ between its lines, is an error."""
    rows: list[ReplyRow] = []
    seen: dict[tuple[str, str], int] = {}
    contexts: dict[str, tuple[str, str, str]] = {}
    for number, text in enumerate(read_text(path).split("\n"), start=1):
        if not text.strip():
            continue
        if labelled is None:
            labelled = text.count("\t") + 1 == LABELLED_FIELDS
        row = _parse_line(path, number, text, labelled)
        key = (row.context_id, row.reply_id)
        if key in seen:
            raise DataError(path, f"context {key[0]} reply {key[1]} repeats line {seen[key]}", number)
        seen[key] = number
        if contexts.setdefault(row.context_id, row.context) != row.context:
            raise DataError(path, f"context {row.context_id} has other utterances than on an earlier line", number)
        rows.append(row)
    return rows


def group_contexts(rows: Iterable[ReplyRow]) -> dict[str, list[ReplyRow]]:
    """Rows by context id (in first-seen order), each context's rows in file order."""
    groups: dict[str, list[ReplyRow]] = {}
    for row in rows:
        groups.setdefault(row.context_id, []).append(row)
    return groups


def _clean(text: str, what: str) -> str:
    if "\t" in text or "\n" in text or "\r" in text:
        raise InputError(f"{what} holds a tab or line break, which the format cannot carry: {text[:60]!r}")
    return text


def format_row(row: ReplyRow, labelled: bool) -> str:
    """One line (without newline) of a training (``labelled``) or test file."""
    fields = [row.context_id, *row.context, row.reply_id, row.reply]
    if labelled:
        if row.label not in RELEVANCE or row.confidence is None:
            raise InputError(
                f"context {row.context_id} reply {row.reply_id}: a labelled row needs label and confidence"
            )
        fields += [row.label, f"{row.confidence:.4g}"]
    return "\t".join(_clean(f, f"context {row.context_id} reply {row.reply_id}") for f in fields)


def write_replies(path: str | Path, rows: Sequence[ReplyRow], labelled: bool = True) -> None:
    """Write a training (``labelled``) or test file, atomically."""
    lines = [format_row(row, labelled) for row in rows]
    with atomic_writer(path) as out:
        out.write("".join(line + "\n" for line in lines))


def write_submission(path: str | Path, ranking: Mapping[str, Sequence[str]]) -> None:
    """Write ``context_id -> reply ids best first`` as a submission: contexts in ascending id order."""
    with atomic_writer(path) as out:
        for context_id in sorted(ranking, key=context_key):
            for reply_id in ranking[context_id]:
                out.write(f"{context_id} {reply_id}\n")


def read_submission(
    path: str | Path, rows: Sequence[ReplyRow], rows_path: str | Path | None = None
) -> dict[str, list[str]]:
    """A submission checked against the test (or labelled) ``rows`` it answers: one line per row, the same
    (context_id, reply_id) pairs, each context's lines together, contexts in ascending id order. Returns
    ``context_id -> reply ids in submitted order``."""
    expected = {(r.context_id, r.reply_id) for r in rows}
    ranking: dict[str, list[str]] = {}
    seen: set[tuple[str, str]] = set()
    last: str | None = None
    count = 0
    for number, text in enumerate(read_text(path).split("\n"), start=1):
        if not text.strip():
            continue
        fields = text.split()
        if len(fields) != 2:
            raise DataError(path, f"expected 2 fields (context_id reply_id), found {len(fields)}", number)
        pair = (fields[0], fields[1])
        if pair not in expected:
            source = f" in {rows_path}" if rows_path else ""
            raise DataError(path, f"context {pair[0]} reply {pair[1]} is not a row{source}", number)
        if pair in seen:
            raise DataError(path, f"context {pair[0]} reply {pair[1]} is given twice", number)
        if pair[0] != last:
            if pair[0] in ranking:
                raise DataError(path, f"context {pair[0]} appears again after other contexts", number)
            if last is not None and context_key(pair[0]) < context_key(last):
                raise DataError(
                    path, f"context {pair[0]} comes after {last}: contexts must be in ascending order", number
                )
            last = pair[0]
        seen.add(pair)
        ranking.setdefault(pair[0], []).append(pair[1])
        count += 1
    if count != len(expected):
        missing = sorted(expected - seen, key=lambda p: (context_key(p[0]), p[1]))[0]
        raise DataError(
            path, f"{count} lines for {len(expected)} rows; missing e.g. context {missing[0]} reply {missing[1]}"
        )
    return ranking

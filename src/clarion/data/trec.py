"""TREC run and qrel files, shared by every task.

- run:  ``query_id Q0 doc_id rank score run_id`` (six whitespace-separated fields)
- qrel: ``query_id 0 doc_id relevance`` (four fields)

:func:`read_run_rows` keeps every row in file order (official scorers need the rows as written);
:func:`read_run` gives the :data:`~clarion.types.Run` dict (a candidate repeated with another score is an error).
Writers are atomic: on error nothing is left at the destination.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from clarion.bounds import Bound
from clarion.data.io import atomic_writer, read_lines
from clarion.errors import DataError, InputError
from clarion.types import Qrels, Run, check_run, ranked_ids


@dataclass(frozen=True, slots=True)
class RunRow:
    """One line of a TREC run."""

    query_id: str
    doc_id: str
    rank: int
    score: float
    run_id: str
    line: int = 0


def _number(path, line: int, value: str, field: str, kind=float):
    try:
        number = kind(value)
    except ValueError:
        raise DataError(path, f"{field} is not a number: {value!r}", line=line) from None
    if isinstance(number, float) and not math.isfinite(number):
        raise DataError(path, f"{field} is not finite: {value!r}", line=line)
    return number


def read_run_rows(path: str | Path) -> list[RunRow]:
    """Every row of a TREC run file, in file order."""
    rows = []
    for line, text in read_lines(path):
        fields = text.split()
        if len(fields) != 6:
            raise DataError(
                path, f"expected 6 fields (query_id Q0 doc_id rank score run_id), found {len(fields)}", line
            )
        qid, _, doc, rank, score, run_id = fields
        rows.append(
            RunRow(
                qid,
                doc,
                _number(path, line, rank, "rank", int),
                _number(path, line, score, "score"),
                run_id,
                line,
            )
        )
    return rows


def rows_to_run(rows: list[RunRow]) -> Run:
    """Group run rows into a :data:`Run`; the first row of a (query, doc) pair wins."""
    run: Run = {}
    for row in rows:
        run.setdefault(row.query_id, {}).setdefault(row.doc_id, row.score)
    return run


def read_run(path: str | Path) -> Run:
    """A TREC run file as a :data:`Run` dict. A (query, doc) pair may be repeated with the same score; another
    score is an error, as there is no telling which one was meant (as for qrels)."""
    rows = read_run_rows(path)
    first: dict[tuple[str, str], RunRow] = {}
    for row in rows:
        seen = first.setdefault((row.query_id, row.doc_id), row)
        if seen.score != row.score:
            raise DataError(
                path,
                f"query {row.query_id}, doc {row.doc_id}: score {row.score:g} contradicts {seen.score:g}"
                f" on line {seen.line}",
                row.line,
            )
    return rows_to_run(rows)


def strictly_decreasing(scores: Sequence[float], step: float = 1e-6) -> list[float]:
    """Scores rounded to 6 decimals and nudged down so that each is strictly below the previous one.

    The official ClariQ scorer drops rows whose (topic, score) repeats, so tied scores must never reach a
    run file (written with 6 decimals).
    """
    out: list[float] = []
    for score in scores:
        value = round(float(score), 6)
        if out and value >= out[-1] - step / 2:
            value = round(out[-1] - step, 6)
            if value >= out[-1]:  # |score| so large that a step is below float resolution
                value = math.nextafter(out[-1], -math.inf)
        out.append(value)
    return out


def _check_word(path, value, what: str) -> None:
    """:class:`DataError` unless ``value`` is one whitespace-free word, so that the line reads back as written."""
    if not isinstance(value, str) or value.split() != [value]:
        raise DataError(path, f"{what} must be one word (non-empty, no spaces or newlines), got {value!r}")


def write_run(
    path: str | Path, run: Run, run_id: str = "clarion", depth: int | None = None, strict: bool = False
) -> None:
    """Write ``run`` in TREC format, each query's candidates by score descending (ties by id).

    Ranks are 0-based as in the ClariQ sample runs. ``depth`` (a whole number >= 1) keeps only the top
    candidates per query. ``strict`` writes each query's scores :func:`strictly_decreasing`, so that a scorer
    that drops or reorders tied rows (the official ClariQ tool, trec_eval) sees the order written. Query and
    candidate ids and ``run_id`` must be single words and scores finite numbers, else :class:`DataError`
    (nothing is written).
    """
    _check_word(path, run_id, "run_id")
    if depth is not None and (isinstance(depth, bool) or not isinstance(depth, int) or depth < 1):
        raise DataError(path, f"depth must be a whole number >= 1 or None, got {depth!r}")
    try:
        check_run(run, "run")
    except InputError as err:
        raise DataError(path, str(err)) from None
    with atomic_writer(path) as handle:
        for qid, scores in run.items():
            _check_word(path, qid, "query id")
            order = ranked_ids(scores)[:depth]
            values = [scores[doc] for doc in order]
            if strict:
                values = strictly_decreasing(values)
            for rank, (doc, value) in enumerate(zip(order, values, strict=True)):
                _check_word(path, doc, f"query {qid}: candidate id")
                handle.write(f"{qid} Q0 {doc} {rank} {value:.6f} {run_id}\n")


RELEVANCE = Bound("int", -(2**31), 2**31 - 1)
"""What a relevance grade may be: a whole number that ranx's integer arrays hold (TREC uses -2..4 or so)."""


def read_qrels(path: str | Path) -> Qrels:
    """A TREC qrel file as a :data:`Qrels` dict (query -> doc -> integer relevance).

    A (query, doc) pair may be repeated with the same relevance; another relevance is an error, as there is no
    telling which one was meant.
    """
    qrels: Qrels = {}
    first: dict[tuple[str, str], int] = {}
    for line, text in read_lines(path):
        fields = text.split()
        if len(fields) != 4:
            raise DataError(path, f"expected 4 fields (query_id 0 doc_id relevance), found {len(fields)}", line)
        qid, _, doc, rel = fields
        grade = _number(path, line, rel, "relevance")
        if not RELEVANCE.admits(grade):
            raise DataError(path, f"relevance must be a whole number ({RELEVANCE.text()}), got {rel!r}", line)
        grade = int(grade)  # "1" and "1.0" alike
        judged = qrels.setdefault(qid, {})
        if doc in judged and judged[doc] != grade:
            raise DataError(
                path,
                f"query {qid}, doc {doc}: relevance {grade} contradicts {judged[doc]} on line {first[qid, doc]}",
                line,
            )
        judged[doc] = grade
        first.setdefault((qid, doc), line)
    return qrels


def write_qrels(path: str | Path, qrels: Qrels) -> None:
    """Write ``qrels`` in TREC qrel format, atomically.

    Ids must be single words and relevance whole numbers (``2`` or ``2.0``), else :class:`DataError` (nothing
    is written).
    """
    if not isinstance(qrels, Mapping):
        raise DataError(path, f"qrels must be a dict query id -> doc id -> relevance, got {type(qrels).__name__}")
    with atomic_writer(path) as handle:
        for qid, docs in qrels.items():
            _check_word(path, qid, "query id")
            if not isinstance(docs, Mapping):
                raise DataError(path, f"query {qid}: expected a dict doc id -> relevance, got {type(docs).__name__}")
            for doc, rel in docs.items():
                _check_word(path, doc, f"query {qid}: doc id")
                if not RELEVANCE.admits(rel):
                    raise DataError(
                        path,
                        f"query {qid}, doc {doc}: relevance must be a whole number ({RELEVANCE.text()}), got {rel!r}",
                    )
                handle.write(f"{qid} 0 {doc} {int(rel)}\n")

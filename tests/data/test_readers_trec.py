"""Readers and writers of the TREC run and qrels formats: round trips, strict (tie-free) runs, atomic writes,
and their exact errors."""

from __future__ import annotations

import pytest
from reader_files import error_of, write_file

from clarion.data.io import _umask
from clarion.data.trec import RunRow, read_qrels, read_run, read_run_rows, write_qrels, write_run
from clarion.errors import DataError


def test_trec_round_trip(tmp_path):
    run = {"q1": {"a": 0.5, "b": 2.0}, "q2": {"c": 1.0}}
    write_run(tmp_path / "run", run, run_id="x")
    assert read_run(tmp_path / "run") == run
    lines = (tmp_path / "run").read_text().splitlines()
    assert lines[0].split()[:3] == ["q1", "Q0", "b"]
    write_qrels(tmp_path / "qrel", {"q": {"a": 2}})
    assert read_qrels(tmp_path / "qrel") == {"q": {"a": 2}}


def test_strict_run_has_no_tied_scores_and_keeps_the_order(tmp_path):
    run = {"q": {"b": 1.0, "a": 1.0, "c": 1.0000001, "d": 0.5}}
    write_run(tmp_path / "loose", run, run_id="x")
    write_run(tmp_path / "strict", run, run_id="x", strict=True)
    loose = [line.split() for line in (tmp_path / "loose").read_text().splitlines()]
    strict = [line.split() for line in (tmp_path / "strict").read_text().splitlines()]
    assert [row[2] for row in strict] == [row[2] for row in loose] == ["c", "a", "b", "d"]
    assert len({row[4] for row in loose}) == 2
    assert [row[4] for row in strict] == ["1.000000", "0.999999", "0.999998", "0.500000"]


def test_writer_leaves_nothing_on_error(tmp_path):
    with pytest.raises(DataError):
        write_run(tmp_path / "run", {"q": {"a": 1.0}}, run_id="two words")
    assert list(tmp_path.iterdir()) == []


def test_writer_refuses_a_directory_and_writes_readable_files(tmp_path):
    (tmp_path / "out").mkdir()
    with pytest.raises(DataError, match="is a directory, expected a file to write"):
        write_run(tmp_path / "out", {"q": {"a": 1.0}})
    assert list((tmp_path / "out").iterdir()) == [] and len(list(tmp_path.iterdir())) == 1
    write_run(tmp_path / "deep" / "run", {"q": {"a": 1.0}})
    mode = (tmp_path / "deep" / "run").stat().st_mode & 0o777
    assert mode == 0o666 & ~_umask()  # what open() would give, not mkstemp's private 0600


# Pinned by mutation testing: every field of a run row and the exact errors (file, line, field).


def test_run_rows_keep_every_field(tmp_path):
    path = write_file(tmp_path, "r.run", "q1 Q0 d1 0 2.5 sys\nq1 Q0 d2 1 -1 sys\n")
    rows = read_run_rows(path)
    assert rows == [RunRow("q1", "d1", 0, 2.5, "sys", 1), RunRow("q1", "d2", 1, -1.0, "sys", 2)]
    assert [type(row.rank) for row in rows] == [int, int]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("q1 Q0 d1 0 1.0 r\nq1 Q0 d2 x 0.5 r\n", "2: rank is not a number: 'x'"),
        ("q1 Q0 d1 1.5 1.0 r\n", "1: rank is not a number: '1.5'"),
    ],
)
def test_a_bad_rank_names_file_line_and_field(tmp_path, text, message):
    path = write_file(tmp_path, "r.run", text)
    assert error_of(read_run_rows, path) == f"{path}:{message}"


def test_contradicting_qrels_name_the_file(tmp_path):
    path = write_file(tmp_path, "q.qrel", "q1 0 d1 1\nq1 0 d1 0\n")
    assert error_of(read_qrels, path) == f"{path}:2: query q1, doc d1: relevance 0 contradicts 1 on line 1"


def test_strictly_decreasing_keeps_scores_already_a_step_apart():
    from clarion.data.trec import strictly_decreasing

    # 0.999998 is two steps (1e-6) below 1.0: kept; the tie after it goes one step down
    assert strictly_decreasing([1.0, 0.999998, 0.999998]) == [1.0, 0.999998, 0.999997]

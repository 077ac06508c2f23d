"""The TREC writers refuse what they could not write as a readable line; nothing is left at the destination."""

from __future__ import annotations

import pytest

from clarion.data.trec import read_qrels, read_run, write_qrels, write_run
from clarion.errors import DataError

NAN, INF = float("nan"), float("inf")


@pytest.mark.parametrize(
    ("run", "kwargs", "message"),
    [
        ({"q": {"a": NAN}}, {}, "candidate 'a': score must be a finite number"),
        ({"q": {"a": INF}}, {}, "candidate 'a': score must be a finite number"),
        ({"q": {"a": None}}, {}, "score must be a finite number"),
        ({"q": {"a": "1.0"}}, {}, "score must be a finite number"),
        ({"q": {1: 1.0}}, {}, "candidate id 1 must be a string"),
        ({"q": {"a b": 1.0}}, {}, "candidate id must be one word"),
        ({"q": {"a\nb": 1.0}}, {}, "candidate id must be one word"),
        ({"q": {"": 1.0}}, {}, "candidate id must be one word"),
        ({"q 1": {"a": 1.0}}, {}, "query id must be one word"),
        ({"q": {"a": 1.0}}, {"depth": "3"}, "depth must be a whole number"),
        ({"q": {"a": 1.0, "b": 0.5}}, {"depth": -1}, "depth must be a whole number"),
        ({"q": {"a": 1.0}}, {"depth": 0}, "depth must be a whole number"),
        ({"q": {"a": 1.0}}, {"run_id": 5}, "run_id must be one word"),
        ([1.0], {}, "run must be a dict"),
    ],
)
def test_write_run_rejects_what_it_cannot_write(tmp_path, run, kwargs, message):
    with pytest.raises(DataError, match=message):
        write_run(tmp_path / "out.run", run, **kwargs)
    assert list(tmp_path.iterdir()) == []


def test_write_run_valid_input_is_unchanged(tmp_path):
    write_run(tmp_path / "r", {"q": {"a": 1, "b": 2.5, "c": 0.0}}, depth=2)
    assert read_run(tmp_path / "r") == {"q": {"b": 2.5, "a": 1.0}}


@pytest.mark.parametrize(
    ("qrels", "message"),
    [
        ({"q": {"a b": 1}}, "doc id must be one word"),
        ({"q 1": {"a": 1}}, "query id must be one word"),
        ({"q": {"": 1}}, "doc id must be one word"),
        ({"q": {"a": "x"}}, "relevance must be a whole number"),
        ({"q": {"a": NAN}}, "relevance must be a whole number"),
        ({"q": {"a": None}}, "relevance must be a whole number"),
        ({"q": {"a": 1.7}}, "relevance must be a whole number"),
        ({"q": [1]}, "expected a dict"),
        (None, "qrels must be a dict"),
    ],
)
def test_write_qrels_rejects_what_it_cannot_write(tmp_path, qrels, message):
    with pytest.raises(DataError, match=message):
        write_qrels(tmp_path / "out.qrel", qrels)
    assert list(tmp_path.iterdir()) == []


def test_write_qrels_accepts_whole_floats(tmp_path):
    write_qrels(tmp_path / "q", {"q": {"a": 2.0, "b": 0}})
    assert read_qrels(tmp_path / "q") == {"q": {"a": 2, "b": 0}}


# Pinned by mutation testing: the default run id, depth 1, and every writer error naming the file.

WORD = "must be one word (non-empty, no spaces or newlines), got"


def test_write_run_default_run_id_and_depth_one(tmp_path):
    write_run(tmp_path / "r", {"q": {"a": 1.0, "b": 2.0}}, depth=1)
    assert (tmp_path / "r").read_text() == "q Q0 b 0 2.000000 clarion\n"


@pytest.mark.parametrize(
    ("run", "kwargs", "message"),
    [
        ({"q": {"a": 1.0}}, {"run_id": "a b"}, f"run_id {WORD} 'a b'"),
        ({"q": {"a": 1.0}}, {"depth": 0}, "depth must be a whole number >= 1 or None, got 0"),
        ({"q": {"a": NAN}}, {}, "run, query 'q', candidate 'a': score must be a finite number, got nan"),
        ({"q 1": {"a": 1.0}}, {}, f"query id {WORD} 'q 1'"),
        ({"q": {"a b": 1.0}}, {}, f"query q: candidate id {WORD} 'a b'"),
    ],
)
def test_write_run_errors_name_the_file(tmp_path, run, kwargs, message):
    path = tmp_path / "out.run"
    with pytest.raises(DataError) as err:
        write_run(path, run, **kwargs)
    assert str(err.value) == f"{path}: {message}"


@pytest.mark.parametrize(
    ("qrels", "message"),
    [
        (None, "qrels must be a dict query id -> doc id -> relevance, got NoneType"),
        (["q"], "qrels must be a dict query id -> doc id -> relevance, got list"),
        ({"q 1": {"a": 1}}, f"query id {WORD} 'q 1'"),
        ({"q": [1]}, "query q: expected a dict doc id -> relevance, got list"),
        ({"q": {"a b": 1}}, f"query q: doc id {WORD} 'a b'"),
        (
            {"q": {"a": 1.5}},
            "query q, doc a: relevance must be a whole number (int in [-2147483648, 2147483647]), got 1.5",
        ),
    ],
)
def test_write_qrels_errors_name_the_file(tmp_path, qrels, message):
    path = tmp_path / "out.qrel"
    with pytest.raises(DataError) as err:
        write_qrels(path, qrels)
    assert str(err.value) == f"{path}: {message}"

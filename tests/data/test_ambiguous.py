"""Readers of AmbigNQ, clarion's everyday requests and follow-ups."""

from __future__ import annotations

import json

import pytest

from clarion.data.ambiguous import read_ambignq, read_everyday, read_followups
from clarion.errors import DataError


def test_ambignq_records_read_as_labelled_requests_with_their_readings(tmp_path):
    path = tmp_path / "train_light.json"
    records = [
        {"id": "1", "question": "when did the movie come out?", "annotations": [
            {"type": "multipleQAs", "qaPairs": [{"question": "premiere?", "answer": ["2002"]},
                                                 {"question": "wide release?", "answer": ["2003"]}]}]},
        {"id": "2", "question": "who wrote dracula?", "annotations": [{"type": "singleAnswer", "answer": ["Stoker"]}]},
    ]  # fmt: skip
    path.write_text(json.dumps(records))
    ambiguous, clear = read_ambignq(path)
    assert ambiguous.ask and ambiguous.options == ("premiere?", "wide release?") and ambiguous.source == "ambignq"
    assert not clear.ask and clear.options == ()


def test_a_malformed_ambignq_record_names_the_file_and_record(tmp_path):
    path = tmp_path / "train_light.json"
    path.write_text(json.dumps([{"id": "1", "annotations": []}]))
    with pytest.raises(DataError, match=r"train_light.json: record 0: not an AmbigNQ record"):
        read_ambignq(path)


def test_the_packaged_everyday_set_has_both_kinds_and_what_a_question_asks_for():
    rows = read_everyday()
    assert len(rows) >= 300 and 0.4 < sum(r.ask for r in rows) / len(rows) < 0.6
    assert all(r.asks_for and r.question for r in rows if r.ask)
    assert {"shopping", "travel", "how-to", "facts", "entertainment", "advice"} <= {r.domain for r in rows}
    assert len({r.id for r in rows}) == len(rows) and len(read_followups()) >= 200


def test_a_bad_everyday_line_names_the_file_and_line(tmp_path):
    path = tmp_path / "requests.jsonl"
    path.write_text('{"id": "a", "request": "cheap flights", "ask": true}\n{"id": "b", "request": "", "ask": false}\n')
    with pytest.raises(DataError, match=r"requests.jsonl:2: not an everyday request"):
        read_everyday(path)
    bad = tmp_path / "followups.jsonl"
    bad.write_text('{"id": "f", "request": "x", "question": "y?", "reply": "z"}\n')
    with pytest.raises(DataError, match=r"followups.jsonl:1: not a follow-up"):
        read_followups(bad)

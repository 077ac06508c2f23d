"""The documented mapping from GRADE ratings and DailyDialog++ kinds to labels and confidence."""

from __future__ import annotations

import json

import pytest

from clarion.data.replies_convert import dailydialog_rows, fine_sources, grade_label, grade_rows, split_of
from clarion.errors import DataError


def test_grade_mapping_by_hand():
    assert grade_label([4, 4, 5, 3]) == ("good", 0.75)  # mean 4.0; 3 of 4 ratings read as good
    assert grade_label([3, 3, 2, 4]) == ("neutral", 0.5)  # mean 3.0
    assert grade_label([1, 2, 3, 4]) == ("neutral", 0.25)  # mean 2.5, the floor of neutral
    assert grade_label([1, 2, 2, 4]) == ("bad", 0.75)  # mean 2.25


def test_grade_rows_group_by_context_and_drop_single_replies(tmp_path):
    records = [
        {"Context": "a|||b", "Response": "r1", "HumanScores": "[5, 5]"},
        {"Context": "a|||b", "Response": "r2", "HumanScores": "[1, 2]"},
        {"Context": "c|||d", "Response": "r3", "HumanScores": "[3]"},
    ]
    path = tmp_path / "g.json"
    path.write_text(json.dumps(records), encoding="utf-8")
    rows = grade_rows(path, seed=1)
    assert {(r.reply, r.label, r.confidence) for r in rows} == {("r1", "good", 1.0), ("r2", "bad", 1.0)}
    assert rows[0].context == ("", "a", "b") and {r.reply_id for r in rows} == {"0", "1"}


def test_fine_sources_split_grade_by_its_dialogue_dataset(tmp_path):
    records = [
        {"Dataset": "convai2_EVAL", "Context": "a|||b", "Response": "r1", "HumanScores": "[5, 5]"},
        {"Dataset": "convai2_EVAL", "Context": "a|||b", "Response": "r2", "HumanScores": "[1, 2]"},
        {"Dataset": "dailydialog_EVAL", "Context": "c|||d", "Response": "r3", "HumanScores": "[3]"},
        {"Dataset": "empatheticdialogues_EVAL", "Context": "e|||f", "Response": "r4", "HumanScores": "[4]"},
        {"Dataset": "empatheticdialogues_EVAL", "Context": "e|||f", "Response": "r5", "HumanScores": "[2]"},
    ]
    (tmp_path / "grade_human_judgement.json").write_text(json.dumps(records), encoding="utf-8")
    for number, name in enumerate(("dailydialog_pp_dev.json", "dailydialog_pp_test.json")):
        record = {"id": number, "context": ["u1", "u2"], "positive_responses": ["p"]}
        record |= {"adversarial_negative_responses": ["a"], "random_negative_responses": ["n"]}
        (tmp_path / name).write_text(json.dumps(record) + "\n", encoding="utf-8")
    sources = fine_sources(tmp_path, seed=1)
    assert {r.reply for r in sources["grade-convai2"]} == {"r1", "r2"}
    assert {r.reply for r in sources["grade-empatheticdialogues"]} == {"r4", "r5"}
    assert "grade-dailydialog" not in sources  # its one context has one reply: nothing to rank
    assert len({r.context_id for r in sources["dailydialog++"]}) == 2


def test_grade_bad_scores_are_refused(tmp_path):
    path = tmp_path / "g.json"
    path.write_text(json.dumps([{"Context": "a", "Response": "r", "HumanScores": "[7]"}]), encoding="utf-8")
    with pytest.raises(DataError, match="record 0: HumanScores"):
        grade_rows(path, seed=1)


def test_dailydialog_keeps_five_or_six_mixed_replies(tmp_path):
    record = {
        "id": 4,
        "context": ["u1", "u2", "u3", "u4"],
        "positive_responses": [f"p{i}" for i in range(5)],
        "adversarial_negative_responses": [f"a{i}" for i in range(5)],
        "random_negative_responses": [f"n{i}" for i in range(5)],
    }
    path = tmp_path / "dailydialog_pp_dev.json"
    path.write_text(json.dumps(record) + "\n", encoding="utf-8")
    rows = dailydialog_rows(path, seed=3)
    assert 5 <= len(rows) <= 6 and rows[0].context == ("u2", "u3", "u4")
    kinds = {r.reply[0] for r in rows}
    assert kinds == {"p", "a", "n"}
    assert all((r.label == "good") == r.reply.startswith("p") and r.confidence == 1.0 for r in rows)


def test_split_is_seeded_and_by_normalised_last_utterance():
    assert split_of("How are you?", 13) == split_of("how are  you", 13)
    parts = [split_of(f"utterance {i}", 13) for i in range(2000)]
    assert 0.65 < parts.count("train") / 2000 < 0.75 and 0.12 < parts.count("test") / 2000 < 0.18

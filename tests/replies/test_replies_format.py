"""The task's file formats: exact fields, and one-line errors naming file and line for bad input."""

from __future__ import annotations

import pytest

from clarion.data.replies import ReplyRow, read_replies, read_submission, write_replies, write_submission
from clarion.errors import DataError, InputError

TRAIN = (
    '7\t\tHi there\tHow are you?\t0\tFine, "thanks".\tgood\t0.9\n'
    "7\t\tHi there\tHow are you?\t1\tBananas.\tbad\t1\n"
    "3\tA\tB\tC\t5\tOk\tneutral\t0\n"
)


def write(tmp_path, text, name="f.tsv"):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_training_rows_keep_every_field_and_quotes(tmp_path):
    rows = read_replies(write(tmp_path, TRAIN))
    assert [(r.context_id, r.reply_id, r.label, r.confidence) for r in rows] == [
        ("7", "0", "good", 0.9),
        ("7", "1", "bad", 1.0),
        ("3", "5", "neutral", 0.0),
    ]
    assert rows[0].reply == 'Fine, "thanks".'
    assert rows[0].context == ("", "Hi there", "How are you?") and rows[0].utterances == ["Hi there", "How are you?"]
    assert rows[2].relevance == 1 and rows[2].line == 3


def test_write_then_read_is_identity(tmp_path):
    rows = read_replies(write(tmp_path, TRAIN))
    write_replies(tmp_path / "out.tsv", rows)
    assert (tmp_path / "out.tsv").read_text(encoding="utf-8") == TRAIN
    write_replies(tmp_path / "test.tsv", rows, labelled=False)
    test = read_replies(tmp_path / "test.tsv")
    assert all(r.label is None for r in test) and (tmp_path / "test.tsv").read_text().count("\t") == 15


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("7\t\tHi\tHow?\t0\tFine\tgood", "expected 8 tab-separated fields"),
        ("7\t\tHi\tHow?\t0\tFine\tgreat\t0.5", "unknown label 'great'"),
        ("7\t\tHi\tHow?\t0\tFine\tgood\t1.5", "confidence must be in [0, 1]"),
        ("7\t\tHi\tHow?\t0\tFine\tgood\t-0.1", "confidence must be in [0, 1]"),
        ("7\t\tHi\tHow?\t0\tFine\tgood\tnan", "confidence must be in [0, 1]"),
        ("7\t\tHi\tHow?\t0\tFine\tgood\thigh", "confidence must be a number"),
        ("7\t\tHi\t\t0\tFine\tgood\t1", "context_0 (the last utterance) is empty"),
        ("7\t\tHi\tHow?\t0\tFine\tgood\t1\n7\t\tHi\tHow?\t0\tAgain\tbad\t1", "repeats line 1"),
        ("7\t\tHi\tHow?\t0\tFine\tgood\t1\n7\t\tHo\tHow?\t1\tAgain\tbad\t1", "other utterances"),
        ("7 8\t\tHi\tHow?\t0\tFine\tgood\t1", "context_id must be one non-empty word"),
    ],
)
def test_bad_training_lines_name_file_and_line(tmp_path, line, message):
    path = write(tmp_path, "7\t\tHi\tHow?\t9\tOk\tgood\t1\n" * 0 + line + "\n")
    with pytest.raises(DataError) as err:
        read_replies(path, labelled=True)
    assert message in str(err.value) and str(err.value).startswith(f"{path}:")
    assert "\n" not in str(err.value)


def test_test_file_with_a_labelled_line_is_refused(tmp_path):
    path = write(tmp_path, "1\t\t\tHi\t0\tHello\n1\t\t\tHi\t1\tYo\tgood\t1\n")
    with pytest.raises(DataError, match=r"f.tsv:2: expected 6 tab-separated fields"):
        read_replies(path)


def test_writer_refuses_tabs_and_newlines(tmp_path):
    row = ReplyRow("1", ("", "", "Hi"), "0", "a\tb", "good", 1.0)
    with pytest.raises(InputError, match="tab or line break"):
        write_replies(tmp_path / "x.tsv", [row])
    assert not (tmp_path / "x.tsv").exists()


def test_submission_round_trip_orders_contexts_numerically(tmp_path):
    rows = read_replies(write(tmp_path, TRAIN))
    write_submission(tmp_path / "sub.txt", {"7": ["1", "0"], "3": ["5"]})
    assert (tmp_path / "sub.txt").read_text() == "3 5\n7 1\n7 0\n"
    assert read_submission(tmp_path / "sub.txt", rows) == {"3": ["5"], "7": ["1", "0"]}
    tabbed = write(tmp_path, "3\t5\n7\t1\n7\t0\n", "tab.txt")
    assert read_submission(tabbed, rows) == {"3": ["5"], "7": ["1", "0"]}


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("3 5\n7 1\n", "2 lines for 3 rows; missing e.g. context 7 reply 0"),
        ("3 5\n7 1\n7 0\n7 2\n", "sub.txt:4: context 7 reply 2 is not a row in "),
        ("3 5\n7 1\n7 1\n", "sub.txt:3: context 7 reply 1 is given twice"),
        ("7 1\n7 0\n3 5\n", "sub.txt:3: context 3 comes after 7"),
        ("7 1\n3 5\n7 0\n", "sub.txt:2: context 3 comes after 7"),
        ("3 5 x\n7 1\n7 0\n", "sub.txt:1: expected 2 fields"),
    ],
)
def test_bad_submissions(tmp_path, text, message):
    rows = read_replies(write(tmp_path, TRAIN, "labels.tsv"))
    with pytest.raises(DataError) as err:
        read_submission(write(tmp_path, text, "sub.txt"), rows, tmp_path / "labels.tsv")
    assert message in str(err.value)


def test_context_seen_again_after_another_is_refused(tmp_path):
    rows = read_replies(write(tmp_path, "1\t\t\tA\t0\tx\n1\t\t\tA\t1\ty\n2\t\t\tB\t0\tz\n", "t.tsv"))
    with pytest.raises(DataError, match="sub.txt:3: context 1 appears again"):
        read_submission(write(tmp_path, "1 0\n2 0\n1 1\n", "sub.txt"), rows)

"""What every reader shares: one-line errors naming file and line on malformed, empty, missing or unreadable
input, the restricted unpickler, JSON limits (nesting, lone surrogates), output-path probes and argument checks."""

from __future__ import annotations

import os
import pickle

import pytest
from reader_files import LABEL_HEADER, write_file

from clarion.data.clariq import (
    read_eval_json,
    read_eval_table,
    read_labels,
    read_multi_turn_run,
    read_question_bank,
    read_topics,
)
from clarion.data.io import as_path, check_output, check_output_dir, read_json
from clarion.data.safe_pickle import load_pickle
from clarion.data.trec import read_qrels, read_run_rows
from clarion.errors import DataError, InputError, check_unicode


@pytest.mark.parametrize(
    ("reader", "text", "message", "line"),
    [
        (read_labels, "topic_id\tinitial_request\n1\tx\n", "missing column", 1),
        (read_labels, LABEL_HEADER + "1\tx\td\t2\tF1\tf\tQ1\tq\n", "expected 9 fields, found 8", 2),
        (read_labels, LABEL_HEADER + "1\tx\td\tnine\tF1\tf\tQ1\tq\ta\n", "clarification_need must be 1-4", 2),
        (read_labels, LABEL_HEADER, "no data rows", None),
        (read_topics, "topic_id\tinitial_request\n1\t \n", "empty initial_request", 2),
        (read_topics, "topic_id\tinitial_request\n1\ta\nx 2\tb\n", "topic_id must be one word", 3),
        (read_topics, "topic_id\tinitial_request\n1\ta\n1\tb\n", "topic 1 repeated with another", 3),
        (
            read_labels,
            LABEL_HEADER + "1\tx\td\t2\tF1\tf\tQ1\tq\ta\n1\tx\td\t3\tF1\tf\tQ2\tq\ta\n",
            "topic 1 repeated with another clarification_need",
            3,
        ),
        (read_labels, LABEL_HEADER + "1\tx\td\t2\tF1\tf\t\tq\ta\n", "empty question_id", 2),
        (read_labels, LABEL_HEADER + "1\tx\td\t2\tF 1\tf\tQ1\tq\ta\n", "facet_id must be one word", 2),
        (read_topics, "topic_id\tinitial_request\nT\x001\ta\n", "topic_id must not hold control characters", 2),
        (
            read_topics,
            "topic_id\tinitial_request\t\n1\tTell me about iron\n",
            r"expected 3 fields, found 2 \(the header's column 3 has no name: a stray tab\?\)",
            2,
        ),
        (read_question_bank, "question_id\tquestion\nQ 1\ta\n", "question_id must be one word", 2),
        (read_question_bank, "question_id\tquestion\nQ1\ta\nQ1\tb\n", "duplicate question_id", 3),
        (read_run_rows, "1 Q0 Q1 0 1.0 r\n1 Q0 Q2 1 high r\n", "score is not a number", 2),
        (read_run_rows, "1 Q0 Q1 0 1.0\n", "expected 6 fields", 1),
        (read_run_rows, "1 Q0 Q1 0 nan r\n", "not finite", 1),
        (read_qrels, "1 0 d\n", "expected 4 fields", 1),
        (read_qrels, "1 0 d x\n", "relevance is not a number", 1),
        (read_multi_turn_run, "1 0 unquoted 0 1 r\n", "expected: context_id", 1),
        (read_eval_json, '{"MRR100": {"F1": "high"}}', "not a number", None),
        (read_eval_json, '{"MRR100": \n [1, 2}', "invalid JSON", 2),
    ],
)
def test_malformed_input_names_file_and_line(tmp_path, reader, text, message, line):
    path = write_file(tmp_path, "input.txt", text)
    with pytest.raises(DataError, match=message) as err:
        reader(path)
    assert str(path) in str(err.value)
    assert err.value.line == line
    assert "\n" not in str(err.value)


@pytest.mark.parametrize("reader", [read_labels, read_run_rows, read_qrels, read_topics, read_eval_json])
def test_empty_and_missing_files(tmp_path, reader):
    with pytest.raises(DataError, match="empty"):
        reader(write_file(tmp_path, "empty", "  \n"))
    with pytest.raises(DataError, match="no such file"):
        reader(tmp_path / "absent")
    with pytest.raises(DataError, match="directory"):
        reader(tmp_path)


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads everything")
def test_unreadable_file(tmp_path):
    path = write_file(tmp_path, "secret", "1 0 d 1\n")
    path.chmod(0)
    with pytest.raises(DataError, match="permission denied"):
        read_qrels(path)


class Evil:
    def __reduce__(self):
        return (os.system, ("echo pwned",))


def test_restricted_unpickler(tmp_path):
    table = {"MRR100": {"F1": {"Q1": {"no_answer": 0.1, "with_answer": 0.2}, "MIN": {"with_answer": 0.0}}}}
    (tmp_path / "ok.pkl").write_bytes(pickle.dumps(table))
    assert read_eval_table(tmp_path / "ok.pkl") == table
    (tmp_path / "evil.pkl").write_bytes(pickle.dumps(Evil()))
    with pytest.raises(DataError, match="refused to load posix.system|refused to load os.system"):
        load_pickle(tmp_path / "evil.pkl")
    (tmp_path / "bad.pkl").write_bytes(b"not a pickle")
    with pytest.raises(DataError, match="pickle"):
        load_pickle(tmp_path / "bad.pkl")


def test_deeply_nested_json_is_a_data_error(tmp_path):
    path = tmp_path / "deep.json"
    path.write_text("[" * 100_000 + "]" * 100_000)
    with pytest.raises(DataError, match="deep.json: invalid JSON: nested too deeply"):
        read_json(path)


def test_a_lone_surrogate_escape_in_json_is_a_data_error_naming_its_line(tmp_path):
    path = tmp_path / "logs.json"
    path.write_text('[\n  {"text": "ok \\ud83d\\ude00"},\n  {"text": "bad \\ud800 here"}\n]')
    with pytest.raises(DataError, match=r"logs.json:3: not valid Unicode text: a lone surrogate escape \\ud800"):
        read_json(path)
    path.write_text('["\\ude00"]')  # the second half alone
    with pytest.raises(DataError, match="lone surrogate"):
        read_json(path)
    path.write_text('["\\\\ud800", "\\ud83d\\ude00"]')  # an escaped backslash is text; a pair is one character
    assert read_json(path) == ["\\ud800", "\U0001f600"]


def test_check_output_probes_without_creating_anything(tmp_path):
    out = check_output(tmp_path / "new" / "sub" / "out.json")
    assert out.name == "out.json" and list(tmp_path.iterdir()) == []  # parents are made when writing
    (tmp_path / "file").write_text("x")
    with pytest.raises(DataError, match="is not a directory"):
        check_output(tmp_path / "file" / "sub" / "out.json")
    with pytest.raises(DataError, match="is a file, expected a directory"):
        check_output_dir(tmp_path / "file")
    assert check_output_dir(tmp_path / "model") == tmp_path / "model" and not (tmp_path / "model").exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["file"]


@pytest.mark.parametrize("value", [5, None, ["a"]])
def test_as_path_rejects_non_paths(value):
    with pytest.raises(InputError, match="model_dir must be a path"):
        as_path(value, "model_dir")


def test_lone_surrogates_are_input_errors():
    assert check_unicode("café ☕", "request") == "café ☕"
    with pytest.raises(InputError, match="request is not valid Unicode text"):
        check_unicode("obama \ud800", "request")
    with pytest.raises(InputError, match=r"character 3; the byte 0xe9 there is not UTF-8\)$"):
        check_unicode(b"caf\xe9".decode("utf-8", "surrogateescape"), "request")  # how argv holds a Latin-1 byte

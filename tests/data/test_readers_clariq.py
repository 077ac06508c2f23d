"""Readers of the ClariQ files: labels, topics, the question bank, multi-turn runs, conversations and eval
tables (pickle or JSON), the ``ClariQ`` data set (splits, cuts, fingerprints), and their exact errors."""

from __future__ import annotations

import json
import pickle

import pytest
from reader_files import LABEL_HEADER, error_of, write_file

from clarion.data.clariq import (
    ClariQ,
    read_conversations,
    read_eval_json,
    read_eval_table,
    read_labels,
    read_multi_turn_run,
    read_question_bank,
    read_topics,
)
from clarion.data.trec import RunRow, read_qrels
from clarion.errors import DataError


def test_real_clariq_files(clariq_dir):
    train, dev = read_labels(clariq_dir / "train.tsv"), read_labels(clariq_dir / "dev.tsv")
    assert (len(train.requests), len(dev.requests)) == (187, 50)
    assert set(dev.need.values()) <= {1, 2, 3, 4}
    test = read_topics(clariq_dir / "test.tsv")  # header "initial request" with a space
    assert len(test) == 61 and test[0].id == "201" and test[0].request
    bank = read_question_bank(clariq_dir / "question_bank.tsv")
    assert len(bank) == 3941 and bank["Q00001"] == ""
    assert len(read_qrels(clariq_dir / "dev.qrel")) > 100
    rows = read_multi_turn_run(clariq_dir / "sample_runs" / "dev_bm25_multi_turn")
    assert rows[0].doc_id == "do you want to know the cost of an appraisal" and rows[0].score == 5
    assert set(read_eval_json(clariq_dir / "sample_runs" / "dev_bm25.eval")) >= {"MRR100", "NDCG1"}


def test_a_byte_order_mark_is_not_part_of_the_first_column(tmp_path):
    path = tmp_path / "topics.tsv"
    path.write_bytes("topic_id\tinitial_request\n1\tTell me about iron\n".encode("utf-8-sig"))
    assert [t.id for t in read_topics(path)] == ["1"]


@pytest.mark.parametrize(
    "context, message",
    [
        ({"Q1": 0.5}, "context F1: missing the 'MIN' entry"),
        ({"Q1": {"no_answer": 0.1}, "MIN": 0.0}, "question 'Q1': expected a number"),
        ({"Q1": "abc", "MIN": 0.0}, "question 'Q1': expected a number"),
    ],
)
def test_malformed_eval_table_is_refused_with_the_field(tmp_path, context, message):
    path = tmp_path / "table.json"
    path.write_text(json.dumps({"MRR100": {"F1": context}}))
    with pytest.raises(DataError, match=message):
        read_eval_table(path)


def test_conversations(tmp_path):
    conv = {
        968: {
            "topic_id": 8,
            "facet_id": "F0968",
            "initial_request": "I want to know about appraisals.",
            "conversation_context": [{"question": "what kind of appraisals", "answer": "home"}],
        }
    }
    (tmp_path / "conv.pkl").write_bytes(pickle.dumps(conv))
    assert read_conversations(tmp_path / "conv.pkl")["968"]["facet_id"] == "F0968"
    conv[968]["conversation_context"] = "oops"
    (tmp_path / "bad.pkl").write_bytes(pickle.dumps(conv))
    with pytest.raises(DataError, match="conversation_context"):
        read_conversations(tmp_path / "bad.pkl")


def test_fingerprint_covers_the_label_files_read(tmp_path):
    """``test`` labels live in test_with_labels.tsv: a model trained on them must see that file change."""
    for name, text in [
        ("question_bank.tsv", "question_id\tquestion\nQ00001\t\n"),
        ("train.tsv", "topic_id\tinitial_request\tclarification_need\n1\ta\t2\n"),
        ("test.tsv", "topic_id\tinitial_request\n9\tb\n"),
        ("test_with_labels.tsv", "topic_id\tinitial_request\tclarification_need\n9\tb\t2\n"),
    ]:
        (tmp_path / name).write_text(text)
    data = ClariQ(tmp_path)
    before = data.fingerprint(["train", "test"], ["train", "test"])
    pool_only = data.fingerprint(["train"], ["train", "test"])
    (tmp_path / "test_with_labels.tsv").write_text("topic_id\tinitial_request\tclarification_need\n9\tb\t4\n")
    assert data.fingerprint(["train", "test"], ["train", "test"]) != before
    assert data.fingerprint(["train"], ["train", "test"]) == pool_only


def test_labels_restricted_to_some_topics_leave_the_others_known_and_unlabelled(tmp_path):
    """``restricted_to`` cuts one split's labels; the topic files (the request pool) and other splits stay whole, and
    a model's data fingerprint tells the cut apart."""
    header = "topic_id\tinitial_request\tclarification_need\tfacet_id\tfacet_desc\tquestion_id\tquestion\tanswer\n"
    rows = [
        "1\tapple\t2\tF1\tfruit\tQ00002\tthe fruit?\tyes",
        "1\tapple\t2\tF2\tfirm\tQ00003\tthe firm?\tno",
        "2\tjava\t3\tF3\tisland\tQ00004\tthe island?\tyes",
        "3\tiron\t4\tF4\tmetal\tQ00005\tthe metal?\tno",
    ]
    (tmp_path / "train.tsv").write_text(header + "\n".join(rows) + "\n")
    (tmp_path / "dev.tsv").write_text(header + "7\tpython\t2\tF7\tsnake\tQ00006\tthe snake?\tyes\n")
    (tmp_path / "question_bank.tsv").write_text(
        "question_id\tquestion\n" + "".join(f"Q0000{i}\tq{i}\n" for i in range(1, 7))
    )
    data = ClariQ(tmp_path)
    cut = data.restricted_to("train", ["3", "1"])
    train = cut.labels("train")
    assert list(train.requests) == ["1", "3"] and train.need == {"1": 2, "3": 4}  # file order kept
    assert train.questions == {"1": {"Q00002", "Q00003"}, "3": {"Q00005"}} and list(train.facets) == ["1", "3"]
    assert set(train.facet_desc) == {"F1", "F2", "F4"} and set(train.question_text) == {"Q00002", "Q00003", "Q00005"}
    assert set(train.answers) == {("F1", "Q00002"), ("F2", "Q00003"), ("F4", "Q00005")}
    assert [t.id for t in cut.known_requests(["train", "dev"])] == ["1", "2", "3", "7"]  # "java" still known
    assert cut.labels("dev").requests == data.labels("dev").requests and len(data.labels("train").requests) == 3
    fingerprints = {d.fingerprint(["train"], ["train", "dev"]) for d in (data, cut, data.restricted_to("train", ["1"]))}
    assert len(fingerprints) == 3 and cut.fingerprint(["train"]) == data.restricted_to("train", ["1", "3"]).fingerprint(
        ["train"]
    )
    assert cut.fingerprint(["dev"]) == data.fingerprint(["dev"])  # the cut split is not read
    with pytest.raises(DataError, match=r"train.tsv: no such topic in the labels: '9'"):
        data.restricted_to("train", ["1", "9"])


# Pinned by mutation testing: the ClariQ readers' optional columns, JSON detection and shape errors, and the
# exact errors (file, line, field).


def test_labels_optional_columns_and_the_spaced_request_header(tmp_path):
    bare = "topic_id\tinitial request\tclarification_need\tfacet_id\tquestion_id\n1\tapple\t2\tF1\tQ1\n"
    labels = read_labels(write_file(tmp_path, "bare.tsv", bare))
    assert labels.requests == {"1": "apple"}  # "initial request" with a space, as in test.tsv
    no_text = ({"Q1": ""}, {"F1": ""}, {"1": ""}, {("F1", "Q1"): ""})
    assert (labels.question_text, labels.facet_desc, labels.topic_desc, labels.answers) == no_text
    empty = read_labels(write_file(tmp_path, "empty.tsv", LABEL_HEADER + "1\tapple\t\t2\tF1\t\tQ1\t\t\n"))
    assert (empty.question_text, empty.facet_desc, empty.topic_desc, empty.answers) == no_text
    full = read_labels(
        write_file(tmp_path, "full.tsv", LABEL_HEADER + "1\tapple\tThe fruit\t2\tF1\tfruit\tQ1\tthe fruit?\tyes\n")
    )
    assert (full.question_text, full.facet_desc, full.topic_desc, full.answers) == (
        {"Q1": "the fruit?"},
        {"F1": "fruit"},
        {"1": "The fruit"},
        {("F1", "Q1"): "yes"},
    )


@pytest.mark.parametrize(
    ("rows", "message"),
    [
        ("1 2\tx\td\t2\tF1\tf\tQ1\tq\ta\n", "2: topic_id must be one word, got '1 2'"),
        (
            "1\tx\td\t2\tF1\tf\tQ1\tq\ta\n1\ty\td\t2\tF1\tf\tQ2\tq\ta\n",
            "3: topic 1 repeated with another initial_request",
        ),
    ],
)
def test_label_errors_name_file_and_line(tmp_path, rows, message):
    path = write_file(tmp_path, "labels.tsv", LABEL_HEADER + rows)
    assert error_of(read_labels, path) == f"{path}:{message}"


def test_question_bank_needs_both_columns(tmp_path):
    path = write_file(tmp_path, "bank.tsv", "question_id\tq\nQ1\tx\n")
    assert error_of(read_question_bank, path) == f"{path}:1: missing column(s) question; found columns: question_id, q"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("[1]", "expected a JSON object {metric: {id: value}}"),
        ("{}", "expected a JSON object {metric: {id: value}}"),
        ('{"MRR100": [1]}', "metric 'MRR100': expected an object {id: value}"),
        ('{"MRR100": {"F1": NaN}}', "metric 'MRR100', id 'F1': value is not finite: nan"),
    ],
)
def test_eval_json_shape_errors_name_the_file(tmp_path, text, message):
    path = write_file(tmp_path, "run.eval", text)
    assert error_of(read_eval_json, path) == f"{path}: {message}"


def test_multi_turn_rows_keep_every_field(tmp_path):
    path = write_file(tmp_path, "mt.run", '7 0 "are you asking about dogs" 0 2.5 sys\n')
    assert read_multi_turn_run(path) == [RunRow("7", "are you asking about dogs", 0, 2.5, "sys", 1)]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('7 0 "q" x 2.5 sys\n', "rank is not a number: 'x'"),
        ('7 0 "q" 1.5 2.5 sys\n', "rank is not a number: '1.5'"),
        ('7 0 "q" 0 high sys\n', "score is not a number: 'high'"),
        ("7 0 q 0 1 sys\n", 'expected: context_id 0 "question text" rank score run_id'),
    ],
)
def test_multi_turn_errors_name_file_line_and_field(tmp_path, text, message):
    path = write_file(tmp_path, "mt.run", text)
    assert error_of(read_multi_turn_run, path) == f"{path}:1: {message}"


def test_a_table_is_json_when_it_opens_like_json_after_a_bom_and_blanks(tmp_path):
    conv = [
        {"context_id": "c7", "initial_request": "dogs", "conversation_context": []},
        "not a conversation",
        {"initial_request": "cats", "conversation_context": [{"question": "which?", "answer": "big"}]},
    ]
    path = tmp_path / "conv.data"
    path.write_bytes(b"\xef\xbb\xbf\n  " + json.dumps(conv).encode())
    assert read_conversations(path) == {"c7": conv[0], "2": conv[2]}  # keyed by context_id, else by position
    path = write_file(tmp_path, "conv.json", '"just text"')  # a .json name is JSON whatever it holds
    assert error_of(read_conversations, path) == f"{path}: expected a non-empty dict {{context_id: conversation}}"
    (tmp_path / "folder").mkdir()  # unreadable: the pickle loader names the problem
    assert error_of(read_conversations, tmp_path / "folder") == f"{tmp_path / 'folder'}: cannot read: Is a directory"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("{}", "expected a non-empty dict {context_id: conversation}"),
        ('{"c1": 5}', "context c1: expected a dict"),
        ('{"c1": {"conversation_context": []}}', "context c1: missing field 'initial_request'"),
        (
            '{"c1": {"initial_request": "x", "conversation_context": [{"question": "q"}]}}',
            "context c1: conversation_context must be a list of question/answer dicts",
        ),
        (
            '{"c1": {"initial_request": "x", "conversation_context": [["q", "a"]]}}',
            "context c1: conversation_context must be a list of question/answer dicts",
        ),
    ],
)
def test_conversation_errors_name_the_file(tmp_path, text, message):
    path = write_file(tmp_path, "conv.json", text)
    assert error_of(read_conversations, path) == f"{path}: {message}"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("[1]", "expected {metric: {context_id: {question_id: values}}}"),
        ("{}", "expected {metric: {context_id: {question_id: values}}}"),
        ('{"M": [1]}', "metric 'M': expected a dict of contexts"),
        ('{"M": {"F1": [1]}}', "metric 'M', context F1: expected a dict of questions"),
        ('{"M": {"F1": {"Q1": 0.5}}}', "metric 'M', context F1: missing the 'MIN' entry"),
        (
            '{"M": {"F1": {"MIN": 0.0, "Q1": "x"}}}',
            "metric 'M', context F1, question 'Q1': expected a number or {'no_answer': x, 'with_answer': y}, got 'x'",
        ),
        ('{"M": {"F1": {"MIN": 0.0, "Q1": NaN}}}', "metric 'M', context F1, question 'Q1': value is not finite: nan"),
    ],
)
def test_eval_table_errors_name_the_file(tmp_path, text, message):
    path = write_file(tmp_path, "table.json", text)
    assert error_of(read_eval_table, path) == f"{path}: {message}"


def _small_clariq(root):
    header = "topic_id\tinitial_request\ttopic_desc\tclarification_need\tfacet_id\tquestion_id\n"
    (root / "train.tsv").write_text(header + "1\tapple\tan apple\t2\tF1\tQ00002\n3\tiron\tthe metal\t4\tF3\tQ00003\n")
    (root / "dev.tsv").write_text(header + "7\tpython\ta snake\t2\tF7\tQ00004\n")
    (root / "question_bank.tsv").write_text("question_id\tquestion\nQ00001\t\nQ00002\tq2\n")


def test_clariq_reads_each_split_once_and_needs_the_bank(tmp_path):
    (tmp_path / "clariq").mkdir()
    assert ClariQ.load(tmp_path).root == tmp_path / "clariq"
    _small_clariq(tmp_path)
    data = ClariQ(tmp_path)
    assert list(data.labels("train").requests) == ["1", "3"] and list(data.labels("dev").requests) == ["7"]
    cut = data.restricted_to("train", ["3"]).labels("train")
    assert cut.path == str(tmp_path / "train.tsv") and cut.topic_desc == {"3": "the metal"}
    (tmp_path / "question_bank.tsv").unlink()
    with pytest.raises(DataError, match="question_bank.tsv: no such file"):
        data.require_training_files(["train"])


def test_clariq_fingerprint_is_the_files_and_the_cut(tmp_path):
    from clarion.data.io import fingerprint_config, fingerprint_files

    _small_clariq(tmp_path)
    data = ClariQ(tmp_path)
    files = fingerprint_files([tmp_path / "question_bank.tsv", tmp_path / "train.tsv"])
    assert data.fingerprint(["train"]) == files  # no cut: the files alone
    cut = data.restricted_to("train", ["3", "1"])
    assert cut._cut("train") == "train:1,3"
    assert cut.fingerprint(["train"]) == fingerprint_config({"files": files, "restricted": ["train:1,3"]})
    (tmp_path / "question_bank.tsv").write_text("question_id\tquestion\nQ00001\t\nQ00002\tanother q2\n")
    assert data.fingerprint(["train"]) != files  # the bank is part of it

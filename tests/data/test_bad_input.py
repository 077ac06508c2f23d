"""Bad input to the data layer (outputs, pickles, eval tables, TSV quotes, downloads, qrels): each is a one-line
error, and nothing is half-written or lost."""

from __future__ import annotations

import json
import os
import pickle
import struct
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from clarion.data import fetch, safe_pickle
from clarion.data.clariq import read_eval_json, read_eval_table, read_labels, read_topics
from clarion.data.io import check_output
from clarion.data.safe_pickle import load_pickle
from clarion.data.trec import read_qrels, read_run, write_run
from clarion.errors import DataError, NetworkError

# --- 1. outputs that are symbolic links, FIFOs, devices


def test_a_symlinked_output_writes_through_the_link(tmp_path):
    (tmp_path / "real").mkdir()
    target = tmp_path / "real" / "run.txt"
    target.write_text("old\n")
    link = tmp_path / "run.txt"
    link.symlink_to(target)
    write_run(link, {"q": {"d": 1.0}}, run_id="x")
    assert link.is_symlink() and link.readlink() == target
    assert target.read_text() == "q Q0 d 0 1.000000 x\n"
    assert sorted(p.name for p in (tmp_path / "real").iterdir()) == ["run.txt"]  # no temporary file left


def test_a_dangling_symlink_output_creates_its_target(tmp_path):
    link = tmp_path / "run.txt"
    link.symlink_to(tmp_path / "later" / "run.txt")
    write_run(link, {"q": {"d": 1.0}}, run_id="x")
    assert link.is_symlink() and (tmp_path / "later" / "run.txt").is_file()


@pytest.mark.parametrize("via_link", [False, True])
def test_a_fifo_output_is_refused_and_kept(tmp_path, via_link):
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    out = fifo
    if via_link:
        out = tmp_path / "link"
        out.symlink_to(fifo)
    with pytest.raises(DataError, match="is not a regular file") as err:
        check_output(out)
    assert str(err.value).startswith(f"{out}:") and "\n" not in str(err.value)
    with pytest.raises(DataError, match="is not a regular file"):
        write_run(out, {"q": {"d": 1.0}})
    assert fifo.is_fifo() and out.exists() and len(list(tmp_path.iterdir())) == 1 + via_link


@pytest.mark.parametrize("stream", ["/dev/stdout", "/dev/stderr", "/dev/fd/1", "/proc/self/fd/1"])
def test_a_standard_stream_output_is_refused_even_when_redirected_to_a_file(stream):
    # "{ ...; clarion ... --out /dev/stdout; } > log.txt": /dev/stdout is then the regular file log.txt, which an
    # atomic replace would swap for the output alone
    with pytest.raises(DataError, match="is a standard stream") as err:
        check_output(stream)
    assert str(err.value).startswith(f"{stream}:") and "\n" not in str(err.value)


def test_an_output_that_is_an_input_is_refused_and_kept(tmp_path):
    topics = tmp_path / "topics.tsv"
    topics.write_text("topic_id\tinitial_request\n1\tTell me about iron\n")
    link = tmp_path / "link.tsv"
    link.symlink_to(topics)
    for out in (topics, link):
        with pytest.raises(DataError, match=r"is also an input \(.*topics.tsv\), refusing to overwrite it"):
            check_output(out, [None, topics])
    assert topics.read_text().startswith("topic_id")
    assert check_output(tmp_path / "need.txt", [topics]) == tmp_path / "need.txt"


def test_a_symlink_loop_output_is_a_data_error(tmp_path):
    loop = tmp_path / "loop"
    loop.symlink_to(loop)
    with pytest.raises(DataError, match="loop: cannot write"):
        write_run(loop, {"q": {"d": 1.0}})


# --- 2. corrupted pickles


def test_a_pickle_with_an_impossible_frame_length_is_a_data_error(tmp_path):
    path = tmp_path / "overflow.pkl"
    path.write_bytes(b"\x80\x04\x95" + struct.pack("<Q", 2**63 + 5) + pickle.dumps({"a": 1}, protocol=4)[11:])
    with pytest.raises(DataError, match="overflow.pkl: invalid pickle: FRAME length"):
        load_pickle(path)


@pytest.mark.parametrize("error", [MemoryError(), OverflowError("too big"), RecursionError("deep")])
def test_any_failure_to_unpickle_is_a_data_error(tmp_path, monkeypatch, error):
    def fail(self):
        raise error

    monkeypatch.setattr(safe_pickle._RestrictedUnpickler, "load", fail)
    path = tmp_path / "table.pkl"
    path.write_bytes(pickle.dumps({"a": 1}))
    with pytest.raises(DataError, match=f"table.pkl: invalid pickle: {str(error) or type(error).__name__}"):
        load_pickle(path)


# --- 3. non-finite numbers in evaluation tables


@pytest.mark.parametrize(
    ("context", "question"),
    [
        ('{"MIN": NaN, "Q1": 0.5}', "MIN"),
        ('{"MIN": 0.0, "Q1": {"no_answer": 0.1, "with_answer": Infinity}}', "Q1"),
        ('{"MIN": 0.0, "Q1": {"no_answer": -Infinity, "with_answer": 0.2}}', "Q1"),
        ('{"MIN": 0.0, "Q1": 1' + "0" * 400 + "}", "Q1"),
    ],
)
def test_non_finite_values_in_an_eval_table_are_refused(tmp_path, context, question):
    path = tmp_path / "table.json"
    path.write_text('{"MRR100": {"F1": ' + context + "}}")
    with pytest.raises(DataError, match=f"metric 'MRR100', context F1, question '{question}': value is not finite"):
        read_eval_table(path)


def test_non_finite_values_in_a_pickled_eval_table_are_refused(tmp_path):
    path = tmp_path / "table.pkl"
    path.write_bytes(pickle.dumps({"NDCG1": {"7": {"MIN": {"with_answer": float("nan")}, "Q2": 0.1}}}))
    with pytest.raises(DataError, match="table.pkl: metric 'NDCG1', context 7, question 'MIN': value is not finite"):
        read_eval_table(path)


@pytest.mark.parametrize("value", ["NaN", "Infinity", "-Infinity"])
def test_non_finite_values_in_an_eval_file_are_refused(tmp_path, value):
    path = tmp_path / "run.eval"
    path.write_text('{"MRR100": {"F1": 0.5, "F2": ' + value + "}}")
    with pytest.raises(DataError, match="metric 'MRR100', id 'F2': value is not finite"):
        read_eval_json(path)


# --- 4. quotes in topic files


def test_an_unclosed_quote_does_not_swallow_the_following_lines(tmp_path):
    path = tmp_path / "topics.tsv"
    path.write_text('topic_id\tinitial request\n1\t"Best" pizza\n3\t"jaguar speed\n4\tiron\n5\t"quoted ""whole"""\n')
    topics = read_topics(path)
    assert [(t.id, t.request) for t in topics] == [
        ("1", '"Best" pizza'),
        ("3", '"jaguar speed'),
        ("4", "iron"),
        ("5", 'quoted "whole"'),  # a field quoted whole is unquoted, as the official files need
    ]


def test_an_unclosed_quote_keeps_the_line_numbers(tmp_path):
    path = tmp_path / "topics.tsv"
    path.write_text('topic_id\tinitial_request\n1\t"open\n2\ta\tb\n')
    with pytest.raises(DataError, match="expected 2 fields, found 3") as err:
        read_topics(path)
    assert err.value.line == 3


def test_the_official_quoted_descriptions_are_unquoted(clariq_dir):
    labels = read_labels(clariq_dir / "dev.tsv")
    assert labels.facet_desc["F0134"] == 'Who said "all men are created equal"?'
    assert labels.requests["133"] == "all men are created equal"
    assert labels.topic_desc["133"] == 'Who said "all men are created equal"?'  # \\" in the file
    assert "Barack Obama's family" in read_labels(clariq_dir / "train.tsv").topic_desc["1"]  # and apostrophes


# --- 5. downloads


class _Handler(BaseHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def do_GET(self):
        port = self.server.server_address[1]
        if self.path == "/api/data":
            listing = [{"type": "file", "name": "dev.tsv", "download_url": f"http://127.0.0.1:{port}/raw", "size": 9}]
            self._send(json.dumps(listing).encode())
        elif self.path == "/api/sample_runs":
            self._send(b"[]")
        elif self.path.startswith("/object/"):
            self._send(json.dumps({"message": "Not Found"}).encode())
        elif self.path.startswith("/badname/"):
            self._send(json.dumps([{"type": "file", "name": "../x", "download_url": "http://h/x"}]).encode())
        elif self.path == "/raw":  # announces 1000 bytes, sends 300 and hangs up
            self.send_response(200)
            self.send_header("Content-Length", "1000")
            self.end_headers()
            self.wfile.write(b"x" * 300)
        else:
            self.send_error(404)

    def _send(self, body: bytes) -> None:
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


@pytest.fixture
def server():
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    thread = threading.Thread(target=httpd.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()
    httpd.server_close()


def test_a_truncated_download_is_an_error_and_leaves_nothing(tmp_path, server, monkeypatch):
    monkeypatch.setattr(fetch.list_clariq, "__defaults__", (f"{server}/api", 5.0))
    with pytest.raises(NetworkError, match="download incomplete, received 300 of 1000 bytes"):
        fetch.fetch_clariq(tmp_path / "clariq")
    assert list(tmp_path.iterdir()) == []
    (tmp_path / "keep").mkdir()
    with pytest.raises(NetworkError, match="incomplete"):
        fetch.download(fetch.RemoteFile("data", "dev.tsv", f"{server}/raw", 1000), tmp_path / "keep" / "dev.tsv")
    assert list((tmp_path / "keep").iterdir()) == []


@pytest.mark.parametrize(
    ("api", "message"),
    [
        ("object", r"expected a list of files, got an object\): Not Found"),
        ("badname", "entry 0 has an invalid name: '../x'"),
    ],
)
def test_an_unexpected_api_answer_is_a_one_line_error(server, api, message):
    with pytest.raises(NetworkError, match=message) as err:
        fetch.list_clariq(f"{server}/{api}", 5.0)
    assert "\n" not in str(err.value)


# --- 6. contradictory qrels


def test_a_pair_judged_twice_with_different_grades_is_refused(tmp_path):
    path = tmp_path / "q.qrel"
    path.write_text("q1 0 d1 1\nq1 0 d2 0\nq1 0 d1 1\nq1 0 d1 0\n")
    with pytest.raises(DataError, match="query q1, doc d1: relevance 0 contradicts 1 on line 1") as err:
        read_qrels(path)
    assert err.value.line == 4
    path.write_text("q1 0 d1 1\nq1 0 d1 1\n")  # an exact repeat is harmless
    assert read_qrels(path) == {"q1": {"d1": 1}}
    path.write_text("q1 0 d1 2.0\n")  # a whole number written as a float
    assert read_qrels(path) == {"q1": {"d1": 2}}
    path.write_text("q1 0 d1 1.5\n")
    with pytest.raises(DataError, match=r"q.qrel:1: relevance must be a whole number \(int in .*\), got '1.5'"):
        read_qrels(path)
    path.write_text("q1 0 d1 1\nq1 0 d2 100000000000000000000\n")  # ranx holds grades in machine integers
    with pytest.raises(DataError, match="q.qrel:2: relevance must be a whole number .*, got '100000000000000000000'"):
        read_qrels(path)


def test_a_run_scoring_a_pair_twice_differently_is_refused(tmp_path):
    path = tmp_path / "r.run"
    path.write_text("q1 Q0 a 1 3.0 A\nq1 Q0 b 2 2.0 A\nq1 Q0 a 3 1.0 A\n")
    with pytest.raises(DataError, match="r.run:3: query q1, doc a: score 1 contradicts 3 on line 1"):
        read_run(path)
    path.write_text("q1 Q0 a 1 3.0 A\nq1 Q0 a 1 3.0 A\n")  # an exact repeat is harmless
    assert read_run(path) == {"q1": {"a": 3.0}}


# --- 7. line ends and headers


def test_only_a_newline_ends_a_line(tmp_path):
    path = tmp_path / "r.run"
    path.write_text("q1 Q0 a 1 3.0 A\nq1 Q0 b 2 2.0 A\u2028x\nq1 Q0 c 3 x A\n", encoding="utf-8")
    with pytest.raises(DataError, match="r.run:2: expected 6 fields"):  # U+2028 does not split line 2 in two
        read_run(path)


def test_a_tsv_column_named_twice_is_refused(tmp_path):
    path = tmp_path / "t.tsv"
    path.write_text("topic_id\tinitial_request\ttopic_id\n900\tdinosaurs\t901\n")
    with pytest.raises(DataError, match="t.tsv:1: column\\(s\\) 'topic_id' appear more than once"):
        read_topics(path)


def test_a_byte_that_is_not_utf8_is_named_with_its_line(tmp_path):
    path = tmp_path / "t.tsv"
    path.write_bytes(b"topic_id\tinitial_request\n1\tok\n2\tcaf\xe9\n")
    with pytest.raises(DataError, match=r"t.tsv:3: not UTF-8 text \(byte 35, b'\\xe9'\)"):
        read_topics(path)


def test_a_json_table_is_read_as_json_whatever_its_name(tmp_path):
    path = tmp_path / "table.eval"
    path.write_text('{"MRR100": {"F1": {"Q1": 0.5, "MIN": 0.0}}}')
    assert read_eval_table(path) == {"MRR100": {"F1": {"Q1": 0.5, "MIN": 0.0}}}

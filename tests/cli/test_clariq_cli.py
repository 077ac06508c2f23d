"""The `clarion clariq` CLI contract: run formats, JSON output, and one-line errors with exit code 2."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
from collections import defaultdict

import pytest

from clarion.cli import main


def run_cli(args, capsys):
    """Run the clarion entry point in-process; returns (exit code, stdout, stderr)."""
    try:
        main(args)
        code = 0
    except SystemExit as exit_:
        code = exit_.code or 0
    out = capsys.readouterr()
    return code, out.out, out.err


@pytest.fixture(scope="module")
def bm25_test_run(tmp_path_factory, clariq_dir):
    out = tmp_path_factory.mktemp("runs") / "test.run"
    main_args = ["clariq", "rank", "--topics", str(clariq_dir / "test.tsv"), "--out", str(out), "--method", "bm25"]
    try:
        main(main_args)
    except SystemExit as exit_:
        assert not exit_.code
    return out


def test_rank_contract(bm25_test_run, clariq_dir):
    rows = defaultdict(list)
    for line in bm25_test_run.read_text().splitlines():
        topic, q0, qid, rank, score, run_id = line.split()
        rows[topic].append((qid, float(score)))
    topics = [line.split("\t")[0] for line in (clariq_dir / "test.tsv").read_text().splitlines()[1:] if line]
    assert set(rows) == set(topics)
    for ranked in rows.values():
        assert len({q for q, _ in ranked}) >= 30
        scores = [s for _, s in ranked]
        assert all(a > b for a, b in zip(scores, scores[1:], strict=False))


def test_evaluate_questions_json(clariq_dir, capsys):
    code, out, _ = run_cli(
        [
            "clariq",
            "evaluate",
            "questions",
            "--labels",
            str(clariq_dir / "dev.tsv"),
            "--run",
            str(clariq_dir / "sample_runs" / "dev_bm25"),
            "--json",
        ],
        capsys,
    )
    assert code == 0
    metrics = json.loads(out)
    assert set(metrics) == {"Recall5", "Recall10", "Recall20", "Recall30"}
    assert round(metrics["Recall30"], 4) == 0.6913


def test_need_and_evaluate_need(tmp_path, clariq_dir, capsys):
    out = tmp_path / "need.txt"
    code, _, _ = run_cli(
        [
            "clariq",
            "need",
            "--topics",
            str(clariq_dir / "dev.tsv"),
            "--out",
            str(out),
            "--method",
            "majority",
            "--splits",
            "train",
        ],
        capsys,
    )
    assert code == 0
    lines = out.read_text().splitlines()
    assert len(lines) == 50 and all(line.split()[1] in {"1", "2", "3", "4"} for line in lines)
    code, stdout, _ = run_cli(
        ["clariq", "evaluate", "need", "--labels", str(clariq_dir / "dev.tsv"), "--run", str(out), "--json"], capsys
    )
    assert code == 0 and set(json.loads(stdout)) == {"Precision", "Recall", "F1"}


def test_evaluate_documents_single_and_multi_turn(tmp_path, clariq_dir, capsys):
    table = {
        "MRR100": {"F0001": {"Q1": {"no_answer": 0, "with_answer": 0.5}, "MIN": {"with_answer": 0.1}}},
        "P1": {"969": {"do you want to know the cost of an appraisal": {"with_answer": 1.0}, "MIN": 0.0}},
    }
    (tmp_path / "table.json").write_text(json.dumps(table))
    labels = tmp_path / "labels.tsv"
    labels.write_text(
        "topic_id\tinitial_request\tclarification_need\tfacet_id\tquestion_id\n1\tTell me about x\t2\tF0001\tQ1\n"
    )
    (tmp_path / "run").write_text('1 0 Q1 0 2 "r"\n1 0 Q2 1 1 "r"\n')  # a quoted run id: still single turn
    code, out, _ = run_cli(
        [
            "clariq",
            "evaluate",
            "documents",
            "--labels",
            str(labels),
            "--run",
            str(tmp_path / "run"),
            "--eval-dict",
            str(tmp_path / "table.json"),
            "--json",
        ],
        capsys,
    )
    assert code == 0 and json.loads(out)["MRR100"] == 0.5
    code, out, _ = run_cli(
        [
            "clariq",
            "evaluate",
            "documents",
            "--run",
            str(clariq_dir / "sample_runs" / "dev_bm25_multi_turn"),
            "--eval-dict",
            str(tmp_path / "table.json"),
            "--json",
        ],
        capsys,
    )
    assert code == 0 and json.loads(out)["P1"] == 1.0


BAD_RUNS = {
    "wrong field count": ("101 0 Q00001 0 1\n", "expected 6 fields"),
    "non-numeric score": ("101 0 Q00001 0 high bm25\n", "score is not a number"),
    "unknown topic": ("101 0 Q00001 0 1 r\n9999 0 Q00002 0 1 r\n", "unknown topic '9999'"),
    "unknown question": ("101 0 Q99999 0 1 r\n", "unknown question id 'Q99999'"),
    "empty": ("\n", "file is empty"),
}


@pytest.mark.parametrize("case", sorted(BAD_RUNS))
def test_bad_run_one_line_error(case, tmp_path, clariq_dir, capsys):
    text, message = BAD_RUNS[case]
    run = tmp_path / "bad.run"
    run.write_text(text)
    code, out, err = run_cli(
        ["clariq", "evaluate", "questions", "--labels", str(clariq_dir / "dev.tsv"), "--run", str(run)], capsys
    )
    assert code == 2
    assert message in err and str(run) in err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err
    assert out == ""


def test_a_data_directory_named_but_wrong_is_an_error_not_a_skipped_check(tmp_path, clariq_dir, capsys):
    """Without data the question ids cannot be checked; a --data-dir that was given must be right."""
    run = tmp_path / "ok.run"
    run.write_text("101 0 Q00001 0 1 r\n")
    args = ["clariq", "evaluate", "questions", "--labels", str(clariq_dir / "dev.tsv"), "--run", str(run)]
    code, _, err = run_cli([*args, "--data-dir", str(tmp_path / "absent")], capsys)
    assert code == 2 and "absent" in err and "data directory" in err
    code, _, err = run_cli([*args, "--data-dir", str(tmp_path)], capsys)
    assert code == 2 and "dataset 'clariq' not found" in err


def test_bad_topics_leave_no_output(tmp_path, capsys):
    topics = tmp_path / "topics.tsv"
    topics.write_text("topic_id\trequest\n1\tTell me about dinosaurs\n")
    out = tmp_path / "out.run"
    code, _, err = run_cli(["clariq", "rank", "--topics", str(topics), "--out", str(out), "--method", "bm25"], capsys)
    assert code == 2 and "missing column(s) initial_request" in err and f"{topics}:1" in err
    assert not out.exists()
    code, _, err = run_cli(
        ["clariq", "rank", "--topics", str(tmp_path / "absent.tsv"), "--out", str(out), "--method", "bm25"], capsys
    )
    assert code == 2 and "no such file" in err and not out.exists()
    topics.write_text("topic_id\tinitial_request\n1\tTell me about iron\n7\t" + "x" * 8001 + "\n")
    for command in ("rank", "need"):
        code, _, err = run_cli(["clariq", command, "--topics", str(topics), "--out", str(out)], capsys)
        assert (
            code == 2
            and f"{topics}:3: topic 7: request: 8,001 characters, more than the 8,000" in err
            and not out.exists()
        )
    topics.write_text("topic_id\tinitial_request\n1\tTell me about iron\n2\t???\n")  # the line, as every TSV error
    code, _, err = run_cli(["clariq", "need", "--topics", str(topics), "--out", str(out)], capsys)
    assert code == 2 and f"{topics}:3: topic 2: request '???' has no letter or digit" in err and not out.exists()
    (tmp_path / "dir").mkdir()
    code, _, err = run_cli(["clariq", "need", "--topics", str(topics), "--out", str(tmp_path / "dir")], capsys)
    assert code == 2 and "is a directory" in err
    code, _, err = run_cli(
        ["clariq", "rank", "--topics", str(topics), "--out", str(out), "--method", "bm25", "--depth", "200"], capsys
    )
    assert code == 2 and "--depth" in err and "100" in err and not out.exists()
    code, _, err = run_cli(["clariq", "train", "--out", str(topics)], capsys)  # fails before loading or training
    assert code == 2 and "is a file, expected a directory" in err and "Tell me about iron" in topics.read_text()
    for command in ("rank", "need"):  # the output named as the input: refused, the topics kept
        code, _, err = run_cli(["clariq", command, "--topics", str(topics), "--out", str(topics)], capsys)
        assert code == 2 and "is also an input" in err and "Tell me about iron" in topics.read_text()


def test_bad_need_run(tmp_path, clariq_dir, capsys):
    run = tmp_path / "need"
    run.write_text("101 2\n106 seven\n")
    code, _, err = run_cli(
        ["clariq", "evaluate", "need", "--labels", str(clariq_dir / "dev.tsv"), "--run", str(run)], capsys
    )
    assert code == 2 and f"{run}:2" in err and "label must be an integer 1-4" in err


def test_bad_eval_dict(tmp_path, clariq_dir, capsys):
    table = tmp_path / "table.json"
    args = ["clariq", "evaluate", "documents", "--labels", str(clariq_dir / "dev.tsv"), "--eval-dict", str(table)]
    args += ["--run", str(clariq_dir / "sample_runs" / "dev_bm25")]
    for text, message in [
        ('{"MRR100": [1, 2]}', "expected a dict of contexts"),
        # well formed, but judging none of the run's facets (another split's table): an error, not a score of 0
        ('{"MRR100": {"F9999": {"MIN": 0.0}}}', f"{table}: the table judges none of the 50"),
    ]:
        table.write_text(text)
        code, out, err = run_cli(args, capsys)
        assert code == 2 and not out and message in err


def test_console_script_exit_code_without_traceback(tmp_path):
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "clarion",
            "clariq",
            "evaluate",
            "need",
            "--labels",
            str(tmp_path / "x.tsv"),
            "--run",
            str(tmp_path / "y"),
        ],
        capture_output=True,
        text=True,
    )
    assert result.returncode == 2
    assert result.stderr.strip().startswith("error:") and "Traceback" not in result.stderr


def test_clarify_rejects_a_bad_request_or_k_before_loading_anything(capsys):
    code, out, err = run_cli(["clariq", "clarify", "--k", "102", "Tell me about dinosaurs."], capsys)
    assert code == 2 and not out and "--k must be at most 101" in err
    code, out, err = run_cli(["clariq", "clarify", "?!"], capsys)
    assert code == 2 and not out and "has no letter or digit" in err


@pytest.mark.parametrize("threshold", ["0", "1.5", "-0.2"])
def test_clarify_rejects_a_threshold_outside_0_1_before_loading_anything(threshold, tmp_path, capsys):
    missing = tmp_path / "no-model"  # never read: the threshold is checked first
    code, out, err = run_cli(["clariq", "clarify", "--model", str(missing), "--threshold", threshold, "hi"], capsys)
    assert code == 2 and not out and err.count("\n") == 1 and "threshold must be a number in (0, 1]" in err


@pytest.mark.parametrize(
    "args, message",
    [
        (["clariq", "clarify", "--k", "0", "hi"], "Invalid value for '--k'"),
        (["clariq", "rank", "--topics", "t.tsv"], "Missing option '--out'"),
        (["clariq", "nosuch"], "No such command 'nosuch'"),
        (["fuse", "--method", "phi", "--run", "a", "--run", "b", "--out", "f"], "Invalid value for '--method'"),
    ],
)
def test_command_line_mistakes_are_one_line_errors(args, message, capsys):
    code, out, err = run_cli(args, capsys)
    assert code == 2 and not out and err.count("\n") == 1 and err.startswith(f"error: {message}")
    assert "--help" in err


def test_a_split_without_labels_fails_before_any_training_is_announced(tmp_path, clariq_dir, capsys):
    out = tmp_path / "need.txt"
    args = ["--topics", str(clariq_dir / "dev.tsv"), "--out", str(out), "--splits", "test"]
    for command in (["need", "--method", "model"], ["rank", "--method", "full"]):
        code, _, err = run_cli(["clariq", *command, *args], capsys)
        fetch = "no such file: the test labels are fetched by `clarion data fetch clariq`"
        assert code == 2 and err.strip() == f"error: {clariq_dir / 'test_with_labels.tsv'}: {fetch}"
        assert not out.exists()


def test_benchmark_refuses_a_bad_split_before_any_work_and_flags_train_as_in_sample(data_root, capsys):
    code, out, err = run_cli(["clariq", "benchmark", "--split", "nope", "--data-dir", str(data_root)], capsys)
    assert code == 2 and out == "" and err == "error: unknown split 'nope'; choose one of: train, dev, test\n"
    args = ["clariq", "benchmark", "--split", "train", "--rank-method", "bm25", "--need-method", "majority", "--json"]
    code, out, err = run_cli([*args, "--data-dir", str(data_root)], capsys)
    assert code == 0 and "in-sample fit, not evaluation" in err and json.loads(out)["split"] == "train"


NAPPING_COMMAND = """
import signal
import time
import clarion.cli as cli

signal.signal(signal.SIGINT, signal.default_int_handler)  # a background job may inherit SIGINT ignored

@cli.app.command("nap")
def nap():
    try:
        print("ready", flush=True)  # inside the try: a signal right after it still meets the finally
        time.sleep(60)
    finally:
        print("cleaned up", flush=True)

cli.main(["nap"])
"""

SWALLOWING_COMMAND = NAPPING_COMMAND.replace(
    "        time.sleep(60)\n",
    "        try:\n            time.sleep(60)\n        except KeyboardInterrupt:\n"
    "            pass  # swallowed, as C code calling back into Python swallows it (numba, under ranx)\n"
    "        time.sleep(60)\n",
)


@pytest.mark.parametrize(
    ("signum", "code", "line"), [(signal.SIGTERM, 143, "terminated"), (signal.SIGINT, 130, "interrupted")]
)
def test_a_killed_command_cleans_up_and_says_so_in_one_line(signum, code, line):
    """SIGTERM (kill, a CI timeout) unwinds like Ctrl-C: finally blocks remove temporaries, one line, no traceback."""
    child = subprocess.Popen(
        [sys.executable, "-c", NAPPING_COMMAND], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    assert child.stdout.readline() == "ready\n"
    child.send_signal(signum)
    out, err = child.communicate(timeout=30)
    assert child.returncode == code and out == "cleaned up\n" and err == f"{line}\n"


@pytest.mark.parametrize(
    ("label", "unclear", "ask", "threshold", "line"),
    [
        (3, 0.98, True, 0.5, "ask: yes (P(need >= 2) 0.98 >= 0.5)"),
        (1, 0.10, False, 0.5, "ask: no (P(need >= 2) 0.10 < 0.5)"),
        # the likeliest label 1 at 0.42, labels 2-4 together at 0.58: the line says why "need 1" still asks
        (1, 0.58, True, 0.5, "ask: yes (P(need >= 2) 0.58 >= 0.5; 1 is only the likeliest single label)"),
        (3, 0.80, False, 0.9, "ask: no (P(need >= 2) 0.80 < 0.9; 3 is only the likeliest single label)"),
    ],
)
def test_clarify_says_what_its_yes_or_no_rests_on(label, unclear, ask, threshold, line):
    from clarion.clariq.clarifier import verdict

    assert verdict(label, unclear, ask, threshold) == line


def test_sigterm_swallowed_once_is_raised_again():
    """An interrupt swallowed where it was raised comes again (every AGAIN_SECONDS) until the command unwinds."""
    assert "pass  # swallowed" in SWALLOWING_COMMAND
    child = subprocess.Popen(
        [sys.executable, "-c", SWALLOWING_COMMAND], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    assert child.stdout.readline() == "ready\n"
    child.send_signal(signal.SIGTERM)
    out, err = child.communicate(timeout=30)
    assert child.returncode == 143 and out == "cleaned up\n" and err == "terminated\n"

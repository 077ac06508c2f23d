"""`clarion fuse` on TREC runs: the main form, tune, methods, and one-line errors."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from clarion.cli import app, main
from clarion.data.trec import read_run, write_qrels, write_run
from clarion.fuse import fuse, two_step
from clarion.types import ranked_ids

M = {"q1": {"a": 3.0, "b": 2.0, "c": 1.0}, "q2": {"x": 1.0}}
N = {"q1": {"c": 3.0, "b": 2.0, "d": 1.0}}


@pytest.fixture
def runs(tmp_path):
    write_run(tmp_path / "m.run", M, "m")
    write_run(tmp_path / "n.run", N, "n")
    write_qrels(tmp_path / "best.qrel", {"q1": {"c": 1}, "q2": {"x": 1}})
    return tmp_path


def test_two_step_cli_matches_the_api(runs):
    out = runs / "fused.run"
    args = ["fuse", "--method", "two-step", "--mrr", str(runs / "m.run"), "--ndcg", str(runs / "n.run")]
    result = CliRunner().invoke(app, [*args, "--out", str(out), "--param", "rho_h=1", "-p", "p=2"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["params"] == {"rho_h": 1, "p": 2.0}
    assert read_run(out) == two_step([M], N, rho_h=1, p=2)


def test_other_methods_by_name(runs):
    out = runs / "rrf.run"
    args = ["fuse", "--method", "rrf", "--run", str(runs / "m.run"), "--run", str(runs / "n.run")]
    result = CliRunner().invoke(app, [*args, "--out", str(out)])
    assert result.exit_code == 0, result.output
    expected, written = fuse("rrf", [M, N]), read_run(out)
    assert set(written) == {"q1", "q2"}
    for query, scores in expected.items():
        assert ranked_ids(written[query]) == ranked_ids(scores)
        assert written[query] == pytest.approx(scores, abs=1e-6)


def test_fused_runs_have_no_tied_scores(runs):
    """The official ClariQ scorer keeps one row per (topic, score): ties must not reach the file."""
    write_run(runs / "ab.run", {"q1": {"a": 2.0, "b": 1.0}}, "ab")
    write_run(runs / "ba.run", {"q1": {"b": 2.0, "a": 1.0}}, "ba")  # RRF ties a and b
    out = runs / "rrf.run"
    args = ["fuse", "--method", "rrf", "--run", str(runs / "ab.run"), "--run", str(runs / "ba.run")]
    result = CliRunner().invoke(app, [*args, "--out", str(out)])
    assert result.exit_code == 0, result.output
    rows = [line.split() for line in out.read_text().splitlines()]
    assert [row[2] for row in rows] == ["a", "b"] and rows[0][4] != rows[1][4]


def test_combsum_ties_in_exact_arithmetic_are_written_by_id(runs):
    """Min-max scores d5 (0.2 of 0.1..0.3) and d4 (0.7 of 0.5..0.9) are both 0.5, but their sums came out
    0.5000000000000001 and 0.4999999999999999, and the float noise wrote d5 first; ties go by id."""
    write_run(runs / "a.run", {"q1": {"d1": 0.3, "d5": 0.2, "d3": 0.1}}, "a")
    write_run(runs / "b.run", {"q1": {"d3": 0.9, "d4": 0.7, "d1": 0.5}}, "b")
    out = runs / "sum.run"
    args = ["fuse", "--method", "combsum", "--run", str(runs / "a.run"), "--run", str(runs / "b.run")]
    result = CliRunner().invoke(app, [*args, "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert [line.split()[2] for line in out.read_text().splitlines()] == ["d1", "d3", "d4", "d5"]
    fused = fuse("combsum", [read_run(runs / "a.run"), read_run(runs / "b.run")])["q1"]
    assert fused["d4"] == fused["d5"] == 0.5 and fused["d1"] == fused["d3"] == 1.0


def test_tune_prints_best_parameters(runs):
    # with rho_h=1, rho_t=0, rho_nm=1 only M's top candidate leads; the tail follows r_N^p * r_M, so the default
    # p=3 puts c (N's first) before b, and only p < 0.585 puts b, the relevant one, second: tuning must find it
    write_qrels(runs / "b.qrel", {"q1": {"b": 1}, "q2": {"x": 1}})
    args = ["fuse", "tune", "--method", "two-step", "--mrr", str(runs / "m.run"), "--ndcg", str(runs / "n.run")]
    args += ["--qrels", f"best={runs / 'b.qrel'}", "--target", "best:mrr", "--trials", "8", "--seed", "0"]
    args += ["--fix", "rho_h=1", "--fix", "rho_t=0", "--fix", "rho_nm=1"]
    result = CliRunner().invoke(app, [*args, "--out", str(runs / "tuned.run")])
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert report["trials"] == 8 and report["defaults"]["score"] == pytest.approx((1 / 3 + 1) / 2)
    assert report["best"]["score"] == pytest.approx((1 / 2 + 1) / 2) and report["best"]["params"]["p"] < 0.585
    assert ranked_ids(read_run(runs / "tuned.run")["q1"])[:2] == ["a", "b"]


def test_methods_lists_the_registry():
    result = CliRunner().invoke(app, ["fuse", "methods"])
    assert result.exit_code == 0
    assert "two-step" in result.stdout and "rho_nm" in result.stdout and "weighted-condorcet" in result.stdout
    assert "weights (weights, each in [0, inf], not all 0" in result.stdout


@pytest.mark.parametrize(
    "extra, message",
    [
        (["--param", "rho_h=-1"], "rho_h must be"),
        (["--param", "nope=1"], "allowed: rho_h"),
        (["--param", "p"], "NAME=VALUE"),
        (["--param", "rho_h=1", "--param", "rho_h=5"], "--param rho_h: given twice"),
        (["--param", "p=101"], "--param 'p=101': p must be float in [0, 100]"),
    ],
)
def test_bad_parameters_exit_2_with_one_line_and_no_output(runs, capsys, extra, message):
    out = runs / "bad.run"
    args = ["fuse", "--mrr", str(runs / "m.run"), "--ndcg", str(runs / "n.run"), "--out", str(out), *extra]
    with pytest.raises(SystemExit) as exc:
        main(args)
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1
    assert not out.exists()


def test_missing_roles_and_bad_run_files(runs, capsys):
    with pytest.raises(SystemExit) as exc:
        main(["fuse", "--method", "two-step", "--mrr", str(runs / "m.run"), "--out", str(runs / "o.run")])
    assert exc.value.code == 2 and "--ndcg" in capsys.readouterr().err
    (runs / "broken.run").write_text("q1 Q0 a 0\n")
    with pytest.raises(SystemExit) as exc:
        main(["fuse", "--mrr", str(runs / "broken.run"), "--ndcg", str(runs / "n.run"), "--out", str(runs / "o")])
    assert exc.value.code == 2 and "broken.run:1" in capsys.readouterr().err


def test_a_method_without_roles_refuses_role_options(runs, capsys):
    # rrf over "--mrr A --run B" fused [A, B] whatever the options' order, so weights= could follow the wrong run
    for role in (["--mrr", str(runs / "m.run")], ["--ndcg", str(runs / "m.run")]):
        args = ["fuse", "--method", "rrf", *role, "--run", str(runs / "n.run"), "--out", str(runs / "o.run")]
        assert "--method rrf takes --run runs, not --mrr or --ndcg" in _exit_2(args, capsys)
    assert not (runs / "o.run").exists()


def _exit_2(args, capsys) -> str:
    """Run ``clarion ARGS``, expect exit 2 and one line on stderr; return that line."""
    with pytest.raises(SystemExit) as exc:
        main(args)
    err = capsys.readouterr().err
    assert exc.value.code == 2 and err.count("\n") == 1, err
    return err


@pytest.mark.parametrize(
    "extra, message",
    [
        (["--method", "combgmnz", "--param", "gamma=1e308"], "gamma must be float in [0, 10]"),
        (["--method", "wsum", "--param", "weights=1e308,1e308"], "wsum (weights=[1e+308, 1e+308], norm min-max)"),
    ],
)
def test_fused_scores_that_overflow_exit_2_and_write_nothing(runs, capsys, extra, message):
    out = runs / "o.run"
    args = ["fuse", "--run", str(runs / "m.run"), "--run", str(runs / "m.run"), "--out", str(out)]
    err = _exit_2([*args, *extra], capsys)  # the same run twice: a is 1e308 * 1 + 1e308 * 1 = inf
    assert message in err and not out.exists()


def test_tune_rejects_qrels_sharing_no_query_with_the_runs(runs, capsys):
    write_qrels(runs / "zq.qrel", {"zz": {"a": 1}})
    args = ["fuse", "tune", "-m", "rrf", "--run", str(runs / "m.run"), "--run", str(runs / "n.run")]
    err = _exit_2([*args, "--qrels", str(runs / "zq.qrel"), "--target", "mrr"], capsys)
    assert f"{runs / 'zq.qrel'}: judges no query of the runs" in err


def test_tune_fix_errors_name_fix(runs, capsys):
    args = ["fuse", "tune", "-m", "rrf", "--run", str(runs / "m.run"), "--run", str(runs / "n.run")]
    args += ["--qrels", str(runs / "best.qrel"), "--target", "mrr"]
    err = _exit_2([*args, "--fix", "zz=1"], capsys)
    assert "--fix zz: not a parameter of rrf" in err and "--param" not in err
    assert "--fix 'k=0': k must be" in _exit_2([*args, "--fix", "k=0"], capsys)


def test_run_id_is_checked_before_any_work(runs, capsys):
    # the missing run file and qrels would be the error if --run-id were checked only when writing
    missing = str(runs / "missing.run")
    args = ["fuse", "--run", missing, "--run", missing, "--out", str(runs / "o.run"), "--run-id", "a b"]
    assert "--run-id must be one word" in _exit_2(args, capsys)
    args = ["fuse", "tune", "--run", missing, "--run", missing, "--qrels", missing, "--target", "mrr"]
    assert "--run-id must be one word" in _exit_2([*args, "--run-id", "a b"], capsys)
    assert not (runs / "o.run").exists()


def test_methods_shows_each_summary_range_default_and_help():
    lines = CliRunner().invoke(app, ["fuse", "methods"]).stdout.splitlines()
    assert lines[:3] == [
        "two-step (--mrr ... --ndcg ...): two-step MRR/NDCG ensemble (Schwartz 2021)",
        "    rho_h (int, in [0, inf), default 3): high certainty: in every MRR model's top rho_h",
        "    rho_t (int, in [0, inf), default 1): top answers: in some MRR model's top rho_t",
    ]
    assert "rrf (--run ... --run ...): reciprocal rank fusion, sum of 1/(k + rank)" in lines

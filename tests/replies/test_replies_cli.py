"""`clarion replies`: evaluate, convert, rank, and one-line errors with exit code 2."""

from __future__ import annotations

import json
import math

import pytest
from typer.testing import CliRunner

from clarion.cli import app, main

LABELS = (
    "10\t\tHi\tHow are you?\ta\tFine.\tgood\t0.8\n"
    "10\t\tHi\tHow are you?\tb\tNo.\tbad\t1\n"
    "10\t\tHi\tHow are you?\tc\tOk.\tneutral\t0.3\n"
    "9\t\t\tHello\tx\tHey!\tgood\t1\n"
    "9\t\t\tHello\ty\tPotato.\tbad\t1\n"
)


@pytest.fixture
def files(tmp_path):
    labels = tmp_path / "labels.tsv"
    labels.write_text(LABELS, encoding="utf-8")
    return tmp_path, labels


def test_evaluate_json_is_the_hand_worked_score(files):
    tmp, labels = files
    run = tmp / "sub.txt"
    run.write_text("9 y\n9 x\n10 a\n10 c\n10 b\n", encoding="utf-8")
    result = CliRunner().invoke(app, ["replies", "evaluate", "--labels", str(labels), "--run", str(run), "--json"])
    assert result.exit_code == 0, result.output
    scores = json.loads(result.stdout)
    nine = (2 / math.log2(3)) / 2  # the good reply second: DCG 2/log2(3), IDCG 2 -> 0.6309
    assert scores["ndcg"] == pytest.approx(100_000 * (nine + 1.0) / 2)
    assert scores["contexts"] == 2


def test_evaluate_refuses_a_short_submission_in_one_line(files, capsys):
    tmp, labels = files
    run = tmp / "sub.txt"
    run.write_text("9 y\n9 x\n10 a\n10 c\n", encoding="utf-8")
    with pytest.raises(SystemExit) as exit_:
        main(["replies", "evaluate", "--labels", str(labels), "--run", str(run)])
    assert exit_.value.code == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and "sub.txt" in err and "4 lines for 5 rows" in err


def test_evaluate_refuses_bad_labels(files, capsys):
    tmp, labels = files
    labels.write_text(LABELS.replace("neutral\t0.3", "neutral\t3"), encoding="utf-8")
    (tmp / "sub.txt").write_text("9 y\n", encoding="utf-8")
    with pytest.raises(SystemExit) as exit_:
        main(["replies", "evaluate", "--labels", str(labels), "--run", str(tmp / "sub.txt")])
    assert exit_.value.code == 2
    assert "labels.tsv:3: confidence must be in [0, 1]" in capsys.readouterr().err


def test_rank_with_random_model_writes_a_valid_submission(files):
    from clarion.data.replies import read_replies, read_submission
    from clarion.replies.ranker import groups_of
    from clarion.replies.training import train_into

    tmp, labels = files
    rows = read_replies(labels)
    model = train_into(tmp / "model", rows, "test", method="random")
    out = tmp / "sub.txt"
    result = CliRunner().invoke(
        app, ["replies", "rank", "--input", str(labels), "--out", str(out), "--model", str(model)]
    )
    assert result.exit_code == 0, result.output
    ranking = read_submission(out, rows)
    assert list(ranking) == ["9", "10"] and sorted(ranking["10"]) == ["a", "b", "c"]
    assert len(groups_of(rows)[1]) == 2


def test_convert_writes_disjoint_parts(tmp_path, data_root):
    from clarion.data.replies import read_replies

    result = CliRunner().invoke(app, ["replies", "convert", "--out", str(tmp_path)])
    assert result.exit_code == 0, result.output
    parts = {p: read_replies(tmp_path / f"{p}.tsv") for p in ("train", "dev", "test")}
    contexts = {p: {r.context_id for r in rows} for p, rows in parts.items()}
    lasts = {p: {r.context[2] for r in rows} for p, rows in parts.items()}
    assert not contexts["train"] & contexts["dev"] and not contexts["dev"] & contexts["test"]
    assert not lasts["train"] & lasts["test"] and not lasts["train"] & lasts["dev"]
    sizes = [len(b) for rows in parts.values() for b in _blocks(rows).values()]
    assert min(sizes) >= 2 and max(sizes) <= 6
    assert 1500 < len(contexts["train"]) < 2200 and len(contexts["dev"]) > 300
    again = tmp_path / "again"
    CliRunner().invoke(app, ["replies", "convert", "--out", str(again)])
    assert (again / "dev.tsv").read_bytes() == (tmp_path / "dev.tsv").read_bytes()


def _blocks(rows):
    blocks = {}
    for r in rows:
        blocks.setdefault(r.context_id, []).append(r)
    return blocks

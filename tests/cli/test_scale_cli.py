"""The batch commands through ``--ray-address`` on a two-node loopback cluster (tests/ray_cluster.py) write the
bytes one process writes; a bad input line fails as in one process, before any cluster starts."""

from __future__ import annotations

from pathlib import Path

import pytest

from clarion.cli import main

DSTC_TESTS = str(Path(__file__).resolve().parents[1] / "dstc")  # dstc_synthetic


def _out(args: list[str], out: Path, capsys, *more: str) -> bytes:
    main([*args, "--out", str(out), *more])
    capsys.readouterr()
    return out.read_bytes()


def _both(args: list[str], tmp_path: Path, capsys, address: str) -> tuple[bytes, bytes]:
    alone = _out(args, tmp_path / "one", capsys)
    spread = _out(args, tmp_path / "many", capsys, "--ray-address", address)
    return alone, spread


@pytest.mark.slow  # new workers import the models' libraries: 20 s to minutes on a busy machine
def test_clariq_rank_and_need_on_two_nodes_write_what_one_process_writes(ray_cluster, clariq_dir, tmp_path, capsys):
    topics = ["clariq", "--data-dir", str(clariq_dir.parent)]
    rank = ["clariq", "rank", "--topics", str(clariq_dir / "test.tsv"), "--method", "bm25", "--depth", "30"]
    alone, spread = _both([*rank, "--data-dir", str(clariq_dir.parent)], tmp_path, capsys, ray_cluster)
    assert spread == alone and alone.count(b"\n") == 61 * 30
    need = [*topics[:1], "need", "--topics", str(clariq_dir / "dev.tsv"), "--method", "majority", *topics[1:]]
    alone, spread = _both(need, tmp_path, capsys, ray_cluster)
    assert spread == alone and alone.count(b"\n") == 50


@pytest.mark.slow  # new workers import the models' libraries: 20 s to minutes on a busy machine
def test_dstc_predict_on_two_nodes_writes_what_one_process_writes(ray_cluster, monkeypatch, tmp_path, capsys):
    monkeypatch.setenv("CLARION_TINY", "1")
    monkeypatch.setenv("CLARION_CACHE_DIR", str(tmp_path / "cache"))  # the workers read the same cache
    monkeypatch.syspath_prepend(DSTC_TESTS)
    from dstc_synthetic import write_synthetic

    data = write_synthetic(tmp_path / "data")
    model = tmp_path / "model"
    main(["dstc", "train", "--data", str(data), "--out", str(model)])
    predict = ["dstc", "predict", "--data", str(data), "--model", str(model)]
    alone, spread = _both(predict, tmp_path, capsys, ray_cluster)
    assert spread == alone and b'"target": true' in alone


@pytest.mark.slow  # new workers import the models' libraries: 20 s to minutes on a busy machine
def test_replies_rank_on_two_nodes_writes_what_one_process_writes(ray_cluster, tmp_path, capsys):
    from clarion.data.replies import read_replies
    from clarion.replies.training import train_into

    labels = tmp_path / "labels.tsv"
    words = ["fine", "bad", "a potato", "well, thanks", "no"]
    labels.write_text(
        "".join(
            f"{c}\t\tHi {c}\tHow is the {words[c % 5]} day?\tr{r}\tThe day is {words[(c + r) % 5]}.\tgood\t1\n"
            for c in range(40)
            for r in range(3)
        )
    )
    model = train_into(tmp_path / "model", read_replies(labels, labelled=True), "test", method="matching")
    alone, spread = _both(
        ["replies", "rank", "--input", str(labels), "--model", str(model)], tmp_path, capsys, ray_cluster
    )
    assert spread == alone


@pytest.mark.parametrize("option", [["--workers", "2"], ["--ray-address", "127.0.0.2:1"]])
def test_a_bad_line_fails_as_in_one_process_before_any_cluster(option, clariq_dir, tmp_path, capsys):
    topics = tmp_path / "topics.tsv"
    topics.write_text("topic_id\tinitial_request\n1\tTell me about dinosaurs.\n2\t \n3\tcats\n")
    args = ["clariq", "rank", "--topics", str(topics), "--method", "bm25", "--out", str(tmp_path / "run")]
    errors = []
    for extra in ([], option):
        with pytest.raises(SystemExit) as code:
            main([*args, *extra])
        errors.append((code.value.code, capsys.readouterr().err.strip()))
    assert errors[0] == errors[1] and errors[0][0] == 2 and "\n" not in errors[0][1]
    assert f"{topics}:3" in errors[0][1] and not (tmp_path / "run").exists()

"""``clarion converse --workers N`` and ``--ray-address``: the file one process writes, the same errors and exit
code; without either option Ray is never imported. The workers run the stand-in engine (shipped by value)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from functools import partial
from pathlib import Path

import dialogue_fakes
import pytest
from dialogue_fakes import BANK, FakeClarifier, bow_encode

from clarion.cli import main

HERE = Path(__file__).parent
REQUESTS = [
    "Tell me about hip roof design.",
    "What is the capital of France?",
    "I want to know about lumps in the throat.",
    "Find pictures of hip roofs.",
]


def _fake_worker(rewriter, knowledge, documents, model_dir, cost):
    from clarion.dialogue import Assistant
    from clarion.dialogue.choose import QuestionChooser

    return Assistant(FakeClarifier(), rewriter, QuestionChooser(list(BANK), bow_encode(list(BANK.values()))), cost=cost)


def _conversations(path: Path, n: int = 60) -> Path:
    lines = []
    for i in range(n):
        turns = [{"role": "user", "text": REQUESTS[i % len(REQUESTS)]}]
        if i % 3 == 1:
            turns += [{"role": "system", "text": "Do you want pictures?"}, {"role": "user", "text": "no, costs"}]
        lines.append(json.dumps({"id": f"c{i}", "turns": turns}))
    if n > 41:
        lines[7] = "not json"
        lines[41] = json.dumps({"id": "bad", "turns": [{"role": "robot", "text": "hi"}]})
    path.write_text("\n".join(lines) + "\n")
    return path


def _run(args: list[str], capsys) -> tuple[int, list[str]]:
    with pytest.raises(SystemExit) as code:
        main(args)
    return code.value.code, [x for x in capsys.readouterr().err.splitlines() if x.startswith("error:")]


@pytest.fixture
def scaled_cli(monkeypatch, make_assistant, bow_rewriter, by_value):
    """The stand-in engine in this process and, by value, in the workers; called once the cluster is up."""

    def patch() -> None:
        from clarion.cli import converse

        by_value(sys.modules[__name__], dialogue_fakes)
        monkeypatch.setattr(converse, "load_assistant", lambda *args, **kwargs: make_assistant())
        monkeypatch.setattr(converse, "_worker_assistant", partial(_fake_worker, bow_rewriter))

    return patch


@pytest.mark.parametrize(
    "where",
    [pytest.param("workers", marks=pytest.mark.slow), "address"],  # a local cluster starts in 10-30 s
)
def test_converse_on_a_cluster_writes_what_one_process_writes(where, scaled_cli, request, tmp_path, capsys):
    conversations = _conversations(tmp_path / "in.jsonl")
    one, many = tmp_path / "one.jsonl", tmp_path / "many.jsonl"
    option = ["--workers", "2"] if where == "workers" else ["--ray-address", request.getfixturevalue("ray_cluster")]
    scaled_cli()
    alone = _run(["converse", "--conversations", str(conversations), "--out", str(one)], capsys)
    spread = _run(["converse", "--conversations", str(conversations), "--out", str(many), *option], capsys)
    assert spread == alone and alone[0] == 2 and len(alone[1]) == 2
    assert many.read_bytes() == one.read_bytes()
    assert f"{conversations}:8: not JSON" in alone[1][0] and f"{conversations}:42: turns[0].role" in alone[1][1]
    rows = [json.loads(x) for x in one.read_text().splitlines()]
    assert [r["id"] for r in rows] == [f"c{i}" if i not in (7, 41) else (None if i == 7 else "bad") for i in range(60)]


NO_RAY_SCRIPT = """
import sys
sys.path.insert(0, {tests!r})
from dialogue_fakes import BANK, FakeClarifier, bow_encode
from clarion.cli import converse, main
from clarion.dialogue import Assistant
from clarion.dialogue.choose import QuestionChooser
from clarion.dialogue.training import load

rewriter = load({model!r})
chooser = QuestionChooser(list(BANK), bow_encode(list(BANK.values())))
converse.load_assistant = lambda *args, **kwargs: Assistant(FakeClarifier(), rewriter, chooser)
try:
    main(["converse", "--conversations", {conversations!r}, "--out", {out!r}])
finally:
    print("ray imported" if "ray" in sys.modules else "no ray")
"""


def test_without_the_options_ray_is_never_imported(bow_rewriter, tmp_path):
    from clarion.dialogue.training import save
    from clarion.store import write_meta

    save(bow_rewriter, tmp_path / "model")
    write_meta(tmp_path / "model", {}, "test")
    conversations = _conversations(tmp_path / "in.jsonl", 5)
    script = NO_RAY_SCRIPT.format(
        tests=str(HERE), model=str(tmp_path / "model"), conversations=str(conversations), out=str(tmp_path / "o")
    )
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    done = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=300)
    assert done.stdout.strip().splitlines()[-1] == "no ray", done.stderr[-2000:]
    assert (tmp_path / "o").read_text().count("\n") == 5

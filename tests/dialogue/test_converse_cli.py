"""``clarion converse`` and ``clarion chat`` (driven through a pseudo-terminal), with the stand-in engine."""

from __future__ import annotations

import json
import os
import pty
import select
import subprocess
import sys
import time
from pathlib import Path

import pytest

from clarion.cli import main

HERE = Path(__file__).parent


@pytest.fixture
def patched_cli(monkeypatch, make_assistant):
    from clarion.cli import converse

    monkeypatch.setattr(converse, "load_assistant", lambda *args, **kwargs: make_assistant())


def test_converse_keeps_order_and_reports_bad_lines(patched_cli, tmp_path, capsys):
    conversations = tmp_path / "in.jsonl"
    lines = [
        {"id": "a", "turns": [{"role": "user", "text": "Tell me about hip roof design."}]},
        "not json",
        {"id": "c", "turns": [{"role": "user", "text": "What is the capital of France?"}]},
        {"id": "d", "turns": [{"role": "user", "text": "hi"}, {"role": "system", "text": "What?"}]},
        {"turns": []},
    ]
    conversations.write_text("".join((x if isinstance(x, str) else json.dumps(x)) + "\n" for x in lines))
    out = tmp_path / "out.jsonl"
    with pytest.raises(SystemExit) as code:
        main(["converse", "--conversations", str(conversations), "--out", str(out)])
    assert code.value.code == 2
    rows = [json.loads(x) for x in out.read_text().splitlines()]
    assert [r.get("id") for r in rows] == ["a", None, "c", "d", None]
    assert rows[0]["action"] == "clarify" and rows[0]["question_id"] and rows[0]["text"]
    assert rows[2]["action"] == "answer" and set(rows[2]) >= {"id", "action", "text", "query", "need", "question_id"}
    assert "error" in rows[1] and rows[3]["error"].startswith("turns[1].role")
    errors = [x for x in capsys.readouterr().err.splitlines() if x.startswith("error:")]
    assert len(errors) == 3 and f"{conversations}:2:" in errors[0] and f"{conversations}:5: id" in errors[2]


def test_converse_all_good_exits_zero(patched_cli, tmp_path):
    conversations = tmp_path / "in.jsonl"
    conversations.write_text(json.dumps({"id": 1, "turns": [{"role": "user", "text": "hip roof"}]}) + "\n")
    out = tmp_path / "out.jsonl"
    main(["converse", "--conversations", str(conversations), "--out", str(out)])
    assert json.loads(out.read_text())["id"] == 1


def test_converse_missing_input_is_one_line(tmp_path, capsys):
    with pytest.raises(SystemExit) as code:
        main(["converse", "--conversations", str(tmp_path / "none.jsonl"), "--out", str(tmp_path / "o.jsonl")])
    assert code.value.code == 2
    assert len(capsys.readouterr().err.strip().splitlines()) == 1
    assert not (tmp_path / "o.jsonl").exists()


CHAT_SCRIPT = """
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
main(["chat"])
"""


def _expect(fd: int, wanted: str, timeout: float = 60.0) -> str:
    seen, end = "", time.monotonic() + timeout
    while wanted not in seen:
        ready, _, _ = select.select([fd], [], [], max(0.0, end - time.monotonic()))
        if not ready:
            raise AssertionError(f"timed out waiting for {wanted!r}; got {seen!r}")
        try:
            chunk = os.read(fd, 4096).decode("utf-8", "replace")
        except OSError:
            break
        if not chunk:
            break
        seen += chunk
    assert wanted in seen, seen
    return seen


def test_chat_session_in_a_pseudo_terminal(bow_rewriter, tmp_path):
    from clarion.dialogue.training import save
    from clarion.store import write_meta

    save(bow_rewriter, tmp_path)
    write_meta(tmp_path, {}, "test")
    script = CHAT_SCRIPT.format(tests=str(HERE), model=str(tmp_path))
    leader, follower = pty.openpty()
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    proc = subprocess.Popen([sys.executable, "-c", script], stdin=follower, stdout=follower, stderr=follower, env=env)
    os.close(follower)
    try:
        _expect(leader, "you> ")
        os.write(leader, b"Tell me about hip roof design.\n")
        asked = _expect(leader, "you> ")
        assert "clarion> Are you interested in more than one hip roof design?" in asked
        os.write(leader, b"/why\n")
        assert '"p_unclear"' in _expect(leader, "you> ")
        os.write(leader, b"no, I just want pictures of one\n")
        answered = _expect(leader, "you> ")
        assert "clarion> Searching for:" in answered and "pictures" in answered
        os.write(leader, b"/reset\n")
        assert "(new conversation)" in _expect(leader, "you> ")
        os.write(leader, b"/why\n")
        assert "{}" in _expect(leader, "you> ")
        os.write(leader, b"thanks, bye\n")
        assert "goodbye" in _expect(leader, "you> ")
        os.write(leader, b"/quit\n")
        assert proc.wait(timeout=30) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
        os.close(leader)

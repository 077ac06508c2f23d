"""``clarion chat`` says it is loading, and shows its prompt only once the models are loaded and warmed up."""

from __future__ import annotations

from typer.testing import CliRunner

from clarion.cli import app
from clarion.cli import converse as converse_cli


def test_chat_loads_and_warms_up_before_its_prompt(monkeypatch):
    events: list[str] = []

    class Engine:
        def reply(self, turns):
            events.append(f"reply {turns[-1]['text']}")

    def load(*args, starter=True):
        events.append(f"load starter={starter}")
        return Engine()

    monkeypatch.setattr(converse_cli, "load_assistant", load)
    monkeypatch.setattr(converse_cli, "chat_session", lambda assistant, **kwargs: events.append("prompt"))
    result = CliRunner().invoke(app, ["chat"])
    assert result.exit_code == 0, result.output
    assert events == ["load starter=True", f"reply {converse_cli.WARMUP_TEXT}", "prompt"]  # nothing cached: starter
    assert result.stderr.startswith("loading the conversation models") and "ready (" in result.stderr


def test_prepare_trains_and_loads_the_full_models_and_exits_without_a_prompt(monkeypatch):
    events: list[str] = []

    class Engine:
        def reply(self, turns):
            events.append("reply")

    def load(*args, starter=True):
        events.append(f"load starter={starter}")
        return Engine()

    monkeypatch.setattr(converse_cli, "load_assistant", load)
    monkeypatch.setattr(converse_cli, "chat_session", lambda assistant, **kwargs: events.append("prompt"))
    result = CliRunner().invoke(app, ["chat", "--prepare"])
    assert result.exit_code == 0, result.output
    assert events == ["load starter=False", "reply"]  # --prepare trains the full models, never the starter ones
    assert "the conversation models are ready" in result.stderr

"""The README is checked: every `clarion ...` command it shows exists and accepts its options, and its Python
examples run (STYLE.md, item 11)."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from clarion.cli import app

README = Path(__file__).resolve().parents[1] / "README.md"


DOCS = README.parent / "docs"


def _commands(page: Path = README) -> list[str]:
    blocks = re.findall(r"```(?:bash|text)\n(.*?)```", page.read_text(), flags=re.S)
    lines = [line.split("#")[0].strip() for block in blocks for line in block.splitlines()]
    found = []
    for line in lines:
        for part in line.split("&&"):
            part = part.strip()
            if part.startswith("clarion "):
                found.append(part)
    return found


def _path_and_options(command: str) -> tuple[list[str], list[str]]:
    words = command.replace("[", " ").replace("]", " ").split()[1:]
    path = []
    for word in words:
        if word.startswith("-") or word.isupper() or "." in word or "/" in word or "|" in word:
            break
        path.append(word)
    options = sorted({w.split("=")[0] for w in words if w.startswith("--")})
    return path, options


def test_readme_shows_commands():
    assert len(_commands()) >= 15


@pytest.mark.parametrize("command", _commands() + [c for page in sorted(DOCS.glob("*.md")) for c in _commands(page)])
def test_readme_command_exists(command):
    path, options = _path_and_options(command)
    result = CliRunner().invoke(app, [*path, "--help"])
    assert result.exit_code == 0, (command, result.output)
    for option in options:
        if option != "--help":
            assert option in result.output, (command, option)


# ------------------------------------------------------------------------------------ the README's Python examples

TINY = os.environ.get("CLARION_TINY") == "1"


def _python_blocks() -> dict[str, str]:
    """The README's ```python blocks, by the public name each imports first (Clarifier, Grounder, two_step)."""
    blocks = re.findall(r"```python\n(.*?)```", README.read_text(), flags=re.S)
    named = {}
    for code in blocks:
        match = re.search(r"^from clarion import (\w+)", code, flags=re.M)
        assert match, f"a README Python example must start from the public API:\n{code}"
        named[match.group(1)] = code
    return named


def _run(code: str) -> dict:
    namespace: dict = {}
    exec(compile(code, "README.md", "exec"), namespace)
    return namespace


def test_readme_python_examples_use_the_public_api():
    import clarion

    blocks = _python_blocks()
    assert {"Clarifier", "Grounder", "two_step"} <= set(blocks)
    for code in blocks.values():
        for names in re.findall(r"^from clarion import (.+?)(?:\s+#.*)?$", code, flags=re.M):
            assert {n.strip() for n in names.split(",")} <= set(clarion.__all__), names


def test_readme_fusion_example_prints_what_it_shows():
    code = _python_blocks()["two_step"]
    namespace = _run(code)
    shown = re.search(r"^# (\{.*\})$", code, flags=re.M).group(1)
    assert repr(namespace["fused"]) == shown


def _check_clarifier(namespace: dict) -> None:
    from clarion import Candidate

    bot = namespace["bot"]
    ranked = bot.rank("Tell me about dinosaurs.", k=5)
    assert len(ranked) == 5 and all(isinstance(c, Candidate) for c in ranked)
    label, probabilities = bot.need("Tell me about dinosaurs.")
    assert label in (1, 2, 3, 4) and sum(probabilities.values()) == pytest.approx(1.0)
    assert bot.is_new("I want to book a flight to Paris") is True


def test_readme_clarifier_example_with_the_cached_model(data_root):
    # the default tier runs it only when the train+dev model is already in the cache (it takes minutes to train)
    from clarion.clariq.train import DEFAULT_SPLITS, default_model_dir
    from clarion.data.clariq import ClariQ
    from clarion.store import is_complete

    if not is_complete(default_model_dir(ClariQ.load(data_root), DEFAULT_SPLITS)):
        pytest.skip("the train+dev ClariQ model is not cached; the slow tier trains one")
    _check_clarifier(_run(_python_blocks()["Clarifier"]))


@pytest.mark.slow
def test_readme_clarifier_example(train_subset, tmp_path, monkeypatch):
    from clarion import Clarifier

    if TINY:  # CI: the example's Clarifier.load() reads a tiny model trained on 30 train topics
        from clarion.clariq.train import train_models

        directory = train_models(train_subset(30), ("train",), out_dir=tmp_path / "model", tiny=True)
        load = Clarifier.load.__func__
        monkeypatch.setattr(Clarifier, "load", classmethod(lambda cls, *a, **k: load(cls, directory)))
    _check_clarifier(_run(_python_blocks()["Clarifier"]))


@pytest.mark.slow
def test_readme_grounder_example(data_root):
    # Grounder.load() trains the default DSTC model when absent (tiny settings with CLARION_TINY=1)
    if not (data_root / "dstc11_track5").is_dir():
        pytest.skip("dstc11_track5 not found")
    namespace = _run(_python_blocks()["Grounder"])
    reply = namespace["reply"]
    assert isinstance(reply.knowledge_seeking, bool)
    if reply.knowledge_seeking:
        assert reply.snippets and reply.response
    asked = namespace["asked"]
    assert isinstance(asked.response, str | None)

"""Every `clarion ...` command shown in the README exists and accepts its options (STYLE.md, item 11)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from clarion.cli import app

README = Path(__file__).resolve().parents[1] / "README.md"


def _commands() -> list[str]:
    blocks = re.findall(r"```(?:bash|text)\n(.*?)```", README.read_text(), flags=re.S)
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


@pytest.mark.parametrize("command", _commands())
def test_readme_command_exists(command):
    path, options = _path_and_options(command)
    result = CliRunner().invoke(app, [*path, "--help"])
    assert result.exit_code == 0, (command, result.output)
    for option in options:
        if option != "--help":
            assert option in result.output, (command, option)

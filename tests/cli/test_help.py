"""Help pages: flags are listed without a value type."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from clarion.cli import app


@pytest.mark.parametrize("command", [["fuse"], ["dstc", "evaluate"], ["clariq", "rank"]])
def test_flags_show_no_type_but_options_do(command):
    """typer writes ``<bool>`` beside a flag (``--help``, ``--json``) as if it took a value; options keep theirs."""
    result = CliRunner().invoke(app, [*command, "--help"], env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    assert "--help" in result.output and "<bool>" not in result.output
    assert "<path>" in result.output or "<str>" in result.output

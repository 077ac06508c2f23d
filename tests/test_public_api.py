"""The public import surface is small and pinned (STYLE.md, item 1)."""

import importlib
import subprocess
import sys

import clarion


def test_public_names():
    assert sorted(clarion.__all__) == sorted(
        [
            "Assistant",
            "Candidate",
            "ClarionError",
            "DataError",
            "InputError",
            "ModelError",
            "Qrels",
            "Ranking",
            "Run",
            "Topic",
            "__version__",
        ]
    )
    for name in clarion.__all__:
        assert hasattr(clarion, name)


def test_import_is_cheap():
    code = "import sys, clarion; print(any(m in sys.modules for m in ('torch', 'sentence_transformers', 'ranx')))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_modules_import():
    for module in ("clarion.cli", "clarion.evaluate.clariq_official", "clarion.data.clariq", "clarion.clariq.methods"):
        importlib.import_module(module)

"""The public import surface is small and pinned (STYLE.md, item 1)."""

import importlib
import subprocess
import sys

import pytest

import clarion

EAGER = ["Candidate", "ClarionError", "DataError", "InputError", "ModelError", "Qrels", "Ranking", "Run", "Topic"]
LAZY = ["Assistant", "Clarifier", "Grounder", "ReplyRanker", "alpha_ensemble", "ranx_fuse", "two_step"]


def _run(code: str) -> str:
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.strip()


def test_public_names():
    assert sorted(clarion.__all__) == sorted([*EAGER, *LAZY, "__version__"])
    for name in clarion.__all__:
        assert hasattr(clarion, name)
    assert set(LAZY) <= set(dir(clarion))


def test_lazy_names_are_the_library_objects():
    assert sorted(clarion._LAZY) == LAZY
    for name, target in clarion._LAZY.items():
        module, attribute = target.split(":")
        assert getattr(clarion, name) is getattr(importlib.import_module(module), attribute)
    from clarion.clariq.clarifier import Clarifier
    from clarion.dstc.assistant import Grounder

    assert clarion.Clarifier is Clarifier and clarion.Grounder is Grounder


def test_fuse_stays_the_package():
    # `clarion.fuse` is the fusion package (every method by name), never shadowed by a lazy name
    from clarion import two_step  # noqa: F401  (imports clarion.fuse.two_step)

    assert clarion.fuse.__name__ == "clarion.fuse"
    assert callable(clarion.fuse.fuse)


def test_unknown_name_is_an_attribute_error():
    with pytest.raises(AttributeError, match="no attribute 'Nothing'"):
        clarion.Nothing  # noqa: B018
    with pytest.raises(ImportError):
        exec("from clarion import Nothing", {})


def test_import_is_cheap():
    heavy = "('torch', 'sentence_transformers', 'ranx', 'lightgbm', 'numpy', 'fastapi', 'nltk')"
    assert _run(f"import sys, clarion; print([m for m in {heavy} if m in sys.modules])") == "[]"


def test_lazy_import_loads_only_what_it_needs():
    # the fusion entry point loads neither the ClariQ nor the DSTC models' stack
    code = (
        "import sys; from clarion import two_step; "
        "print('clarion.clariq.clarifier' in sys.modules, 'torch' in sys.modules)"
    )
    assert _run(code) == "False False"


def test_modules_import():
    for module in ("clarion.cli", "clarion.evaluate.clariq_official", "clarion.data.clariq", "clarion.clariq.methods"):
        importlib.import_module(module)

"""clarion: mixed-initiative conversational search.

Decide, turn by turn, whether to ask a clarifying question, which one to ask, and how to answer once the
need is clear. Importing clarion is cheap: the models and fusions in :data:`_LAZY` load on first access
(``clarion.Clarifier`` imports the ClariQ stack, ``clarion.two_step`` the fusion package), the rest is plain data.
``clarion.fuse`` is the fusion package (every method by name: ``clarion.fuse.fuse("rrf", runs)``).

>>> from clarion import Clarifier, Grounder, two_step   # doctest: +SKIP
"""

from __future__ import annotations

import importlib
from typing import Any

from clarion.errors import ClarionError, DataError, InputError, ModelError
from clarion.types import Candidate, Qrels, Ranking, Run, Topic

__version__ = "0.1.0"

_LAZY = {
    # name -> "module:attribute", imported on first access (PEP 562); one line per public entry point
    "Assistant": "clarion.dialogue:Assistant",
    "Clarifier": "clarion.clariq.clarifier:Clarifier",
    "Grounder": "clarion.dstc.assistant:Grounder",
    "two_step": "clarion.fuse.two_step:two_step",
    "alpha_ensemble": "clarion.fuse.alpha:alpha_ensemble",
    "ranx_fuse": "clarion.fuse.standard:ranx_fuse",
    "ReplyRanker": "clarion.replies:ReplyRanker",
}

__all__ = [
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
    *_LAZY,
]


def __getattr__(name: str) -> Any:
    """Import a public entry point on first access and keep it in the module's namespace."""
    try:
        module, attribute = _LAZY[name].split(":")
    except KeyError:
        raise AttributeError(f"module 'clarion' has no attribute {name!r}") from None
    value = getattr(importlib.import_module(module), attribute)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY))

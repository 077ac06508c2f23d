"""clarion: mixed-initiative conversational search.

Decide, turn by turn, whether to ask a clarifying question, which one to ask, and how to answer once the
need is clear. Importing clarion is cheap: heavy dependencies load on first use.
"""

from __future__ import annotations

from clarion.errors import ClarionError, DataError, InputError, ModelError
from clarion.types import Candidate, Qrels, Ranking, Run, Topic

__version__ = "0.1.0"

__all__ = [
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


def __getattr__(name: str):
    if name == "Assistant":  # the conversation engine, imported on first use so `import clarion` stays cheap
        from clarion.dialogue import Assistant

        return Assistant
    raise AttributeError(f"module 'clarion' has no attribute {name!r}")

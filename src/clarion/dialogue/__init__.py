"""The conversation engine: clarify, answer or stop, turn by turn (see :mod:`clarion.dialogue.engine`).

``from clarion.dialogue import Assistant, Decision`` is cheap: models load in :meth:`Assistant.load`.
"""

from clarion.dialogue.engine import Assistant
from clarion.types import Decision

__all__ = ["Assistant", "Decision"]

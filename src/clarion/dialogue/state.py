"""The conversation so far, read from the turns a client sends (the service is stateless: the history is the state).

A conversation is a list of turns ending with the user's: ``{"role": "user" | "system", "text": str}`` mappings or
:class:`~clarion.types.Turn`, read as :class:`~clarion.types.Turn` (:func:`check_turns`). The
*request* is the user's first turn after the system last answered (or the first turn of all); each system
question since then, with the user's reply to it, is an :class:`Exchange`. A system turn is a question when it
ends with a question mark or is a bank question's text; any other system turn is an answer, and the next user
turn starts a new request.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from clarion.bounds import check_length
from clarion.errors import InputError, check_unicode
from clarion.types import ROLES, Turn

MAX_TURNS = 200


@dataclass(frozen=True)
class Exchange:
    """A clarifying question the system asked and the user's reply."""

    question: str
    answer: str
    question_id: str | None = None


@dataclass(frozen=True)
class State:
    """What the engine knows before deciding: the request, the questions asked since and their answers, and the
    user's last turn (the request itself when nothing was asked)."""

    request: str
    exchanges: tuple[Exchange, ...] = ()
    last: str = ""
    pending: bool = False
    """Whether the last system turn is a question the last user turn answers."""

    @property
    def asked(self) -> tuple[str, ...]:
        return tuple(e.question_id for e in self.exchanges if e.question_id)


def check_turns(turns: object) -> list[Turn]:
    """``turns`` (``{"role", "text"}`` mappings or :class:`~clarion.types.Turn`) as a list of
    :class:`~clarion.types.Turn`; :class:`InputError` naming the field otherwise."""
    if isinstance(turns, str | bytes) or not isinstance(turns, Sequence):
        raise InputError(f"turns: expected a list of {{role, text}} objects, got {type(turns).__name__}")
    if not turns:
        raise InputError("turns: empty; it must end with the user's turn")
    if len(turns) > MAX_TURNS:
        raise InputError(f"turns: {len(turns)} turns, more than {MAX_TURNS}")
    out = []
    for i, turn in enumerate(turns):
        if isinstance(turn, Turn):
            role, text = turn.role, turn.text
        elif isinstance(turn, Mapping):
            role, text = turn.get("role"), turn.get("text")
        else:
            raise InputError(f"turns[{i}]: expected an object with role and text, got {type(turn).__name__}")
        if role not in ROLES:
            raise InputError(f"turns[{i}].role: must be 'user' or 'system', got {role!r:.40}")
        if not isinstance(text, str) or not text.strip():
            raise InputError(f"turns[{i}].text: must be a non-empty string")
        check_length(text, f"turns[{i}].text")
        check_unicode(text, f"turns[{i}].text")
        out.append(turn if isinstance(turn, Turn) else Turn(role, text))
    if not out[-1].is_user:
        raise InputError(f"turns[{len(out) - 1}].role: the last turn must be the user's, got 'system'")
    return out


def normalised(text: str) -> str:
    """Lower case, letters and digits only, single spaces (how a system turn is matched to a bank question)."""
    return " ".join(re.findall(r"[a-z0-9]+", text.lower()))


def read_state(turns: Sequence[Turn], question_id: Callable[[str], str | None]) -> State:
    """The :class:`State` of checked ``turns`` (:func:`check_turns`); ``question_id(text)`` names a system turn's
    bank question (or None)."""
    start = 0
    for i, turn in enumerate(turns):
        if not turn.is_user and not _is_question(turn.text, question_id):
            start = i + 1
    users = [i for i in range(start, len(turns)) if turns[i].is_user]
    first = users[0]  # the last turn is the user's, so there is one
    request = turns[first].text.strip()
    exchanges = []
    for i in range(first + 1, len(turns)):
        if not turns[i].is_user and i + 1 < len(turns) and turns[i + 1].is_user:
            text = turns[i].text.strip()
            exchanges.append(Exchange(text, turns[i + 1].text.strip(), question_id(text)))
    pending = len(turns) >= 2 and not turns[-2].is_user and len(turns) - 1 > first
    return State(request, tuple(exchanges), turns[-1].text.strip(), pending)


def _is_question(text: str, question_id: Callable[[str], str | None]) -> bool:
    return text.rstrip().endswith("?") or question_id(text) is not None


def as_question(text: str) -> str:
    """A bank question (lower case, no punctuation) as the system says it: capitalised, with a question mark."""
    text = text.strip()
    if not text:
        return text
    return text[0].upper() + text[1:] + ("" if text.endswith("?") else "?")

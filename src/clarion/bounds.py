"""Allowed values of numeric settings and of input sizes, and the one-line refusal of a value outside them.

:data:`MAX_TURN_CHARS` is the one length limit of a turn or request, at every entry point; :func:`check_length`
refuses a longer text in one line.

A :class:`Bound` says what a setting may hold ("int in [1, inf)", "float in (0, 1] or None", "True or False");
:func:`check_fields` checks a configuration dataclass against a table of them, naming the class and the field:

>>> from dataclasses import dataclass
>>> @dataclass
... class Config:
...     folds: int = 5
>>> check_fields(Config(folds=1), {"folds": Bound("int", 2)})
Traceback (most recent call last):
...
clarion.errors.InputError: Config.folds must be int in [2, inf), got 1
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from enum import Enum
from numbers import Real

from clarion.errors import InputError

MAX_TURN_CHARS = 8_000
"""The longest turn or request clarion accepts, the same at every entry point: the CLI, a pipe, the service and the
library (``Assistant``, ``Clarifier``, ``Grounder``). A long request is accepted whole; each model reads the part that
fits its window (the sentence encoders their first 256-384 word pieces, the fine-tuned LM the end of its prompt),
the lexical features all of it."""


def check_length(text: str, where: str) -> str:
    """``text``, or :class:`InputError` naming ``where`` when it is longer than :data:`MAX_TURN_CHARS`."""
    if len(text) > MAX_TURN_CHARS:
        raise InputError(f"{where}: {len(text):,} characters, more than the {MAX_TURN_CHARS:,} accepted")
    return text


def _number_text(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else f"{value:g}"


def _finite(value: Real) -> bool:
    try:
        return math.isfinite(value)
    except OverflowError:  # an int too large for a float (10**400)
        return False


@dataclass(frozen=True)
class Bound:
    """``kind`` ``int``, ``float`` (finite numbers; an ``int`` has no fractional part) or ``bool``; the range is
    inclusive unless ``open_low`` / ``open_high`` (``None``: unbounded, written ``inf)``); ``optional``: ``None`` is
    allowed too."""

    kind: str
    low: float | None = None
    high: float | None = None
    open_low: bool = False
    open_high: bool = False
    optional: bool = False

    def range_text(self) -> str:
        low = "-inf" if self.low is None else _number_text(self.low)
        high = "inf" if self.high is None else _number_text(self.high)
        opening = "(" if self.open_low or self.low is None else "["
        closing = ")" if self.open_high or self.high is None else "]"
        return f"in {opening}{low}, {high}{closing}"

    def text(self) -> str:
        """What the setting may hold, as the error message says it."""
        base = "True or False" if self.kind == "bool" else f"{self.kind} {self.range_text()}"
        return f"{base} or None" if self.optional else base

    def admits(self, value, exact: bool = False) -> bool:
        """Whether ``value`` is allowed; ``exact``: an ``int`` must be a Python int (not ``2.0``)."""
        if value is None:
            return self.optional
        if self.kind == "bool":
            return isinstance(value, bool)
        if isinstance(value, bool) or not isinstance(value, Real) or not _finite(value):
            return False
        if self.kind == "int" and (value != int(value) or (exact and not isinstance(value, int))):
            return False
        below = self.low is not None and (value <= self.low if self.open_low else value < self.low)
        above = self.high is not None and (value >= self.high if self.open_high else value > self.high)
        return not (below or above)

    def check(self, name: str, value, exact: bool = False):
        """``value`` when admitted; otherwise :class:`InputError` ``"<name> must be <text>, got <value>"``."""
        if not self.admits(value, exact):
            raise InputError(f"{name} must be {self.text()}, got {value!r}")
        return value


FINITE = Bound("float")
"""Any finite number (not a bool, not NaN or infinite, not an int too large for a float)."""
FLAG = Bound("bool")
FRACTION = Bound("float", 0, 1)
SEED = Bound("int", 0)


def as_choice(name: str, choices: type[Enum], value) -> Enum:
    """``value`` as a member of the str Enum ``choices`` (a member or its value); otherwise one line naming ``name``."""
    try:
        return choices(value)
    except ValueError:
        allowed = ", ".join(member.value for member in choices)
        raise InputError(f"{name} must be one of {allowed}, got {value!r}") from None


def check_fields(config, bounds: Mapping[str, Bound]) -> None:
    """Refuse the first field of ``config`` outside its bound, naming ``<Class>.<field>`` (an ``int`` field must hold
    a Python int: ``2.0`` would reach ``range`` and fail there)."""
    owner = type(config).__name__
    for name, bound in bounds.items():
        bound.check(f"{owner}.{name}", getattr(config, name), exact=True)

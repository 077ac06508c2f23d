"""The progress callback the DSTC models report to (the CLI passes rich bars)."""

from __future__ import annotations

from collections.abc import Callable

Progress = Callable[[str, int], Callable[[int], None]]
"""``progress(description, total)`` returns an ``advance(n)`` callback (the CLI passes a rich bar)."""


def no_progress(description: str, total: int) -> Callable[[int], None]:
    """A :data:`Progress` that reports nothing."""
    return lambda n=1: None

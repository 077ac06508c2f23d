"""Answering input read line by line from stdin: the pipe protocol of ``clariq clarify -`` and ``dstc respond -``.

A model loads once (seconds); every line after that is answered as soon as it is read (milliseconds), so an
assistant can keep one ``clarion`` process open and talk to it through a pipe. With ``--json`` each input line gets
exactly one output line: ``{"line": N, ...the answer...}``, or ``{"line": N, "error": "..."}`` for a line that
cannot be answered, so the two sides stay in step. Every error is also one line on stderr
(``error: <stdin>:N: ...``) and makes the exit code 2 once the input ends; a broken line never stops the others.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from typing import BinaryIO

import typer

from clarion.cli.common import echo_json
from clarion.errors import InputError

STDIN = "<stdin>"
MAX_LINE_BYTES = 1 << 20
"""Longer lines are refused (and skipped to their end) without being held in memory."""

Answer = Callable[[str], tuple[dict, list[str]]]
"""One line's text -> (its JSON answer, its lines for humans); raises :class:`InputError` for bad input."""


def numbered_lines(stream: BinaryIO, limit: int = MAX_LINE_BYTES) -> Iterator[tuple[int, str | InputError]]:
    """Each line of ``stream`` with its 1-based number and without its line break, as soon as it is read; a line
    that is not UTF-8 or longer than ``limit`` bytes comes as an :class:`InputError` instead."""
    number = 0
    while raw := stream.readline(limit + 1):
        number += 1
        if len(raw) > limit and not raw.endswith(b"\n"):
            rest = raw
            while rest and not rest.endswith(b"\n"):  # skip to the end of the line, a chunk at a time
                rest = stream.readline(limit + 1)
            yield number, InputError(f"the line is longer than {limit:,} bytes")
            continue
        raw = raw.removesuffix(b"\n").removesuffix(b"\r")
        try:
            yield number, raw.decode("utf-8")
        except UnicodeDecodeError as err:
            yield number, InputError(f"the line is not UTF-8 text (byte {raw[err.start]:#04x} at {err.start})")


def answer_lines(answer: Answer, as_json: bool, what: str, stream: BinaryIO | None = None) -> int:
    """Answer every line of ``stream`` (default: stdin) as it arrives; returns how many lines failed.

    ``what`` names a line's content for the hint shown when a person types at a terminal. Input with no line at
    all is an :class:`InputError`.
    """
    if stream is None:
        if sys.stdin.isatty() and not as_json:
            typer.echo(f"ready: one {what} per line (Ctrl-D ends)", err=True)
        stream = sys.stdin.buffer
    failed = answered = 0
    for number, line in numbered_lines(stream):
        answered += 1
        try:
            if isinstance(line, InputError):
                raise line
            reply, text = answer(line)
        except InputError as err:
            failed += 1
            typer.echo(f"error: {STDIN}:{number}: {err}", err=True)
            if as_json:
                echo_json({"line": number, "error": str(err)})
        else:
            if as_json:
                echo_json({"line": number, **reply})
            else:
                typer.echo("\n".join(text) + "\n")
        sys.stdout.flush()
    if not answered:
        raise InputError(f"{STDIN}: no input: give one {what} per line")
    return failed

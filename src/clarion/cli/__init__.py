"""The ``clarion`` command: thin sub-apps over library calls.

Sub-apps live one per module (``data``, ``clariq``, ``fuse``, ``dstc``); each exposes a ``typer.Typer``
named ``app``. :func:`main` turns any :class:`~clarion.errors.ClarionError` into one line on stderr and
exit code 2 — never a traceback for a user mistake.
"""

from __future__ import annotations

import importlib
import os
import sys

import click
import typer

from clarion.errors import ClarionError

SUBAPPS = {
    "data": "Find and fetch datasets.",
    "clariq": "ClariQ: clarification need, question ranking, evaluation, benchmark.",
    "fuse": "Rank fusion of TREC runs (two-step MRR/NDCG ensemble, RRF, CombSUM, ...).",
    "dstc": "DSTC9-11 knowledge-grounded dialogue: detection, selection, generation.",
    "replies": "Graded reply ranking (Yandex General Conversation format): convert, train, rank, evaluate.",
}


def _flags_show_no_type() -> None:
    """Help lists a flag (``--json``, ``--meteor/--no-meteor``, ``--help``) without a type: typer >= 0.2x writes
    ``<bool>`` beside it, as if it took a value. Left alone where typer's option class has no such hook."""
    option = getattr(getattr(typer, "core", None), "TyperOption", None)
    shown = getattr(option, "display_type_rich", None)
    if shown is None or getattr(shown, "_clarion_flags", False):
        return

    def display_type_rich(self, ctx):
        if getattr(self, "is_flag", False) and not getattr(self, "count", False):
            return None
        return shown(self, ctx)

    display_type_rich._clarion_flags = True
    option.display_type_rich = display_type_rich


_flags_show_no_type()

app = typer.Typer(
    name="clarion",
    help="clarion: mixed-initiative conversational search — when to clarify, what to ask, how to answer.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    add_completion=False,
)

for _name, _help in SUBAPPS.items():
    _module = importlib.import_module(f"clarion.cli.{_name}")
    app.add_typer(_module.app, name=_name, help=_help)
app.registered_commands += importlib.import_module("clarion.cli.converse").app.registered_commands  # converse, chat
importlib.import_module("clarion.cli.serve").register(app)  # `clarion serve` and `clarion eval`


@app.command()
def version() -> None:
    """Print clarion's version."""
    from clarion import __version__

    typer.echo(__version__)


def _usage_errors() -> tuple[type[Exception], ...]:
    """The exception classes of a command-line mistake (a bad option value, a missing option, an unknown
    command): typer's own since it vendors click, click's before."""
    kinds: list[type[Exception]] = []
    if hasattr(typer, "TyperException"):
        kinds.append(typer.TyperException)
    try:
        import click

        kinds.append(click.ClickException)
    except ImportError:  # pragma: no cover - typer without click
        pass
    return tuple(kinds)


_received: list[int] = []
"""SIGTERM received during this command."""


AGAIN_SECONDS = 0.5
"""After SIGTERM, how often its KeyboardInterrupt is raised again until one unwinds (:func:`_again`)."""


def _terminate(signum, frame) -> None:
    """SIGTERM (``kill``, a CI timeout, ``docker stop``) raised like Ctrl-C, so that every ``finally`` and
    temporary-file cleanup runs on the way out; raised again every :data:`AGAIN_SECONDS` until it unwinds."""
    import signal

    _received.append(signum)
    if hasattr(signal, "setitimer"):
        signal.signal(signal.SIGALRM, _again)
        signal.setitimer(signal.ITIMER_REAL, AGAIN_SECONDS, AGAIN_SECONDS)
    raise KeyboardInterrupt


def _again(signum, frame) -> None:
    """SIGTERM's KeyboardInterrupt once more, unless one is unwinding (its ``finally`` blocks are running): an
    exception raised while C code calls back into Python is swallowed there (numba compiling ranx's kernels
    printed "Exception ignored on calling ctypes callback" and the command ran on, wrote its output, exit 0)."""
    if not isinstance(sys.exc_info()[1], KeyboardInterrupt):
        raise KeyboardInterrupt


def _stop_again() -> None:
    """Disarm :func:`_again` (the command is leaving)."""
    import signal

    if _received and hasattr(signal, "setitimer"):
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, signal.SIG_DFL)


def main(argv: list[str] | None = None) -> None:
    """Entry point of the ``clarion`` console script."""
    import signal
    import threading

    # clarion draws its own progress bars; transformers' per-load and per-save bars would break them up
    os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")
    _received.clear()
    if threading.current_thread() is not threading.main_thread():  # only the main thread may set handlers
        return _run(argv)
    before = signal.signal(signal.SIGTERM, _terminate)
    try:
        _run(argv)
    finally:
        _stop_again()
        signal.signal(signal.SIGTERM, before)


def _run(argv: list[str] | None) -> None:
    try:
        code = app(args=argv, prog_name="clarion", standalone_mode=False)
    except ClarionError as err:
        typer.echo(f"error: {err}", err=True)
        sys.exit(2)
    except (KeyboardInterrupt, typer.Abort, click.exceptions.Abort):
        code = 130
    except _usage_errors() as err:
        if type(err).__name__ == "NoArgsIsHelpError":  # the help is printed already
            sys.exit(2)
        ctx = getattr(err, "ctx", None)
        hint = f" (see '{ctx.command_path} --help')" if ctx is not None else ""
        typer.echo(f"error: {err.format_message()}{hint}", err=True)
        sys.exit(2)
    _stop_again()
    if _received:  # SIGTERM came as the command ended, or its interrupt was swallowed and never came again
        code = 130
    if code == 130:  # Ctrl-C or SIGTERM: typer returns 130 in non-standalone mode
        terminated = bool(_received)
        typer.echo("terminated" if terminated else "interrupted", err=True)
        sys.exit(143 if terminated else 130)
    if isinstance(code, int) and code:  # typer.Exit(code) from a command
        sys.exit(code)

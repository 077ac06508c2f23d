"""Options and helpers shared by the CLI sub-apps."""

from __future__ import annotations

import json
import sys
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console

DataDirOption = Annotated[
    Path | None,
    typer.Option("--data-dir", help="Data directory (default: $CLARION_DATA_DIR, ../shared/data, cache)."),
]

WorkersOption = Annotated[
    int | None,
    typer.Option(
        "--workers", min=1, help="Run on a local Ray cluster of N workers started for the run (needs clarion[ray])."
    ),
]
RayAddressOption = Annotated[
    str | None,
    typer.Option("--ray-address", help="Run on the Ray cluster at ADDR (host:port from `ray start --head`, or auto)."),
]

console = Console(stderr=True)
"""Progress bars and tables for humans go to stderr, so stdout stays machine-readable."""

stdout = Console(width=None if sys.stdout.isatty() else 160)
"""Tables for humans on stdout (wide when piped, so columns are not squeezed)."""


def echo_json(obj) -> None:
    """Exactly one JSON object on stdout."""
    typer.echo(json.dumps(obj, sort_keys=False))


def echo_answer(reply: dict, text: list[str], as_json: bool) -> None:
    """One answer on stdout: its JSON object, or its lines for humans."""
    if as_json:
        echo_json(reply)
    else:
        typer.echo("\n".join(text))


@contextmanager
def one_at_a_time():
    """One torch thread while a command answers one request at a time (after its model is loaded or trained):
    ~30 ms per request instead of a median ~40 ms with a ~110 ms 90th percentile on two threads that wait on each
    other (benchmarks/pipe_latency.py). The thread count is restored afterwards."""
    import torch

    before = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        yield
    finally:
        torch.set_num_threads(before)


@contextmanager
def bars():
    """The one progress announcer of the commands: rich bars (:func:`progress`) in the library's
    :data:`clarion.store.Progress` shape, ``start(description, total)`` returning ``advance(n)``."""
    with progress() as bar:

        def start(description: str, total: int):
            task = bar.add_task(description, total=max(total, 1))
            return lambda n=1: bar.advance(task, n)

        yield start


def progress():
    """A rich progress bar on stderr (description, bar, count, elapsed, remaining). It shows from its first task
    on, so a command that fails before any work leaves nothing but its error line."""
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )

    class LazyProgress(Progress):
        def __enter__(self):
            return self

        def __exit__(self, *exc) -> None:
            if self.live.is_started:
                self.stop()

        def add_task(self, *args, **kwargs):
            if not self.live.is_started:
                self.start()
            return super().add_task(*args, **kwargs)

    return LazyProgress(
        TextColumn("[progress.description]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        TimeRemainingColumn(),
        console=console,
        transient=False,
    )


def map_with_bar(load, work, items: list, cluster, description: str, size: int | None = None) -> list:
    """:func:`clarion.scale.map_blocks` with one progress bar over all the workers' items."""
    from clarion.scale import map_blocks

    with progress() as bars:
        task = bars.add_task(f"{description} ({cluster.workers or 'all'} workers)", total=len(items))
        return map_blocks(load, work, items, cluster, size=size, progress=lambda n: bars.advance(task, n))

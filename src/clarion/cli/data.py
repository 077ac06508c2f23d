"""``clarion data``: where the data is, and fetching it."""

from __future__ import annotations

from enum import Enum

import typer

from clarion.cli.common import DataDirOption, console, progress

app = typer.Typer(no_args_is_help=True)


class Dataset(str, Enum):
    clariq = "clariq"


@app.command()
def where(data_dir: DataDirOption = None) -> None:
    """Print the data directory clarion uses and the datasets found there."""
    from clarion.data.location import cache_dir
    from clarion.data.location import data_dir as resolve

    root = resolve(data_dir)
    typer.echo(f"data:  {root}")
    typer.echo(f"cache: {cache_dir()}")
    if root.is_dir():
        for child in sorted(p for p in root.iterdir() if p.is_dir()):
            typer.echo(f"  {child.name}")


@app.command()
def fetch(dataset: Dataset = typer.Argument(..., help="Dataset to download.")) -> None:
    """Download a dataset's official files into the cache (needs network)."""
    from clarion.data.fetch import fetch_clariq
    from clarion.data.location import cache_dir

    target = cache_dir() / "data" / dataset.value
    with progress() as bar:
        written = fetch_clariq(target, bar)
    console.print(f"{len(written)} file(s) downloaded into {target}")

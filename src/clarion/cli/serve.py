"""``clarion serve`` (the HTTP service and its pages) and ``clarion eval export`` / ``clarion eval report`` (the
human-evaluation records it stores)."""

from __future__ import annotations

import os
from contextlib import suppress
from dataclasses import replace
from pathlib import Path
from typing import Annotated

import typer

from clarion.cli.common import DataDirOption, echo_json, stdout
from clarion.errors import DataError, InputError
from clarion.serve.config import TOKEN_VARIABLE, Feature, ServeConfig, default_db

MAX_CONNECTIONS = 256
"""Connections uvicorn serves at once, per process; beyond them it answers 503 (requests wait for a model in the
bounded pool)."""
HEALTHCHECK_SECONDS = 30
"""How long uvicorn's supervisor waits for a worker process to answer its ping before it replaces the process (a
process loading its models is busy: uvicorn's 5 s default is short for that on two loaded cores)."""

DbOption = Annotated[
    Path | None,
    typer.Option(
        "--db",
        help="SQLite file of the evaluation sessions, turns and ratings (default: serve/eval.sqlite in the cache "
        "directory, $CLARION_CACHE_DIR or ~/.cache/clarion).",
    ),
]

FeatureOption = Annotated[
    list[Feature] | None,
    typer.Option(
        "--feature",
        help="Load these endpoints' models (repeat; default: converse, clarify, and respond with --knowledge).",
    ),
]
ProcessesOption = Annotated[
    int, typer.Option("--processes", help="Server processes behind the one port, each loading its own models.")
]

eval_app = typer.Typer(no_args_is_help=True, add_completion=False)


def serve(
    host: Annotated[str, typer.Option("--host", help="Address to listen on.")] = "127.0.0.1",
    port: Annotated[int, typer.Option("--port", help="Port to listen on.")] = 8000,
    knowledge: Annotated[
        Path | None, typer.Option("--knowledge", help="DSTC knowledge.json (or its directory) to answer from.")
    ] = None,
    documents: Annotated[
        Path | None, typer.Option("--documents", help="Document collection (JSONL) to answer from.")
    ] = None,
    db: DbOption = None,
    model: Annotated[
        Path | None, typer.Option("--model", help="ClariQ pipeline directory (default: the train+dev model).")
    ] = None,
    dstc_model: Annotated[
        Path | None, typer.Option("--dstc-model", help="DSTC pipeline directory (default: the default model).")
    ] = None,
    feature: FeatureOption = None,
    workers: Annotated[int, typer.Option("--workers", help="Threads running model calls (per process).")] = 2,
    processes: ProcessesOption = 1,
    batch: Annotated[
        int, typer.Option("--batch", help="Most concurrent converse/clarify requests one model call takes.")
    ] = 16,
    threads: Annotated[int, typer.Option("--threads", help="Torch threads per model call.")] = 1,
    system: Annotated[str, typer.Option("--system", help="Name the evaluation records give this system.")] = "clarion",
    data_dir: DataDirOption = None,
) -> None:
    """Serve clarion over HTTP: /v1/converse, /v1/clarify, /v1/respond, the chat page at / and the evaluation page
    at /eval (API documentation at /docs). The models load once, before the server listens.

    GET /v1/eval/export is on only when the CLARION_ADMIN_TOKEN environment variable holds a token (16+ characters).
    With --processes N, uvicorn runs N processes on the one port, sharing the evaluation database. Each loads the
    models (memory x N), once this process has loaded them to check them (and trained what was missing).
    """
    try:
        import uvicorn

        from clarion.serve import create_app
    except ImportError as err:
        raise InputError(f"clarion serve needs {err.name}: pip install 'clarion[serve]'") from None
    for name, path in (("--knowledge", knowledge), ("--documents", documents)):
        if path is not None and not path.exists():
            raise DataError(path, f"no such file or directory (given as {name})")
    options = {"clariq_model": model, "features": tuple(feature) if feature else None}
    config = ServeConfig(host, port, knowledge, documents, db, dstc_model=dstc_model, data_dir=data_dir, **options)
    settings = {"workers": workers, "processes": processes, "batch": batch, "threads": threads, "system": system}
    config = replace(config, **settings, admin_token=os.environ.get(TOKEN_VARIABLE) or None)
    typer.echo("loading the models … (the first run trains them: progress below); /health answers once done", err=True)
    services = _loaded(config)
    typer.echo(f"evaluation records: {config.db}", err=True)
    listen = {"host": host, "port": port, "log_level": "info", "limit_concurrency": MAX_CONNECTIONS}
    if config.processes == 1:
        uvicorn.run(create_app(config, services), workers=1, **listen)
        return
    del services  # checked (and trained when missing); each process loads its own
    _serve_processes(config, listen)


def _serve_processes(config: ServeConfig, listen: dict) -> None:
    """uvicorn's own processes: it binds the port, starts ``config.processes`` processes that each build the app by
    :data:`~clarion.serve.app.FACTORY` from the settings in ``$CLARION_SERVE_CONFIG``, and restarts one that dies."""
    import gc

    import uvicorn

    from clarion.serve.app import FACTORY
    from clarion.serve.config import CONFIG_VARIABLE, to_environment

    gc.collect()  # the models this process loaded to check them
    typer.echo(f"starting {config.processes} processes; each loads the models again", err=True)
    os.environ[CONFIG_VARIABLE] = to_environment(config)  # the processes inherit it (and the token's variable)
    try:
        uvicorn.run(
            FACTORY, factory=True, workers=config.processes, timeout_worker_healthcheck=HEALTHCHECK_SECONDS, **listen
        )
    finally:
        with suppress(KeyError):
            del os.environ[CONFIG_VARIABLE]


def _loaded(config):
    """The models of ``config``, loaded with progress bars; here rather than in the app's lifespan, so that a model
    error is one line and exit code 2."""
    from clarion.cli.common import bars
    from clarion.serve.services import load_services

    with bars() as progress_bars:
        return load_services(config, progress_bars)


def _store(db: Path | None):
    from clarion.serve.storage import EvalStore

    db = default_db() if db is None else db
    if not db.is_file():
        raise DataError(db, "no such evaluation database")
    return EvalStore(db)


@eval_app.command()
def export(
    out: Annotated[Path, typer.Option("--out", help="JSON-lines file to write (one session per line).")],
    db: DbOption = None,
) -> None:
    """Write every evaluation session (need, turns, decisions, ratings) as JSON lines."""
    import json

    from clarion.data.io import atomic_writer, check_output

    check_output(out)
    store = _store(db)
    try:
        count = 0
        with atomic_writer(out) as handle:
            for record in store.export():
                handle.write(json.dumps(record, ensure_ascii=False) + "\n")
                count += 1
    finally:
        store.close()
    typer.echo(f"{count} sessions written to {out}", err=True)


@eval_app.command()
def report(
    db: DbOption = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the rows as one JSON array.")] = False,
) -> None:
    """Mean ratings per system and need level with 95% confidence intervals (one finished dialogue, one value)."""
    from rich.table import Table

    from clarion.serve.report import MEASURES, as_json_rows, report

    store = _store(db)
    try:
        rows = report(store.export())
    finally:
        store.close()
    if as_json:
        echo_json(as_json_rows(rows))
        return
    table = Table(title="Human evaluation (mean [95% CI] over finished dialogues)")
    for column in ("system", "need", "level", "dialogues", "unfinished", *MEASURES):
        table.add_column(column)
    for row in rows:
        measures = [row[m].text() for m in MEASURES]
        fixed = [row["system"], row["need_kind"], row["need_level"], str(row["dialogues"]), str(row["unfinished"])]
        table.add_row(*fixed, *measures)
    stdout.print(table)


def register(app: typer.Typer) -> None:
    """``serve`` and the ``eval`` group on the ``clarion`` app."""
    app.command("serve")(serve)
    app.add_typer(eval_app, name="eval", help="Human-evaluation records of clarion serve: export, report.")

"""`clarion fuse`: fuse TREC runs by a named method, tune its parameters, list the methods.

    clarion fuse --method two-step --mrr M1.run [--mrr M2.run] --ndcg N.run --out FUSED.run [--param p=2]
    clarion fuse --method rrf --run A.run --run B.run --out FUSED.run [--param k=60]
    clarion fuse tune --method two-step --mrr M1.run --ndcg N.run --qrels best=best.qrel --qrels rel=rel.qrel \\
        --target best:mrr=0.5 --target rel:recall@30=0.5 --trials 50 [--out TUNED.run]
    clarion fuse methods
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from clarion.cli.common import echo_json, progress
from clarion.errors import DataError, InputError, check_unicode
from clarion.fuse.registry import Method
from clarion.fuse.standard import Norm

app = typer.Typer(
    no_args_is_help=True,
    invoke_without_command=True,
    help="Fuse TREC runs: `clarion fuse --method NAME ... --out RUN`, or `clarion fuse tune ...`.",
)

MethodOption = Annotated[
    Method, typer.Option("--method", "-m", help="Fusion method (see `clarion fuse methods`).", show_default=True)
]
MrrOption = Annotated[list[Path] | None, typer.Option("--mrr", help="MRR run (TREC), most accurate first; repeatable.")]
NdcgOption = Annotated[Path | None, typer.Option("--ndcg", help="NDCG run (TREC) for two-step / alpha.")]
RunOption = Annotated[list[Path] | None, typer.Option("--run", help="Run to fuse (TREC); repeatable.")]
ParamOption = Annotated[
    list[str] | None, typer.Option("--param", "-p", help="NAME=VALUE (weights: comma-separated); repeatable.")
]
NormOption = Annotated[
    Norm,
    typer.Option(
        "--norm",
        help="Per-query score normalisation before fusing; the score-based methods (alpha, comb*, wsum, wmnz, mixed)"
        " use it, the rank-based ones (two-step, rrf, isr, rbc, borda, condorcet, ...) do not.",
    ),
]
RunIdOption = Annotated[str, typer.Option("--run-id", help="Run id written in the output run.")]
DepthOption = Annotated[int | None, typer.Option("--depth", help="Keep only the top DEPTH per query.")]


def _given(mrr: list[Path] | None, ndcg: Path | None, run: list[Path] | None) -> list[Path]:
    """Every run file named on the command line, whatever its role (what ``--out`` must not overwrite)."""
    return [*(mrr or []), *([ndcg] if ndcg is not None else []), *(run or [])]


def _inputs(method: str, mrr: list[Path] | None, ndcg: Path | None, run: list[Path] | None):
    """Read the runs; returns (entry, runs, ndcg_run)."""
    from clarion.data.trec import read_run
    from clarion.fuse import get_method

    entry = get_method(method)
    if entry.roles:
        if run:
            raise InputError(f"--method {entry.method.value} takes --mrr and --ndcg runs, not --run")
        if not mrr or ndcg is None:
            raise InputError(f"--method {entry.method.value} needs at least one --mrr run and one --ndcg run")
        return entry, [read_run(p) for p in mrr], read_run(ndcg)
    if mrr or ndcg is not None:  # the roles of two-step and alpha; here the runs' order would follow the options'
        raise InputError(f"--method {entry.method.value} takes --run runs, not --mrr or --ndcg (two-step and alpha)")
    if len(run or []) < 2:
        raise InputError(f"--method {entry.method.value} needs at least two runs (--run A --run B)")
    return entry, [read_run(p) for p in run or []], None


def _params(entry, texts: list[str] | None, n_runs: int, option: str = "--param") -> dict:
    """``NAME=VALUE`` texts of ``option`` (``--param`` or ``--fix``) parsed and checked against the registry."""
    known = {p.name: p for p in entry.params}
    params = {}
    for text in texts or []:
        name, sep, value = text.partition("=")
        name = name.strip().replace("-", "_")
        if not sep:
            raise InputError(f"{option} {text!r}: expected NAME=VALUE")
        if name not in known:
            allowed = ", ".join(known) or "none"
            raise InputError(f"{option} {name}: not a parameter of {entry.method.value}; allowed: {allowed}")
        if name in params:
            raise InputError(f"{option} {name}: given twice; give each parameter once")
        try:
            params[name] = known[name].parse(value, n_runs)
        except InputError as err:
            raise InputError(f"{option} {text!r}: {err}") from None
    return params


def _run_id(run_id: str) -> None:
    """Check ``--run-id`` before any work: it is written as one field of every output row."""
    check_unicode(run_id, "--run-id")
    if any(c.isspace() or not c.isprintable() for c in run_id):
        raise InputError(f"--run-id must be one word (no spaces or control characters), got {run_id!r}")


@app.callback()
def main(
    ctx: typer.Context,
    method: MethodOption = Method.TWO_STEP,
    mrr: MrrOption = None,
    ndcg: NdcgOption = None,
    run: RunOption = None,
    out: Annotated[
        Path | None,
        typer.Option("--out", "-o", help="Fused run (TREC) to write (required; 0-based ranks, ties nudged by 1e-6)."),
    ] = None,
    param: ParamOption = None,
    norm: NormOption = Norm.MIN_MAX,
    run_id: RunIdOption = "",
    depth: DepthOption = None,
) -> None:
    """Fuse TREC runs with one method and write the fused run."""
    if ctx.invoked_subcommand is not None:
        return
    from clarion.data.io import check_output
    from clarion.data.trec import write_run
    from clarion.fuse import fuse

    if out is None:
        raise InputError("--out is required: where to write the fused run")
    if depth is not None and depth < 1:
        raise InputError(f"--depth must be >= 1, got {depth}")
    _run_id(run_id)
    check_output(out, _given(mrr, ndcg, run))
    entry, runs, ndcg_run = _inputs(method, mrr, ndcg, run)
    params = _params(entry, param, len(runs) + (ndcg_run is not None))
    fused = fuse(entry.method, runs, ndcg_run, params, norm)
    write_run(out, fused, run_id or entry.method.value, depth, strict=True)
    echo_json({"method": entry.method.value, "params": params, "queries": len(fused), "out": str(out)})


def _qrels(texts: list[str], queries: set[str]) -> dict:
    """The ``--qrels`` by name; a file that judges none of the runs' ``queries`` is an error naming it."""
    from clarion.data.trec import read_qrels
    from clarion.fuse.tune import DEFAULT_QRELS, overlap_problem

    qrels = {}
    for text in texts:
        name, sep, path = text.partition("=")
        if not sep:
            name, path = DEFAULT_QRELS, text
        if name in qrels:
            raise InputError(f"--qrels {name!r} given twice")
        qrels[name] = read_qrels(path)
        problem = overlap_problem(qrels[name], queries)
        if problem:
            raise DataError(path, problem)
    return qrels


@app.command()
def tune(
    method: MethodOption = Method.TWO_STEP,
    mrr: MrrOption = None,
    ndcg: NdcgOption = None,
    run: RunOption = None,
    qrels: Annotated[
        list[str], typer.Option("--qrels", help="[NAME=]PATH of validation qrels (TREC); repeatable.")
    ] = ...,
    target: Annotated[
        list[str], typer.Option("--target", "-t", help="[QRELS:]METRIC[=WEIGHT], e.g. best:mrr=0.5; repeatable.")
    ] = ...,
    trials: Annotated[int, typer.Option("--trials", min=1, help="Number of parameter sets (first = defaults).")] = 50,
    seed: Annotated[int, typer.Option("--seed", help="Random seed.")] = 0,
    fix: Annotated[list[str] | None, typer.Option("--fix", help="NAME=VALUE kept fixed; repeatable.")] = None,
    norm: NormOption = Norm.MIN_MAX,
    out: Annotated[Path | None, typer.Option("--out", "-o", help="Also write the run fused with the best.")] = None,
    run_id: RunIdOption = "",
) -> None:
    """Random search of a method's parameters on validation qrels; prints the best as JSON."""
    from clarion.data.io import check_output
    from clarion.data.trec import write_run
    from clarion.fuse import Target, fuse, random_search

    _run_id(run_id)
    if out is not None:
        check_output(out, _given(mrr, ndcg, run))
    entry, runs, ndcg_run = _inputs(method, mrr, ndcg, run)
    n_runs = len(runs) + (ndcg_run is not None)
    fixed = _params(entry, fix, n_runs, "--fix")
    targets = [Target.parse(t) for t in target]
    judged = _qrels(qrels, set(ndcg_run or {}).union(*runs))
    with progress() as bar:
        task = bar.add_task(f"tuning {entry.method.value}", total=trials)
        result = random_search(
            entry.method,
            runs,
            judged,
            targets,
            ndcg_run,
            norm,
            trials,
            seed,
            fixed,
            on_trial=lambda _: bar.advance(task),
        )
    if out is not None:
        fused = fuse(entry.method, runs, ndcg_run, result.best.params, norm)
        write_run(out, fused, run_id or entry.method.value, strict=True)
    defaults = result.trials[0]
    echo_json(
        {
            "method": entry.method.value,
            "best": {"params": result.best.params, "score": result.best.score, "metrics": result.best.metrics},
            "defaults": {"params": defaults.params, "score": defaults.score, "metrics": defaults.metrics},
            "trials": len(result.trials),
        }
    )


@app.command()
def methods() -> None:
    """List the fusion methods and their parameters (from the registry)."""
    from clarion.fuse import METHODS

    for entry in METHODS.values():
        roles = " (--mrr ... --ndcg ...)" if entry.roles else " (--run ... --run ...)"
        typer.echo(f"{entry.method.value}{roles}: {entry.summary}")
        for p in entry.params:
            default = "equal" if p.default is None else p.default
            typer.echo(f"    {p.name} ({p.kind}, {p.range_text()}, default {default}): {p.help}")

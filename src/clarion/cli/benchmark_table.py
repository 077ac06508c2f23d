"""Rendering of the ClariQ benchmark result beside the quoted leaderboard."""

from __future__ import annotations

from rich.table import Table

from clarion.clariq import leaderboard
from clarion.clariq.benchmark import BenchmarkResult
from clarion.cli.common import echo_json, stdout


def _fmt(value) -> str:
    return "—" if value is None else f"{value:.4f}"


def print_benchmark(result: BenchmarkResult, as_json: bool = False) -> None:
    if as_json:
        echo_json(
            {
                "split": result.split,
                "questions": {n: s for n, s, _ in result.questions},
                "need": {n: s for n, s, _ in result.need},
                "confusion": result.confusion,
                "documents": dict(result.documents),
            }
        )
        return
    table = Table(title=f"ClariQ question relevance ({result.split}, official scorer)")
    for col in ("method", "split", "Recall@5", "Recall@10", "Recall@20", "Recall@30", "time (s)"):
        table.add_column(col, justify="left" if col in ("method", "split") else "right")
    for name, s, secs in result.questions:
        row = [s[f"Recall{k}"] for k in (5, 10, 20, 30)]
        table.add_row(name, result.split, *map(_fmt, row), f"{secs:.1f}" if secs else "")
    table.add_section()
    for name, split, *vals in leaderboard.QUESTION_ROWS:
        table.add_row(f"[dim]{name}[/dim]", split, *map(_fmt, vals), "")
    table.caption = f"Leaderboard rows quoted from: {leaderboard.SOURCE}"
    stdout.print(table)

    need = Table(title=f"ClariQ clarification need ({result.split}, weighted, official scorer)")
    for col in ("method", "split", "Precision", "Recall", "F1", "time (s)"):
        need.add_column(col, justify="left" if col in ("method", "split") else "right")
    for name, s, secs in result.need:
        need.add_row(name, result.split, _fmt(s["Precision"]), _fmt(s["Recall"]), _fmt(s["F1"]), f"{secs:.1f}")
    need.add_section()
    for name, split, *vals in leaderboard.NEED_ROWS:
        need.add_row(f"[dim]{name}[/dim]", split, *map(_fmt, vals), "")
    need.caption = f"Leaderboard rows quoted from: {leaderboard.SOURCE}"
    stdout.print(need)

    if result.documents:
        docs = Table(title=f"ClariQ document relevance ({result.split}, official scorer, facets with judgements)")
        metrics = ("MRR100", "P1", "NDCG1", "NDCG3", "NDCG5", "NDCG20")
        docs.add_column("run")
        for metric in metrics:
            docs.add_column(metric, justify="right")
        for name, means in result.documents:
            docs.add_row(name, *(_fmt(means.get(m)) for m in metrics))
        docs.caption = "Scored on the lookup table implied by the organisers' published .eval files"
        stdout.print(docs)

    for name, matrix in result.confusion.items():
        cm = Table(title=f"Need {name!r}: confusion", caption="rows gold 1-4, columns predicted 1-4")
        cm.add_column("gold")
        for label in range(1, 5):
            cm.add_column(str(label), justify="right")
        for label, counts in enumerate(matrix, start=1):
            cm.add_row(str(label), *map(str, counts))
        stdout.print(cm)

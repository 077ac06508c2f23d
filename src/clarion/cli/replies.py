"""`clarion replies`: graded reply ranking in the Yandex General Conversation format.

clarion replies convert --out DIR [--seed 13]
clarion replies evaluate --labels LABELLED.tsv --run SUBMISSION [--json]
clarion replies train --data TRAIN.tsv [--method quality-ensemble] [--no-weights] [--dev DEV.tsv] [--out DIR]
clarion replies rank --input TEST.tsv --out SUBMISSION [--model DIR]
clarion replies methods
"""

from __future__ import annotations

from enum import Enum
from pathlib import Path
from typing import Annotated

import typer

from clarion.cli.common import DataDirOption, RayAddressOption, WorkersOption, bars, console, echo_json
from clarion.replies.methods import DEFAULT_METHOD, METHODS
from clarion.scale import cluster_of

app = typer.Typer(no_args_is_help=True, help="Graded reply ranking (Yandex General Conversation format).")

Method = Enum("Method", {name: name for name in METHODS}, type=str)  # type: ignore[misc]
"""The reply-ranking methods, from the registry."""


@app.command()
def convert(
    out: Annotated[Path, typer.Option("--out", help="Directory for train/dev/test TSV files.")],
    seed: Annotated[int, typer.Option(help="Seed of the split and of the DailyDialog++ reply sampling.")] = 13,
    data_dir: DataDirOption = None,
) -> None:
    """Write GRADE and DailyDialog++ in the task's format, split by context into train / dev / test."""
    from clarion.data.io import check_output_dir
    from clarion.data.location import dataset_dir
    from clarion.data.replies_convert import convert as run
    from clarion.data.replies_convert import write_converted

    check_output_dir(out)
    counts = write_converted(run(dataset_dir("replies", data_dir), seed), out)
    for name, count in counts.items():
        typer.echo(f"{out / name}\t{count['contexts']} contexts\t{count['rows']} rows")


@app.command()
def evaluate(
    labels: Annotated[Path, typer.Option("--labels", help="Labelled file (training format) of the ranked rows.")],
    run: Annotated[Path, typer.Option("--run", help="Submission: `context_id reply_id` lines, best first.")],
    as_json: Annotated[bool, typer.Option("--json", help="One JSON object on stdout.")] = False,
) -> None:
    """Mean NDCG x 100,000 of a submission (rel 2/1/0 for good/neutral/bad; confidence unused)."""
    from clarion.data.replies import read_replies, read_submission
    from clarion.evaluate.replies import mean_ndcg

    rows = read_replies(labels, labelled=True)
    ranking = read_submission(run, rows, labels)
    graded: dict[str, dict[str, int]] = {}
    for row in rows:
        graded.setdefault(row.context_id, {})[row.reply_id] = row.relevance
    result = mean_ndcg(graded, ranking)
    if as_json:
        echo_json(result)
    else:
        typer.echo(f"ndcg x100000\t{result['ndcg']:.1f}\t({result['contexts']} contexts)")


@app.command()
def train(
    data: Annotated[Path, typer.Option("--data", help="Labelled training file.")],
    method: Annotated[Method, typer.Option("--method", help="Ranking method.")] = Method(DEFAULT_METHOD),
    weights: Annotated[bool, typer.Option(help="Weigh training replies by their confidence.")] = True,
    dev: Annotated[Path | None, typer.Option("--dev", help="Labelled file scored after training.")] = None,
    out: Annotated[Path | None, typer.Option("--out", help="Model directory (default: in the cache).")] = None,
) -> None:
    """Train a ranker; prints the model directory."""
    from clarion.data.io import check_output_dir, fingerprint_files
    from clarion.data.replies import read_replies
    from clarion.replies.ranker import method_config
    from clarion.replies.training import train_into
    from clarion.store import model_dir, writable_cache

    if out is not None:
        check_output_dir(out)
    else:
        writable_cache()
    rows = read_replies(data, labelled=True)
    dev_rows = read_replies(dev, labelled=True) if dev is not None else []
    fingerprint = fingerprint_files([data])
    out = out or model_dir("replies", method.value, method_config(method.value, weights), fingerprint)
    with bars() as progress_bars:
        train_into(out, rows, fingerprint, method.value, weights, progress_bars, dev_rows)
    typer.echo(str(out))


@app.command()
def rank(
    input: Annotated[Path, typer.Option("--input", help="Test file (6 fields) or labelled file (8 fields).")],
    out: Annotated[Path, typer.Option("--out", help="Submission to write.")],
    model: Annotated[Path | None, typer.Option("--model", help="Model directory (default: the default model).")] = None,
    data_dir: DataDirOption = None,
    workers: WorkersOption = None,
    ray_address: RayAddressOption = None,
) -> None:
    """Rank each context's replies and write the submission (contexts in ascending id order)."""
    from clarion.data.io import check_output
    from clarion.data.replies import read_replies, write_submission
    from clarion.replies.ranker import ReplyRanker, groups_of, ranked_ids
    from clarion.replies.training import ensure_default_model

    cluster = cluster_of(workers, ray_address)
    check_output(out, [input])
    rows = read_replies(input)
    if model is None:
        with bars() as progress_bars:
            model = ensure_default_model(data_dir, progress_bars, say=console.print)
    ranker = ReplyRanker.load(model)  # a damaged model fails here, once
    ids, groups = groups_of(rows)
    reply_ids: dict[str, list[str]] = {}
    for row in rows:
        reply_ids.setdefault(row.context_id, []).append(row.reply_id)
    if cluster is not None:
        from clarion.cli.scaled import reply_scores

        scores = reply_scores(model, groups, cluster)
    else:
        with console.status("ranking"):
            scores = ranker.score_groups(groups)
    write_submission(out, {c: ranked_ids(reply_ids[c], s) for c, s in zip(ids, scores, strict=True)})
    console.print(f"wrote the ranking of {len(ids)} contexts to {out}")


@app.command()
def methods() -> None:
    """List the ranking methods."""
    from clarion.replies.methods import method_class

    for name in METHODS:
        kind = method_class(name)
        typer.echo(
            f"{name}{' (default)' if name == DEFAULT_METHOD else ''}\t{'trained' if kind.trained else 'zero-shot'}"
        )

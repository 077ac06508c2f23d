"""``clarion clariq``: rank clarifying questions, predict clarification need, evaluate, benchmark, train."""

from __future__ import annotations

from enum import Enum
from pathlib import Path
from typing import Annotated

import typer

from clarion.clariq.clarifier import clarification
from clarion.clariq.methods import (
    DEFAULT_NEED_METHOD,
    DEFAULT_RANK_METHOD,
    NEED_METHODS,
    RANK_METHODS,
)
from clarion.cli.common import (
    DataDirOption,
    RayAddressOption,
    WorkersOption,
    console,
    echo_answer,
    echo_json,
    one_at_a_time,
    progress,
    stdout,
)
from clarion.cli.scaled import clariq_results
from clarion.errors import DataError, InputError
from clarion.scale import cluster_of

app = typer.Typer(no_args_is_help=True)
evaluate_app = typer.Typer(no_args_is_help=True, help="Score a run with the official ClariQ metrics.")
app.add_typer(evaluate_app, name="evaluate")

RankMethod = Enum("RankMethod", {name: name for name in RANK_METHODS}, type=str)
NeedMethod = Enum("NeedMethod", {name: name for name in NEED_METHODS}, type=str)

TopicsOption = Annotated[
    Path,
    typer.Option("--topics", help="ClariQ TSV with topic_id and initial_request (or 'initial request')."),
]
OutOption = Annotated[Path, typer.Option("--out", help="Output file (written atomically).")]
LabelsOption = Annotated[Path, typer.Option("--labels", help="Labelled ClariQ TSV (train/dev/test_with_labels).")]
RunOption = Annotated[Path, typer.Option("--run", help="The run file to score.")]
JsonOption = Annotated[bool, typer.Option("--json", help="Print exactly one JSON object on stdout.")]
SplitsOption = Annotated[
    str, typer.Option("--splits", help="Comma-separated labelled splits to learn from (train, dev).")
]


def _splits(text: str) -> tuple[str, ...]:
    from clarion.data.clariq_constants import check_splits

    return check_splits(text.split(","))


def _print_metrics(title: str, metrics: dict[str, float], as_json: bool) -> None:
    if as_json:
        echo_json({k: round(v, 6) for k, v in metrics.items()})
        return
    from rich.table import Table

    table = Table(title=title)
    for name in metrics:
        table.add_column(name, justify="right")
    table.add_row(*(f"{v:.4f}" for v in metrics.values()))
    stdout.print(table)


def _read_topics(path: Path) -> list:
    """The topics of ``path``, each request checked as the models check it (the error names the topic)."""
    from clarion.data.clariq import read_topics
    from clarion.data.clariq_constants import validate_request

    return read_topics(path, check=validate_request)


@app.command()
def rank(
    topics: TopicsOption,
    out: OutOption,
    method: Annotated[RankMethod, typer.Option(help="Ranking method.")] = DEFAULT_RANK_METHOD,
    splits: SplitsOption = "train,dev",
    depth: Annotated[
        int, typer.Option(min=30, max=100, help="Questions per topic, 30-100 (the full pipeline's shortlist is 100).")
    ] = 100,
    data_dir: DataDirOption = None,
    workers: WorkersOption = None,
    ray_address: RayAddressOption = None,
) -> None:
    """Rank the question bank for every topic; writes a TREC run (topic_id Q0 question_id rank score run_id).

    Full method: ClariQ requests through the pipeline, rewordings as the request they reword, others by similarity.
    """
    from clarion.clariq.methods import rank_method
    from clarion.data.io import check_output
    from clarion.data.trec import write_run

    cluster = cluster_of(workers, ray_address)
    check_output(out, [topics])
    items = _read_topics(topics)
    run = _results("rank", method.value, rank_method, items, splits, data_dir, cluster)
    write_run(out, run, run_id=f"clarion-{method.value}", depth=depth)
    console.print(f"wrote {out} ({len(run)} topics)")


def _results(kind: str, method: str, registry, items, splits: str, data_dir, cluster):
    """The ``rank`` run or ``need`` labels of ``method`` for ``items``: in this process, or on the Ray ``cluster``
    (the models trained here first, so that no worker trains them)."""
    from clarion.data.clariq import ClariQ

    data = ClariQ.load(data_dir)
    if cluster is not None:
        _ensure_trained(kind, method, data, _splits(splits))
        return clariq_results(kind, method, items, data_dir, _splits(splits), cluster)
    doing = "ranking" if kind == "rank" else "predicting need for"
    with console.status(f"{doing} {len(items)} topics with {method}"):
        return registry(method)(items, data, _splits(splits))


@app.command()
def need(
    topics: TopicsOption,
    out: OutOption,
    method: Annotated[NeedMethod, typer.Option(help="Need prediction method.")] = DEFAULT_NEED_METHOD,
    splits: SplitsOption = "train,dev",
    data_dir: DataDirOption = None,
    workers: WorkersOption = None,
    ray_address: RayAddressOption = None,
) -> None:
    """Predict clarification need (1-4) for every topic; writes 'topic_id label' lines."""
    from clarion.clariq.methods import need_method
    from clarion.clariq.need_io import write_need_run
    from clarion.data.io import check_output

    cluster = cluster_of(workers, ray_address)
    check_output(out, [topics])
    items = _read_topics(topics)
    labels = _results("need", method.value, need_method, items, splits, data_dir, cluster)
    write_need_run(out, {t.id: labels[t.id] for t in items})
    console.print(f"wrote {out} ({len(items)} topics)")


def _ensure_trained(kind: str, method: str, data, splits: tuple) -> None:
    """The model of a trained method in the cache (trained now when absent), before the workers load it."""
    if (kind, method) == ("rank", "full"):
        from clarion.clariq.train import load_ranker

        load_ranker(data, splits)
    elif (kind, method) == ("need", "model"):
        from clarion.clariq.need import load_or_train

        load_or_train(data, splits)


@evaluate_app.command("need")
def evaluate_need(labels: LabelsOption, run: RunOption, json: JsonOption = False) -> None:
    """Weighted precision/recall/F1 of a need run (a topic missing from the run counts as label 0)."""
    from clarion.clariq.need_io import read_need_run
    from clarion.data.clariq import read_labels
    from clarion.evaluate.clariq_official import clarification_need

    gold = read_labels(labels)
    pred = read_need_run(run, known_topics=set(gold.need))
    _print_metrics("Clarification need", clarification_need(gold.need, pred).means, json)


@evaluate_app.command("questions")
def evaluate_questions(
    labels: LabelsOption,
    run: RunOption,
    json: JsonOption = False,
    corrected: Annotated[
        bool,
        typer.Option("--corrected", help="Keep questions with tied scores (the official tool drops them)."),
    ] = False,
    data_dir: DataDirOption = None,
) -> None:
    """Question relevance Recall@5/10/20/30, identical to the official tool (unless --corrected)."""
    from clarion.data.clariq import read_labels
    from clarion.evaluate.clariq_official import question_relevance

    gold = read_labels(labels)
    rows = _checked_rows(run, set(gold.requests), _bank_ids(data_dir))
    result = question_relevance(gold.questions, rows, drop_tied_scores=not corrected)
    _print_metrics("Question relevance", result.means, json)


@evaluate_app.command("documents")
def evaluate_documents(
    run: RunOption,
    eval_dict: Annotated[
        Path, typer.Option("--eval-dict", help="Official document-relevance table (*_eval.pkl or JSON).")
    ],
    labels: Annotated[
        Path | None, typer.Option("--labels", help="Labelled TSV (single turn: maps topics to facets).")
    ] = None,
    json: JsonOption = False,
) -> None:
    """Document relevance of each topic's first question (single turn), or each context's (multi turn:
    a run in the quoted-question format, no --labels needed)."""
    from clarion.data.clariq import read_eval_table, read_labels, read_multi_turn_run
    from clarion.data.io import read_text
    from clarion.errors import InputError
    from clarion.evaluate.clariq_official import document_relevance

    table = read_eval_table(eval_dict)
    first = read_text(run).split("\n", 1)[0].split()
    multi_turn = len(first) > 2 and first[2].startswith('"')  # context_id 0 "question text" rank score run_id
    if multi_turn:
        rows = read_multi_turn_run(run)
        contexts = {r.query_id: [r.query_id] for r in rows}
    else:
        if labels is None:
            raise InputError("--labels is required for a single-turn run (it maps topics to facets)")
        gold = read_labels(labels)
        rows = _checked_rows(run, set(gold.requests), None)
        contexts = gold.facets
    try:
        scores = document_relevance(table, contexts, rows).means
    except InputError as err:  # the table's content is the file's
        raise InputError(f"{eval_dict}: {err}") from None
    _print_metrics("Document relevance", scores, json)


def _bank_ids(data_dir) -> set[str] | None:
    """The question bank's ids; ``None`` (no check) only when no data directory was named and none was found."""
    import os

    from clarion.data.clariq import ClariQ
    from clarion.data.location import dataset_dir

    try:
        directory = dataset_dir("clariq", data_dir)
    except DataError:
        if data_dir is not None or os.environ.get("CLARION_DATA_DIR"):
            raise
        return None
    return set(ClariQ(directory).bank)


def _checked_rows(path: Path, topics: set[str], bank: set[str] | None):
    from clarion.data.trec import read_run_rows

    # A pair scored twice with different scores stays: the official sample runs hold such rows (dev_bm25, query
    # 191, Q02435 on lines 491 and 496) and the official scorer takes them, so these numbers must too.
    rows = read_run_rows(path)
    for row in rows:
        if row.query_id not in topics:
            raise DataError(path, f"unknown topic {row.query_id!r} (not in the labels file)", row.line)
        if bank is not None and row.doc_id not in bank:
            raise DataError(path, f"unknown question id {row.doc_id!r} (not in the question bank)", row.line)
    return rows


@app.command()
def train(
    splits: SplitsOption = "train,dev",
    out: Annotated[Path | None, typer.Option("--out", help="Model directory (default: in the cache).")] = None,
    data_dir: DataDirOption = None,
) -> None:
    """Train everything the default pipeline needs (ranker and need model) into a versioned directory."""
    from clarion.clariq.train import ranker_steps, train_models
    from clarion.data.clariq import ClariQ
    from clarion.data.io import check_output_dir

    if out is not None:
        check_output_dir(out)
    data = ClariQ.load(data_dir)
    with progress() as bar:
        task = bar.add_task(f"training on {splits}", total=ranker_steps())
        path = train_models(data, _splits(splits), out_dir=out, progress=lambda n: bar.advance(task, n))
    console.print(f"model written to {path}")


@app.command()
def clarify(
    request: Annotated[
        str,
        typer.Argument(
            help="The user's request, e.g. 'Tell me about dinosaurs.'; '-' reads one request per line from stdin."
        ),
    ],
    k: Annotated[
        int, typer.Option("--k", min=1, help="Clarifying questions to show (at most shortlist + 1: 101 by default).")
    ] = 5,
    threshold: Annotated[
        float,
        typer.Option("--threshold", help="Ask when P(the request is not clear, need >= 2) reaches this (0-1]."),
    ] = 0.5,
    model: Annotated[
        Path | None, typer.Option("--model", help="Pipeline directory (default: the train+dev model).")
    ] = None,
    data_dir: DataDirOption = None,
    json: Annotated[
        bool, typer.Option("--json", help="Print one JSON object on stdout (with '-': one per input line).")
    ] = False,
) -> None:
    """A request through the Clarifier API: how much it needs clarifying, and which questions to ask.

    With '-' the model loads once and each line of stdin is answered as it arrives (an assistant can keep the
    process open as a pipe); a bad line gets an error line and the others go on (exit code 2 at the end).
    """
    from clarion.clariq.clarifier import Clarifier, check_threshold
    from clarion.clariq.ranker_config import RankerConfig
    from clarion.data.clariq_constants import validate_request

    stream = request == "-"
    check_threshold(threshold)  # user mistakes fail before the model loads (~10 s)
    if not stream:
        validate_request(request)
    if model is None and k > RankerConfig().shortlist + 1:
        raise InputError(
            f"--k must be at most {RankerConfig().shortlist + 1} (the shortlist and 'ask nothing'), got {k}"
        )
    bot = Clarifier.load(model, data_dir)
    with one_at_a_time():
        if not stream:
            echo_answer(*clarification(bot, request, k, threshold), json)
            return
        from clarion.cli.lines import answer_lines

        def answer(line: str) -> tuple[dict, list[str]]:
            reply, text = clarification(bot, line, k, threshold)
            return {"request": validate_request(line), **reply}, [f"> {line.strip()}", *text]

        failed = answer_lines(answer, json, "request")
    if failed:
        raise typer.Exit(2)


@app.command()
def benchmark(
    split: Annotated[str, typer.Option(help="Labelled split to score (models learn from train only).")] = "dev",
    rank_methods: Annotated[
        list[RankMethod] | None, typer.Option("--rank-method", help="Only these rank methods (repeatable).")
    ] = None,
    need_methods: Annotated[
        list[NeedMethod] | None, typer.Option("--need-method", help="Only these need methods (repeatable).")
    ] = None,
    data_dir: DataDirOption = None,
    json: JsonOption = False,
) -> None:
    """Run every method on the split, score it officially, print it beside the published leaderboard."""
    from clarion.clariq.benchmark import in_sample, run_benchmark, split_labels
    from clarion.cli.benchmark_table import print_benchmark
    from clarion.data.clariq import ClariQ

    data = ClariQ.load(data_dir)
    split_labels(data, split)  # an unknown split or missing labels: one line, before the progress bar
    if in_sample(split):
        typer.echo(f"note: the models learn from {split}, so its scores are in-sample fit, not evaluation", err=True)
    ranks = [m.value for m in rank_methods] if rank_methods else list(RANK_METHODS)
    needs = [m.value for m in need_methods] if need_methods else list(NEED_METHODS)
    with progress() as bar:
        task = bar.add_task(f"ClariQ {split}", total=len(ranks) + len(needs))
        result = run_benchmark(
            data,
            split,
            ranks,
            needs,
            step=lambda name: bar.update(task, description=name),
            done=lambda: bar.advance(task),
        )
        bar.update(task, description="done")
    print_benchmark(result, as_json=json)

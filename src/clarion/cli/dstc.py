"""``clarion dstc``: train, predict and evaluate the DSTC9-11 knowledge-grounded dialogue pipeline.

``--data DIR`` holds ``logs.json`` and ``knowledge.json`` (and ``labels.json`` for train and evaluate), in the
DSTC9/10 or the DSTC11 format (detected from knowledge.json). ``--split train|dev`` restricts a command to one
side of the by-dialogue split of :mod:`clarion.data.dstc_split` (default ``all``). Without ``--data`` the
``dstc11_track5`` dataset of the data directory is used.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Annotated

import typer

from clarion.cli.common import (
    DataDirOption,
    RayAddressOption,
    WorkersOption,
    bars,
    console,
    echo_answer,
    echo_json,
    one_at_a_time,
    stdout,
)
from clarion.dstc.assistant import grounding_reply
from clarion.dstc.models.default import DEFAULT_DATASET
from clarion.dstc.models.pipeline import DataSplit
from clarion.respond.consensus import Generator
from clarion.scale import cluster_of

app = typer.Typer(no_args_is_help=True)

DataOption = Annotated[
    Path | None,
    typer.Option("--data", help="Directory with logs.json, knowledge.json [, labels.json] (default: dstc11_track5)."),
]
SplitOption = Annotated[
    DataSplit, typer.Option("--split", help="Use all contexts, or the train or dev side of the dialogue split.")
]
ModelOption = Annotated[
    Path | None,
    typer.Option("--model", help="Model directory (default: the default model, trained on dstc11_track5 train)."),
]
JsonOption = Annotated[bool, typer.Option("--json", help="Print exactly one JSON object on stdout.")]


def _set_option(text: str):
    """A repeatable ``--set FIELD=VALUE`` option (:mod:`clarion.dstc.models.options`)."""
    return Annotated[list[str] | None, typer.Option("--set", metavar="FIELD=VALUE", help=text)]


SetOption = _set_option(
    "Change a setting the model reads when it predicts, e.g. rules.ask_entity=null (JSON value; repeatable)."
)
TrainSetOption = _set_option(
    "Train with a setting changed, e.g. select.anchor_precision=null (JSON value; a nested field dotted; repeatable)."
)


def _data(data: Path | None, data_dir: Path | None) -> Path:
    from clarion.data.location import dataset_dir

    if data is None:
        return dataset_dir(DEFAULT_DATASET, data_dir)
    if not data.is_dir():
        from clarion.data.io import no_directory
        from clarion.errors import DataError

        raise DataError(data, f"--data {no_directory(data)}: give the directory holding logs.json and knowledge.json")
    return data


@app.command()
def train(
    data: DataOption = None,
    split: SplitOption = DataSplit.all,
    out: Annotated[Path | None, typer.Option("--out", help="Model directory (default: in the cache).")] = None,
    generator: Annotated[Generator | None, typer.Option(help="Response generator (default: consensus).")] = None,
    settings: TrainSetOption = None,
    data_dir: DataDirOption = None,
) -> None:
    """Train detection, selection and the response generator; prints the model directory (in the cache, keyed by
    the configuration, unless --out is given)."""
    from clarion.data.io import check_output_dir
    from clarion.dstc.models.default import default_config, train_into
    from clarion.dstc.models.options import parse_settings, with_overrides

    if out is not None:
        check_output_dir(out)
    config = default_config()
    if settings:
        config = with_overrides(config, parse_settings(settings))
    if generator is not None:
        config.generator = generator
    with bars() as progress_bars:
        directory = train_into(_data(data, data_dir), split, out, config, progress_bars)
    typer.echo(str(directory))


@app.command()
def predict(
    out: Annotated[Path, typer.Option("--out", help="Prediction JSON (written atomically).")],
    data: DataOption = None,
    split: SplitOption = DataSplit.all,
    model: ModelOption = None,
    generator: Annotated[Generator | None, typer.Option(help="Response generator (default: the model's own).")] = None,
    lm_samples: Annotated[
        int | None,
        typer.Option(min=0, help="lm generator: sampled candidates per turn besides the greedy one (0: greedy only)."),
    ] = None,
    settings: SetOption = None,
    data_dir: DataDirOption = None,
    workers: WorkersOption = None,
    ray_address: RayAddressOption = None,
) -> None:
    """Write one prediction per context (target, knowledge, response) in the data's track format."""
    from clarion.data.dstc import load_dataset, write_predictions
    from clarion.data.io import check_output
    from clarion.dstc.models.modeldir import load_model
    from clarion.dstc.models.options import prediction_config
    from clarion.dstc.models.pipeline import PipelineConfig, apply_split

    cluster = cluster_of(workers, ray_address)
    directory = _data(data, data_dir)
    check_output(out, [directory / name for name in ("logs.json", "knowledge.json", "labels.json")])
    prediction_config(PipelineConfig(), settings or [])  # a bad setting fails before the model loads
    dataset = apply_split(load_dataset(directory, labels=False), split)
    if model is None:
        from clarion.dstc.models.default import ensure_default_model, held_out_split

        trained_on = held_out_split(directory, split, data_dir)
        with bars() as progress_bars:
            model = ensure_default_model(data_dir, progress_bars, say=console.print, split=trained_on)
    if cluster is not None:
        from clarion.cli.scaled import dstc_predictions

        load_model(model)  # a damaged model fails here, once
        changes = {"generator": generator, "lm_samples": lm_samples, "settings": settings}
        predictions = dstc_predictions(directory, split, model, changes, len(dataset.contexts), cluster)
        write_predictions(out, predictions, dataset.format, n_contexts=len(dataset.contexts))
        console.print(f"wrote {len(predictions)} predictions to {out}")
        return
    pipeline = load_model(model)
    if generator is not None:
        pipeline.config.generator = generator
    if lm_samples is not None:
        pipeline.config.lm = replace(pipeline.config.lm, samples=lm_samples)
    if settings:
        pipeline.config = prediction_config(pipeline.config, settings)
    with bars() as progress_bars:
        predictions = pipeline.predict(dataset, progress_bars)
    write_predictions(out, predictions, dataset.format, n_contexts=len(dataset.contexts))
    console.print(f"wrote {len(predictions)} predictions to {out}")


@app.command()
def respond(
    turns: Annotated[
        list[str],
        typer.Argument(
            help="The dialogue, oldest turn first; turns alternate user and system, ending with the user. "
            "'-' reads one dialogue per line from stdin, each a JSON array of turns."
        ),
    ],
    knowledge: Annotated[
        Path | None,
        typer.Option("--knowledge", help="knowledge.json, or a directory holding one (default: dstc11_track5's)."),
    ] = None,
    model: ModelOption = None,
    as_json: Annotated[
        bool, typer.Option("--json", help="Print one JSON object on stdout (with '-': one per input line).")
    ] = False,
    settings: SetOption = None,
    data_dir: DataDirOption = None,
) -> None:
    """Answer a dialogue's last user turn: is it knowledge-seeking, which snippets, what response.

    With '-' the model and knowledge load once and each line of stdin, a JSON array of turns (strings, or
    {"speaker": "U"|"S", "text": ...} objects), is answered as it arrives; a bad line gets an error line and the
    others go on (exit code 2 at the end).
    """
    from clarion.dstc.assistant import Grounder, as_turns
    from clarion.dstc.models.options import prediction_config
    from clarion.dstc.models.pipeline import PipelineConfig

    stream = turns == ["-"]
    if not stream:
        as_turns(turns, "")  # a bad dialogue fails in one line before the model and knowledge load
    prediction_config(PipelineConfig(), settings or [])  # so does a bad setting
    with bars() as progress_bars:
        grounder = Grounder.load(model, knowledge, data_dir, progress_bars)
    if settings:
        grounder.model.config = prediction_config(grounder.model.config, settings)
    with one_at_a_time():
        if not stream:
            echo_answer(*grounding_reply(grounder, turns), as_json)
            return
        from clarion.cli.lines import answer_lines

        def answer(line: str) -> tuple[dict, list[str]]:
            dialogue = as_turns(_dialogue(line), "")
            reply, text = grounding_reply(grounder, dialogue)
            return reply, [f"> {dialogue[-1].text}", *text]

        failed = answer_lines(answer, as_json, "dialogue (a JSON array of turns)")
    if failed:
        raise typer.Exit(2)


def _dialogue(line: str) -> list:
    """One stdin line's dialogue: a JSON array of turns."""
    import json

    from clarion.errors import InputError

    try:
        dialogue = json.loads(line)
    except json.JSONDecodeError as err:
        raise InputError(f"not JSON ({err.msg} at character {err.pos}): give a JSON array of turns") from None
    if not isinstance(dialogue, list):
        raise InputError(f"expected a JSON array of turns, got a JSON {type(dialogue).__name__}")
    return dialogue


def _scores(directory: Path, pred: Path, split: DataSplit, meteor: bool) -> dict:
    from clarion.data.dstc import load_dataset, read_raw_labels
    from clarion.dstc.evaluate import SCORERS, evaluate_predictions
    from clarion.dstc.models.pipeline import apply_split

    options = {} if meteor else {"meteor": False}
    if split is DataSplit.all:
        return evaluate_predictions(directory, pred, **options)
    dataset = apply_split(load_dataset(directory, labels=True), split)
    hyps = read_raw_labels(
        pred,
        dataset.format,
        n_contexts=len(dataset.contexts),
        knowledge=dataset.knowledge,
        contexts_from=f"the {split.value} side of logs.json",
    )
    refs = [label.to_json(dataset.format) for label in dataset.labels]
    return SCORERS[dataset.format](refs, hyps, **options)


@app.command()
def evaluate(
    pred: Annotated[Path, typer.Option("--pred", help="Prediction JSON to score.")],
    data: DataOption = None,
    split: SplitOption = DataSplit.all,
    meteor: Annotated[bool, typer.Option(help="Score METEOR (DSTC11: the Java jar, ~30 s; DSTC9/10: nltk).")] = True,
    as_json: JsonOption = False,
    data_dir: DataDirOption = None,
) -> None:
    """Score predictions with the track's official-compatible scorer (the split must match predict's)."""
    directory = _data(data, data_dir)
    with console.status("scoring"):
        scores = _scores(directory, pred, split, meteor)
    if as_json:
        echo_json(scores)
        return
    from rich.table import Table

    for task, metrics in scores.items():
        table = Table(title=task)
        for name in metrics:
            table.add_column(name, justify="right")
        table.add_row(*(f"{v:.4f}" for v in metrics.values()))
        stdout.print(table)

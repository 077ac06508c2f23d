"""``clarion converse`` (conversations in a JSONL file, one decision each) and ``clarion chat`` (the engine in the
terminal). Both are thin over :class:`clarion.dialogue.Assistant`."""

from __future__ import annotations

import json
import sys
from functools import partial
from pathlib import Path
from typing import Annotated

import typer

from clarion.cli.common import RayAddressOption, WorkersOption, map_with_bar
from clarion.errors import InputError
from clarion.scale import cluster_of

app = typer.Typer(no_args_is_help=True, add_completion=False)

KnowledgeOption = Annotated[
    Path | None, typer.Option("--knowledge", help="A DSTC knowledge base (knowledge.json or its directory).")
]
DocumentsOption = Annotated[
    Path | None, typer.Option("--documents", help='A document collection: JSONL of {"id", "title", "text"}.')
]
ModelDirOption = Annotated[
    Path | None, typer.Option("--model-dir", help="A ClariQ model directory (default: the train+dev model).")
]
CostOption = Annotated[
    float, typer.Option("--cost", min=0.0, max=1.0, help="Price of one question (0 asks readily, 1 never).")
]
OUTPUT_FIELDS = ("action", "text", "query", "need", "question_id", "sources", "scores", "options", "understood")
WARMUP_TEXT = "Tell me about dinosaurs."
"""The request ``clarion chat`` answers once before its prompt (the need model and the encoders load on first use)."""


def load_assistant(knowledge, documents, model_dir, cost, starter: bool = True):
    """The engine with progress bars; with nothing trained, the starter ClariQ models unless ``starter`` is False."""
    from clarion.cli.common import bars
    from clarion.dialogue import Assistant

    with bars() as report:
        return Assistant.load(
            knowledge=knowledge, documents=documents, model_dir=model_dir, progress=report, cost=cost, starter=starter
        )


def decide_line(assistant, text: str) -> dict:
    """One input line's output object; :class:`InputError` naming the field for a bad line."""
    try:
        obj = json.loads(text)
    except json.JSONDecodeError as err:
        raise InputError(f"not JSON ({err.msg} at column {err.colno})") from None
    if not isinstance(obj, dict):
        raise InputError('expected an object {"id", "turns"}')
    if "id" not in obj:
        raise InputError("id: missing")
    if "turns" not in obj:
        raise InputError("turns: missing")
    decision = assistant.reply(obj["turns"]).to_dict()
    return {"id": obj["id"], **{k: decision[k] for k in OUTPUT_FIELDS}}


@app.command()
def converse(
    conversations: Annotated[Path, typer.Option("--conversations", help='JSONL: {"id", "turns": [...]} per line.')],
    out: Annotated[Path, typer.Option("--out", help="JSONL: one decision per input line, in order.")],
    knowledge: KnowledgeOption = None,
    documents: DocumentsOption = None,
    model_dir: ModelDirOption = None,
    cost: CostOption = 0.5,
    workers: WorkersOption = None,
    ray_address: RayAddressOption = None,
) -> None:
    """One decision (clarify, answer or stop) per conversation; a bad line gets {"id", "error"} and one stderr line,
    and the command exits 2 at the end."""
    from clarion.data.io import atomic_writer, check_output, read_lines

    cluster = cluster_of(workers, ray_address)
    check_output(out, [conversations])
    lines = list(read_lines(conversations))
    if not lines:
        raise InputError(f"{conversations}: no conversations (one JSON object per line)")
    assistant = load_assistant(knowledge, documents, model_dir, cost)  # trains what is missing, once
    if cluster is None:
        results = decide_block(assistant, lines)
    else:
        model_dir = model_dir or assistant.clarifier.directory  # the workers load the models the driver chose
        del assistant  # each worker loads its own from the cache just filled
        from clarion.cli.scaled import absolute

        load = partial(_worker_assistant, absolute(knowledge), absolute(documents), absolute(model_dir), cost)
        results = map_with_bar(load, decide_block, lines, cluster, "deciding")
    failed, rows = 0, []
    for (number, _), row in zip(lines, results, strict=True):
        if "error" in row:
            failed += 1
            typer.echo(f"error: {conversations}:{number}: {row['error']}", err=True)
        rows.append(row)
    with atomic_writer(out) as handle:
        for row in rows:
            handle.write(json.dumps(row, ensure_ascii=False) + "\n")
    typer.echo(f"{len(rows) - failed} decisions, {failed} bad lines -> {out}", err=True)
    if failed:
        raise typer.Exit(2)


def decide_block(assistant, lines: list[tuple[int, str]]) -> list[dict]:
    """The output object of each numbered input line: its decision, or ``{"id", "error"}`` for a bad line."""
    from clarion.cli.common import one_at_a_time

    rows = []
    with one_at_a_time():
        for _, text in lines:
            try:
                rows.append(decide_line(assistant, text))
            except InputError as err:
                rows.append({"id": _id_of(text), "error": str(err)})
    return rows


def _worker_assistant(knowledge, documents, model_dir, cost):
    """A worker's assistant, from the model cache (no progress bar: the driver draws the one bar)."""
    from clarion.dialogue import Assistant

    return Assistant.load(knowledge=knowledge, documents=documents, model_dir=model_dir, cost=cost)


def _id_of(text: str):
    try:
        obj = json.loads(text)
    except json.JSONDecodeError:
        return None
    return obj.get("id") if isinstance(obj, dict) else None


HELP = "Type a request. /why shows the numbers behind the last decision, /reset starts over, /quit leaves."


def chat_session(assistant, read=input, write=print) -> None:
    """The chat loop: the history grows turn by turn; ``read`` raising EOFError ends it."""
    history: list[dict] = []
    last = None
    write(HELP)
    while True:
        try:
            line = read("you> ").strip()
        except (EOFError, KeyboardInterrupt):
            write("")
            return
        if not line:
            continue
        if line in ("/quit", "/exit"):
            return
        if line == "/reset":
            history, last = [], None
            write("(new conversation)")
            continue
        if line == "/why":
            write(json.dumps(last.to_dict() if last else {}, indent=2, ensure_ascii=False))
            continue
        try:
            last = assistant.reply([*history, {"role": "user", "text": line}])
        except InputError as err:
            write(f"error: {err}")
            continue
        history.append({"role": "user", "text": line})
        if last.action == "stop":
            write("clarion> (goodbye; the conversation starts over)")
            history = []
            continue
        history.append({"role": "system", "text": last.text})
        write(f"clarion> {last.text}")
        for number, option in enumerate(last.options, 1):  # "2" or the option's words answer it
            write(f"  {number}. {option}")


@app.command()
def chat(
    knowledge: KnowledgeOption = None,
    documents: DocumentsOption = None,
    model_dir: ModelDirOption = None,
    cost: CostOption = 0.5,
    prepare: Annotated[
        bool,
        typer.Option(
            "--prepare",
            help="Train the full models a conversation needs (when absent; not the starter ones), load them, answer "
            "one test turn and exit; chat, converse and serve then start in seconds.",
        ),
    ] = False,
) -> None:
    """Talk with the engine in the terminal (history kept; /reset, /why, /quit)."""
    import time

    from clarion.cli.common import one_at_a_time

    typer.echo("loading the conversation models … (the first run trains them: progress below)", err=True)
    started = time.monotonic()
    assistant = load_assistant(knowledge, documents, model_dir, cost, starter=not prepare)
    assistant.reply([{"role": "user", "text": WARMUP_TEXT}])  # what loads on first use loads now, not at turn 1
    if prepare:
        typer.echo(f"the conversation models are ready ({time.monotonic() - started:.0f} s): clarion chat", err=True)
        return
    typer.echo(f"ready ({time.monotonic() - started:.0f} s)", err=True)
    with one_at_a_time():
        chat_session(assistant, write=lambda text: (print(text), sys.stdout.flush()))


@app.command("converse-run")
def converse_run(
    contexts: Annotated[Path, typer.Option("--contexts", help="ClariQ multi-turn contexts (*.pkl or JSON).")],
    out: Annotated[Path, typer.Option("--out", help='Run file: context_id 0 "question" rank score run_id.')],
    model_dir: ModelDirOption = None,
    run_id: Annotated[str, typer.Option("--run-id", help="The run's name (one word).")] = "clarion_converse",
) -> None:
    """The engine's next question for every ClariQ multi-turn context, as a multi-turn run."""
    from clarion.data.io import check_output
    from clarion.dialogue.runs import write_run

    check_output(out, [contexts])
    assistant = load_assistant(None, None, model_dir, 0.5)
    written = write_run(assistant, contexts, out, run_id)
    typer.echo(f"{written} contexts -> {out}", err=True)

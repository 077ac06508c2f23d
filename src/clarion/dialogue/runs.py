"""ClariQ multi-turn runs written by the engine: ``context_id 0 "question text" rank score run_id``.

A multi-turn context (the organisers' synthetic conversations, :func:`clarion.data.clariq.read_conversations`)
is a request and the question/answer pairs so far; the run holds, per context, the engine's next question (rank 0)
— chosen as in a conversation, never repeating one asked, dropping ruled-out ones — scored by the chooser. The
project's multi-turn document-relevance scorer (``clarion clariq evaluate documents --run RUN --eval-dict
TABLE``) reads it when the official tables are present.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from clarion.dialogue.state import Exchange, State, normalised
from clarion.errors import DataError

RUN_ID = "clarion_converse"


def context_state(assistant, conversation: Mapping[str, Any]) -> State:
    """A multi-turn context as the engine's :class:`State`."""
    exchanges = []
    for turn in conversation["conversation_context"]:
        question, answer = str(turn["question"]), str(turn["answer"])
        exchanges.append(Exchange(question, answer, assistant.question_id(question)))
    return State(
        str(conversation["initial_request"]).strip(), tuple(exchanges), exchanges[-1].answer if exchanges else ""
    )


def run_lines(assistant, conversations: Mapping[str, Mapping[str, Any]], run_id: str = RUN_ID) -> list[str]:
    """One run line per context that has a question left to ask (in the contexts' order)."""
    lines = []
    for cid, conversation in conversations.items():
        state = context_state(assistant, conversation)
        choice = assistant.next_question(state, assistant.understand(state))
        if choice is None:
            continue
        text = normalised(choice.question.text)
        lines.append(f'{cid} 0 "{text}" 0 {choice.score:.6f} {run_id}')
    return lines


def write_run(assistant, contexts: str | Path, out: str | Path, run_id: str = RUN_ID) -> int:
    """Write the run for the contexts file ``contexts``; returns how many lines were written."""
    from clarion.data.clariq import read_conversations
    from clarion.data.io import atomic_writer

    conversations = read_conversations(contexts)
    if not run_id or any(c.isspace() for c in run_id):
        raise DataError(out, f"run id must be one word, got {run_id!r}")
    lines = run_lines(assistant, conversations, run_id)
    with atomic_writer(out) as handle:
        handle.write("".join(line + "\n" for line in lines))
    return len(lines)

"""The Python API an assistant calls for knowledge-grounded turns (the DSTC9 Track 1 tasks, one dialogue at a time).

>>> from clarion.dstc.assistant import Grounder
>>> grounder = Grounder.load()          # doctest: +SKIP  (the default model; trained first when absent)
>>> reply = grounder.respond([
...     "I need a cheap hotel in the north.",
...     "The Ashley Hotel is a cheap guesthouse in the north.",
...     "Is the wifi at the Ashley Hotel any good?",
... ])                                                                                     # doctest: +SKIP
>>> reply.knowledge_seeking, [s.text for s in reply.snippets], reply.response            # doctest: +SKIP

A dialogue is a list of turns ending with the user's; a turn is a string (speakers then alternate, the last turn
being the user's), a ``{"speaker": "U" | "S", "text": ...}`` mapping as in ``logs.json``, or a
:class:`~clarion.dstc.io.Turn`. The answer is the pipeline's (:meth:`DstcModel.predict`) for that one context:
the same detection, entity tracking, snippet selection and response as ``clarion dstc predict``.
"""

from __future__ import annotations

import math
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from numbers import Real
from pathlib import Path

from clarion.dstc.io import KNOWLEDGE, Context, Dataset, Knowledge, Snippet, Turn, read_knowledge
from clarion.dstc.models.pipeline import DstcModel, PreparedKnowledge
from clarion.dstc.models.progress import Progress, no_progress
from clarion.errors import InputError, check_unicode

MAX_TURN_CHARS = 2_000
"""Longest accepted turn text (DSTC turns are one or two sentences; a longer text is almost surely a mistake)."""

TurnLike = str | Mapping[str, str] | Turn


@dataclass(frozen=True)
class Reply:
    """The answer to a dialogue's last user turn."""

    knowledge_seeking: bool
    """Whether the turn asks for knowledge beyond the booking APIs (task 1). When false, the assistant's own
    dialogue manager answers and :attr:`snippets` and :attr:`response` are empty."""
    snippets: tuple[Snippet, ...] = ()
    """The selected knowledge, best first (task 2); empty for a knowledge-seeking turn no snippet of the tracked
    entities answers, whose :attr:`response` then says so ("I'm sorry, I could not find any information about that
    for ..."), and for one in a dialogue that names no hotel, restaurant, ..., whose :attr:`response` asks which
    ("Which hotel or restaurant are you asking about?")."""
    response: str | None = None
    """A response grounded in :attr:`snippets` (task 3)."""


class Grounder:
    """A trained DSTC pipeline bound to one knowledge base; answers one dialogue at a time."""

    def __init__(
        self, model: DstcModel, knowledge: Knowledge, directory: Path | None = None, progress: Progress = no_progress
    ):
        self.model = model
        self.knowledge = knowledge
        self.directory = directory
        self.prepared: PreparedKnowledge = model.prepare(knowledge, progress)
        """The model bound to the knowledge base (snippet index, entity tracker, FAQ rule), reused by every call."""

    @classmethod
    def load(
        cls,
        model_dir: str | Path | None = None,
        knowledge: Knowledge | str | Path | None = None,
        data_dir: str | Path | None = None,
        progress: Progress = no_progress,
    ) -> Grounder:
        """The model in ``model_dir`` (by default the default model, trained first, saying so on stderr, when
        absent) over ``knowledge``: a :class:`~clarion.dstc.io.Knowledge`, a ``knowledge.json`` file or a
        directory holding one (default: dstc11_track5's, from the data directory). ``progress`` reports the
        training and the binding to the knowledge base (the CLI passes rich bars)."""
        from clarion.data.io import as_path
        from clarion.data.location import dataset_dir
        from clarion.dstc.models.default import DEFAULT_DATASET, ensure_default_model
        from clarion.dstc.models.modeldir import load_model

        if not callable(progress):
            raise InputError(f"progress must be a callable progress(description, total), got {progress!r}")
        if model_dir is None:
            directory = ensure_default_model(data_dir, progress, say=lambda m: print(m, file=sys.stderr, flush=True))
        else:
            directory = as_path(model_dir, "model_dir")
        if knowledge is None:
            knowledge = dataset_dir(DEFAULT_DATASET, data_dir)
        if not isinstance(knowledge, Knowledge):
            path = as_path(knowledge, "knowledge (a Knowledge, a knowledge.json file or its directory)")
            knowledge = read_knowledge(path / KNOWLEDGE if path.is_dir() else path)
        return cls(load_model(directory), knowledge, directory, progress)

    def respond(self, dialogue: Sequence[TurnLike]) -> Reply:
        """Detect, select and respond for the last user turn of ``dialogue``."""
        return self.respond_many([dialogue])[0]

    def respond_many(self, dialogues: Sequence[Sequence[TurnLike]]) -> list[Reply]:
        """:meth:`respond` for several dialogues in one batch (faster: one encoding pass)."""
        if isinstance(dialogues, str) or not isinstance(dialogues, Sequence) or not dialogues:
            raise InputError("dialogues must be a non-empty list of dialogues")
        contexts = [
            Context(as_turns(d, f"dialogue {i}: " if len(dialogues) > 1 else "")) for i, d in enumerate(dialogues)
        ]
        dataset = Dataset(self.knowledge.format, contexts, self.knowledge)
        labels = self.model.predict(dataset, prepared=self.prepared)
        return [
            Reply(label.target, tuple(self.knowledge.snippet(k) for k in label.knowledge), label.response)
            if label.target
            else Reply(False)
            for label in labels
        ]


def _is_nbest(nbest: object) -> bool:
    """Whether ``nbest`` is a sequence of (text, finite number) pairs, as ASR hypotheses are given."""
    return (
        isinstance(nbest, Sequence)
        and not isinstance(nbest, str)
        and all(
            isinstance(h, Sequence)
            and len(h) == 2
            and isinstance(h[0], str)
            and isinstance(h[1], Real)
            and not isinstance(h[1], bool)
            and math.isfinite(h[1])
            for h in nbest
        )
    )


def as_turns(dialogue: Sequence[TurnLike], where: str = "") -> tuple[Turn, ...]:
    """``dialogue`` as :class:`Turn` objects; :class:`InputError` (naming the turn) for anything malformed."""
    if isinstance(dialogue, str) or not isinstance(dialogue, Sequence):
        raise InputError(f"{where}a dialogue must be a list of turns, got {type(dialogue).__name__}")
    if not dialogue:
        raise InputError(f"{where}the dialogue is empty; it must end with the user's turn")
    turns = []
    for i, turn in enumerate(dialogue):
        if isinstance(turn, Turn):
            speaker, text = turn.speaker, turn.text
        elif isinstance(turn, Mapping):
            speaker, text = turn.get("speaker"), turn.get("text")
        elif isinstance(turn, str):
            speaker, text = ("U" if (len(dialogue) - 1 - i) % 2 == 0 else "S"), turn
        else:
            raise InputError(f"{where}turn {i}: expected a string, a {{speaker, text}} mapping or a Turn")
        if speaker not in ("U", "S"):
            raise InputError(f"{where}turn {i}: speaker must be 'U' (user) or 'S' (system), got {speaker!r}")
        if not isinstance(text, str) or not text.strip():
            raise InputError(f"{where}turn {i}: text must be a non-empty string")
        if len(text) > MAX_TURN_CHARS:
            raise InputError(f"{where}turn {i}: text is {len(text):,} characters, more than {MAX_TURN_CHARS:,}")
        check_unicode(text, f"{where}turn {i}: text")
        if isinstance(turn, Turn) and not _is_nbest(turn.nbest):
            raise InputError(f"{where}turn {i}: nbest must be a list of (hypothesis text, score) pairs")
        turns.append(turn if isinstance(turn, Turn) else Turn(speaker, text))
    if turns[-1].speaker != "U":
        raise InputError(f"{where}the last turn must be the user's (speaker 'U')")
    if not any(c.isalnum() for c in turns[-1].text):
        raise InputError(f"{where}turn {len(turns) - 1}: the user's turn has no letter or digit to answer")
    return tuple(turns)

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
being the user's), a ``{"role": "user" | "system", "text": ...}`` mapping (or ``{"speaker": "U" | "S", ...}`` as in
``logs.json``), or a :class:`~clarion.types.Turn`. The answer is the pipeline's (:meth:`DstcModel.predict`) for that
one context: the same detection, entity tracking, snippet selection and response as ``clarion dstc predict``.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from numbers import Real
from pathlib import Path

from clarion.bounds import check_length
from clarion.data.dstc import KNOWLEDGE, Context, Dataset, Knowledge, read_knowledge
from clarion.dstc.models.pipeline import DstcModel, PreparedKnowledge
from clarion.dstc.which import MAX_BRANCHES
from clarion.errors import InputError, check_unicode
from clarion.ground.aliases import normalise, ordinal
from clarion.ground.entities import EntityTracker
from clarion.ground.names import display_name
from clarion.store import Progress, no_progress
from clarion.types import ROLES, SPEAKERS, SYSTEM, USER, Snippet, Turn

TurnLike = str | Mapping[str, str] | Turn


@dataclass(frozen=True)
class Reply:
    """The answer to a dialogue's last user turn."""

    knowledge_seeking: bool
    """Whether the turn asks for knowledge beyond the booking APIs (task 1). When false, the assistant's own
    dialogue manager answers, :attr:`snippets` is empty and :attr:`response` is None."""
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
        absent) over ``knowledge``: a :class:`~clarion.data.dstc.Knowledge`, a ``knowledge.json`` file or a
        directory holding one (default: dstc11_track5's, from the data directory). ``progress`` reports the
        training and the binding to the knowledge base (the CLI passes rich bars)."""
        from clarion.data.io import as_path
        from clarion.data.location import dataset_dir
        from clarion.dstc.models.default import DEFAULT_DATASET, ensure_default_model
        from clarion.dstc.models.modeldir import load_model

        if not callable(progress):
            raise InputError(f"progress must be a callable progress(description, total), got {progress!r}")
        if model_dir is None:
            directory = ensure_default_model(data_dir, progress)
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
        tracker, names = self.prepared.tracker, self.knowledge.entity_names
        contexts = [
            Context(after_clarifying(as_turns(d, f"dialogue {i}: " if len(dialogues) > 1 else ""), tracker, names))
            for i, d in enumerate(dialogues)
        ]
        dataset = Dataset(self.knowledge.format, contexts, self.knowledge)
        labels = self.model.predict(dataset, prepared=self.prepared)
        return [
            Reply(label.target, tuple(self.knowledge.snippet(k) for k in label.knowledge), label.response)
            if label.target
            else Reply(False)
            for label in labels
        ]


_WHICH_BRANCH = re.compile(r"Which .+ do you mean: (.+)\?")
"""The clarifying question for a chain named without its branch (``clarion.dstc.which.which_entity``)."""
_WHICH_PLACE = re.compile(r"Which .+ are you asking about\?")
"""The clarifying question for a dialogue naming no place (``clarion.dstc.which.which_entity``)."""
_SHORT_ANSWER = 8
"""Most words of a user turn read as the answer to a clarifying question (a longer turn, or a question, is a turn of
its own)."""


def after_clarifying(turns: tuple[Turn, ...], tracker: EntityTracker, names: Mapping) -> tuple[Turn, ...]:
    """``turns`` as the question they answer when the system's last turn is clarion's own clarifying question and the
    user's last turn answers it with a place: the original question asked again after the chosen place is named.

    ["What do people think of Pizza Hut?", "Which Pizza Hut do you mean: ...?", "The city centre one."] is answered as
    [..., "The city centre one.", "Pizza Hut City Centre.", "What do people think of Pizza Hut?"]. The answer picks
    an offered branch by an ordinal ("the first one") or by the words that set its name apart ("city centre"); after
    "Which hotel or restaurant are you asking about?" it names the place(s). Anything else (no place picked, an answer
    of more than :data:`_SHORT_ANSWER` words or with a question mark) leaves ``turns`` as they are."""
    if len(turns) < 3 or [t.role for t in turns[-3:]] != [USER, SYSTEM, USER]:
        return turns
    asked, answer = turns[-2].text.strip(), turns[-1].text
    if "?" in answer or len(answer.split()) > _SHORT_ANSWER:
        return turns
    if branch := _WHICH_BRANCH.fullmatch(asked):
        chosen = _chosen_branch(answer, re.split(r", | or ", branch.group(1)))
        places = [chosen] if chosen else []
    elif _WHICH_PLACE.fullmatch(asked):
        places = [display_name(names.get(key)) for key in tracker.mentions(answer)[:MAX_BRANCHES]]
    else:
        return turns
    if not places:
        return turns
    return (*turns[:-3], turns[-1], Turn(SYSTEM, f"{' and '.join(places)}."), turns[-3])


def _chosen_branch(answer: str, offered: list[str]) -> str | None:
    """The one of ``offered`` that ``answer`` points at: by an ordinal, or as the only name whose words apart from
    those all the names share are all in the answer (else the only one with any of them in it); None otherwise."""
    place = ordinal(answer)
    if place is not None and -len(offered) <= place < len(offered):
        return offered[place]
    said = set(normalise(answer).split())
    words = [set(normalise(name).split()) for name in offered]
    shared = set.intersection(*words) if words else set()
    own = [w - shared for w in words]
    for test in (lambda w: w and w <= said, lambda w: w & said):
        hits = [name for name, w in zip(offered, own, strict=True) if test(w)]
        if len(hits) == 1:
            return hits[0]
        if hits:
            return None
    return None


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


def _role(turn: Mapping, where: str) -> object:
    """A mapping's role: ``role`` (``"user"``/``"system"``) or, as in ``logs.json``, ``speaker`` (``"U"``/``"S"``)."""
    if "role" in turn:
        return turn["role"]
    speaker = turn.get("speaker")
    if speaker not in SPEAKERS:
        raise InputError(f"{where}: speaker must be 'U' (user) or 'S' (system), got {speaker!r}")
    return SPEAKERS[speaker]


def as_turns(dialogue: Sequence[TurnLike], where: str = "") -> tuple[Turn, ...]:
    """``dialogue`` as :class:`Turn` objects; :class:`InputError` (naming the turn) for anything malformed."""
    if isinstance(dialogue, str) or not isinstance(dialogue, Sequence):
        raise InputError(f"{where}a dialogue must be a list of turns, got {type(dialogue).__name__}")
    if not dialogue:
        raise InputError(f"{where}the dialogue is empty; it must end with the user's turn")
    turns = []
    for i, turn in enumerate(dialogue):
        if isinstance(turn, Turn):
            role, text = turn.role, turn.text
        elif isinstance(turn, Mapping):
            role, text = _role(turn, f"{where}turn {i}"), turn.get("text")
        elif isinstance(turn, str):
            role, text = (USER if (len(dialogue) - 1 - i) % 2 == 0 else SYSTEM), turn
        else:
            raise InputError(f"{where}turn {i}: expected a string, a {{role, text}} mapping or a Turn")
        if role not in ROLES:
            raise InputError(f"{where}turn {i}: role must be 'user' or 'system', got {role!r}")
        if not isinstance(text, str) or not text.strip():
            raise InputError(f"{where}turn {i}: text must be a non-empty string")
        check_length(text, f"{where}turn {i}: text")
        check_unicode(text, f"{where}turn {i}: text")
        if isinstance(turn, Turn) and not _is_nbest(turn.nbest):
            raise InputError(f"{where}turn {i}: nbest must be a list of (hypothesis text, score) pairs")
        turns.append(turn if isinstance(turn, Turn) else Turn(role, text))
    if not turns[-1].is_user:
        raise InputError(f"{where}the last turn must be the user's")
    if not any(c.isalnum() for c in turns[-1].text):
        raise InputError(f"{where}turn {len(turns) - 1}: the user's turn has no letter or digit to answer")
    return tuple(turns)


def grounding_reply(grounder, dialogue) -> tuple[dict, list[str]]:
    """One dialogue's answer: as JSON (the track's target, knowledge, response) and as lines for humans."""
    reply = grounder.respond(dialogue)
    snippets = [{**s.to_ref(), "entity_name": s.entity_name, "text": s.text} for s in reply.snippets]
    answer = {"target": reply.knowledge_seeking, "knowledge": snippets, "response": reply.response}
    if not reply.knowledge_seeking:
        return answer, ["not knowledge-seeking: the booking APIs / dialogue manager answer this turn"]
    text = [f"{rank}. [{s.entity_name or s.domain}] {s.text}" for rank, s in enumerate(reply.snippets, 1)]
    return answer, [*text, f"response: {reply.response}"]

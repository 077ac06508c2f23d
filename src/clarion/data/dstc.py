"""Readers and writers for the DSTC9 Track 1 family: ``logs.json``, ``knowledge.json``, ``labels.json``.

Two formats, told apart by ``knowledge.json`` (:func:`detect_format`):

- DSTC9/10 (:attr:`Format.DSTC9`): entities carry FAQ ``docs: {doc_id: {title, body}}``; a snippet is one FAQ,
  keyed ``(domain, entity_id, doc_id)``; ``entity_id`` is ``"*"`` for domain-wide docs (taxi, train).
- DSTC11 (:attr:`Format.DSTC11`): entities carry ``reviews: {doc_id: {traveler_type, sentences}}`` and
  ``faqs: {doc_id: {question, answer}}``; a snippet is one review sentence, keyed
  ``(domain, entity_id, doc_id, sent_id)``, or one FAQ, keyed ``(domain, entity_id, doc_id)``.

Ids are ints in ``labels.json`` and strings in ``knowledge.json``; keys use ints (``"*"`` stays a
string) so that a label's key and a snippet's key compare equal. Every malformed file raises a one-line
:class:`~clarion.errors.DataError` naming the file, the entry and the field.

>>> ds = load_dataset(dataset_dir("dstc11_track5"))                                   # doctest: +SKIP
>>> ds.format, len(ds.contexts), ds.knowledge.snippets()[0].key                      # doctest: +SKIP
(<Format.DSTC11: 'dstc11'>, 3048, ('hotel', 0, 0, 0))
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from clarion.data.dstc_schema import (
    KNOWLEDGE_SCHEMAS,
    LABELS_SCHEMAS,
    LOGS_SCHEMA,
    Format,
    knowledge_ok,
    labels_ok,
    logs_ok,
    validate,
)
from clarion.data.io import atomic_writer, no_directory, read_json
from clarion.errors import DataError
from clarion.types import SPEAKERS, USER, EntityId, Key, Snippet, Turn, snippet_key

LOGS, KNOWLEDGE, LABELS = "logs.json", "knowledge.json", "labels.json"


@dataclass(frozen=True, slots=True)
class Context:
    """One ``logs.json`` entry: the dialogue so far, ending with the user turn to answer."""

    turns: tuple[Turn, ...]

    @property
    def last_user_text(self) -> str:
        """The text of the last user turn (the turn the three tasks are about)."""
        for turn in reversed(self.turns):
            if turn.role == USER:
                return turn.text
        return ""


def key_entities(keys: Iterable[Key]) -> list[tuple[str, EntityId]]:
    """The ``(domain, entity_id)`` pairs of snippet ``keys``, in order of first appearance."""
    return list(dict.fromkeys(tuple(key[:2]) for key in keys))


def key_of_ref(ref: dict[str, Any]) -> Key:
    """The key of a ``knowledge`` item of a label/prediction (FAQs have no ``sent_id`` in their key)."""
    sent = ref.get("sent_id") if ref.get("doc_type") == "review" else None
    return snippet_key(ref["domain"], ref["entity_id"], ref["doc_id"], sent)


def ref_from_key(key: Key, fmt: Format) -> dict[str, Any]:
    """The JSON ``knowledge`` item for ``key`` in ``fmt`` (inverse of :func:`key_of_ref`)."""
    ref: dict[str, Any] = {"domain": key[0], "entity_id": key[1]}
    if fmt is Format.DSTC11:
        ref["doc_type"] = "review" if len(key) == 4 else "faq"
    ref["doc_id"] = key[2]
    if len(key) == 4:
        ref["sent_id"] = key[3]
    return ref


@dataclass(frozen=True, slots=True)
class Label:
    """A gold label or a prediction for one context."""

    target: bool
    knowledge: tuple[Key, ...] = ()
    """Snippet keys, in order (a ranking in DSTC9/10 scoring)."""
    response: str | None = None

    def to_json(self, fmt: Format) -> dict[str, Any]:
        """The track's JSON object: ``{"target": false}`` or
        ``{"target": true, "knowledge": [...], "response": ...}``."""
        if not self.target:
            return {"target": False}
        return {
            "target": True,
            "knowledge": [ref_from_key(k, fmt) for k in self.knowledge],
            "response": self.response or "",
        }


@dataclass
class Knowledge:
    """A knowledge base: every snippet, looked up by key, and the entities' names."""

    format: Format
    entity_names: dict[tuple[str, EntityId], str | None]
    _snippets: list[Snippet] = field(default_factory=list)
    _by_key: dict[Key, Snippet] = field(default_factory=dict, repr=False)
    entity_cities: dict[tuple[str, EntityId], str] = field(default_factory=dict)
    """The ``city`` of the entities that have one (DSTC9/10-format knowledge)."""

    def snippets(self) -> list[Snippet]:
        """All snippets, in file order (domain, entity, reviews then FAQs, doc, sentence)."""
        return list(self._snippets)

    def snippet(self, key: Key) -> Snippet:
        """The snippet with ``key``; ``KeyError`` if absent."""
        return self._by_key[tuple(key)]

    def __contains__(self, key: object) -> bool:
        return isinstance(key, tuple) and key in self._by_key

    def entities(self) -> list[tuple[str, EntityId]]:
        """``(domain, entity_id)`` of every entity, in file order."""
        return list(self.entity_names)

    def entity_snippets(self, domain: str, entity_id: EntityId) -> list[Snippet]:
        return [s for s in self._snippets if s.domain == domain and s.entity_id == entity_id]


@dataclass
class Dataset:
    """The contents of a data directory; ``labels`` is ``None`` when there is no ``labels.json``."""

    format: Format
    contexts: list[Context]
    knowledge: Knowledge
    labels: list[Label] | None = None
    path: str | None = None

    def subset(self, indices: Iterable[int]) -> Dataset:
        """The contexts (and labels) at ``indices``, in that order, sharing the knowledge base."""
        idx = list(indices)
        labels = None if self.labels is None else [self.labels[i] for i in idx]
        return Dataset(self.format, [self.contexts[i] for i in idx], self.knowledge, labels, self.path)


def _entity_id(raw: str) -> EntityId:
    return int(raw) if raw.isascii() and raw.isdigit() else raw  # "²" and "٣" are digits to str.isdigit


def detect_format(raw_knowledge: Any, path: str | Path | None = None) -> Format:
    """DSTC11 when entities have ``reviews``/``faqs``, DSTC9/10 when they have ``docs``."""
    if not isinstance(raw_knowledge, dict):
        kind = {list: "an array", str: "a string", bool: "a boolean", int: "a number", float: "a number"}
        got = kind.get(type(raw_knowledge), "null")
        raise DataError(path, f"expected a JSON object of domains (domain -> entity id -> entity), got {got}")
    for entities in raw_knowledge.values():
        if not isinstance(entities, dict):
            continue
        for entity in entities.values():
            if isinstance(entity, dict) and ("reviews" in entity or "faqs" in entity):
                return Format.DSTC11
            if isinstance(entity, dict) and "docs" in entity:
                return Format.DSTC9
    raise DataError(path, "cannot tell the format: no entity has 'docs' (DSTC9/10) or 'reviews'/'faqs' (DSTC11)")


def _snippets9(domain: str, eid: EntityId, entity: dict[str, Any]) -> Iterable[Snippet]:
    name = entity.get("name")
    for doc_id, doc in entity["docs"].items():
        yield Snippet(domain, eid, int(doc_id), None, None, doc["title"], doc["body"], name)


def _snippets11(domain: str, eid: EntityId, entity: dict[str, Any]) -> Iterable[Snippet]:
    name = entity.get("name")
    for doc_id, review in (entity.get("reviews") or {}).items():
        for sent_id, sentence in review["sentences"].items():
            yield Snippet(
                domain,
                eid,
                int(doc_id),
                int(sent_id),
                "review",
                "",
                sentence,
                name,
                review.get("traveler_type"),
            )
    for doc_id, faq in (entity.get("faqs") or {}).items():
        yield Snippet(domain, eid, int(doc_id), None, "faq", faq["question"], faq["answer"], name)


def parse_knowledge(raw: Any, path: str | Path | None = None) -> Knowledge:
    """Validate a parsed ``knowledge.json`` and index its snippets."""
    fmt = detect_format(raw, path)
    validate(raw, KNOWLEDGE_SCHEMAS[fmt], path, lambda d: knowledge_ok(d, fmt))
    make = _snippets9 if fmt is Format.DSTC9 else _snippets11
    knowledge = Knowledge(fmt, {})
    for domain, entities in raw.items():
        for raw_id, entity in entities.items():
            eid = _entity_id(raw_id)
            if (domain, eid) in knowledge.entity_names:  # "020" and "20" are one id to the labels
                raise DataError(path, f"field {domain}.{raw_id}: entity id {eid!r} is given twice")
            knowledge.entity_names[(domain, eid)] = entity.get("name")
            if isinstance(entity.get("city"), str):
                knowledge.entity_cities[(domain, eid)] = entity["city"]
            for snippet in make(domain, eid, entity):
                if snippet.key in knowledge._by_key:  # doc "09" and doc "9"
                    raise DataError(path, f"field {domain}.{raw_id}: snippet {snippet.key} is given twice")
                knowledge._snippets.append(snippet)
                knowledge._by_key[snippet.key] = snippet
    return knowledge


def read_knowledge(path: str | Path) -> Knowledge:
    """Read ``knowledge.json`` of either format."""
    return parse_knowledge(read_json(path), path)


def parse_logs(raw: Any, path: str | Path | None = None) -> list[Context]:
    validate(raw, LOGS_SCHEMA, path, logs_ok)
    if not raw:
        raise DataError(path, "no contexts: expected a non-empty list of dialogue contexts")
    contexts = []
    for i, turns in enumerate(raw):
        if turns[-1]["speaker"] != "U":
            raise DataError(path, f"entry {i}: the last turn must be a user turn (speaker 'U')")
        contexts.append(Context(tuple(_turn(t, path, f"entry {i}, turn {j}") for j, t in enumerate(turns))))
    return contexts


def _turn(obj: dict[str, Any], path: str | Path | None, where: str) -> Turn:
    nbest = tuple((h["hyp"], float(h["score"])) for h in obj.get("nbest", ()))
    for k, (_, score) in enumerate(nbest):
        if not math.isfinite(score):  # Python's json reads NaN and Infinity; Turn refuses them as well
            raise DataError(path, f"{where}, field nbest[{k}].score must be a finite number, got {score}")
    return Turn(SPEAKERS[obj["speaker"]], obj["text"], nbest)


def read_logs(path: str | Path) -> list[Context]:
    """Read ``logs.json``: a list of contexts, each a list of ``{speaker, text[, nbest]}`` turns."""
    return parse_logs(read_json(path), path)


def parse_labels(
    raw: Any,
    fmt: Format,
    path: str | Path | None = None,
    *,
    n_contexts: int | None = None,
    knowledge: Knowledge | None = None,
    contexts_from: str = "logs.json",
) -> list[Label]:
    """Validate parsed labels (or predictions) against the ``fmt`` schema, the number of contexts (of
    ``contexts_from``, for the message) and, when given, the knowledge base (every referenced snippet must exist)."""
    validate(raw, LABELS_SCHEMAS[fmt], path, lambda d: labels_ok(d, fmt))
    if n_contexts is not None and len(raw) != n_contexts:
        raise DataError(
            path,
            f"has {len(raw)} entries but {contexts_from} has {n_contexts} contexts; one entry per context is required",
        )
    labels = []
    for i, obj in enumerate(raw):
        keys = tuple(key_of_ref(ref) for ref in obj.get("knowledge", ()))
        if knowledge is not None:
            for j, key in enumerate(keys):
                if key not in knowledge:
                    msg = f"entry {i}, field knowledge[{j}]: no snippet {key} in knowledge.json"
                    raise DataError(path, msg)
        if obj["target"]:
            labels.append(Label(True, keys, obj["response"]))
        else:
            labels.append(Label(False))
    return labels


def read_labels(
    path: str | Path, fmt: Format, *, n_contexts: int | None = None, knowledge: Knowledge | None = None
) -> list[Label]:
    """Read ``labels.json`` or a prediction file of format ``fmt`` (see :func:`parse_labels`)."""
    return parse_labels(read_json(path), fmt, path, n_contexts=n_contexts, knowledge=knowledge)


def read_raw_labels(
    path: str | Path,
    fmt: Format,
    *,
    n_contexts: int | None = None,
    knowledge: Knowledge | None = None,
    contexts_from: str = "logs.json",
) -> list[dict[str, Any]]:
    """Like :func:`read_labels` but returns the validated JSON objects (what the scorers take)."""
    raw = read_json(path)
    parse_labels(raw, fmt, path, n_contexts=n_contexts, knowledge=knowledge, contexts_from=contexts_from)
    return raw


def load_dataset(directory: str | Path, *, labels: bool | None = None) -> Dataset:
    """Read a data directory with ``logs.json`` and ``knowledge.json`` (and ``labels.json``).

    ``labels=None`` reads ``labels.json`` when present, ``True`` requires it, ``False`` skips it.
    """
    directory = Path(directory)
    if not directory.is_dir():
        raise DataError(directory, f"data directory {no_directory(directory)}")
    knowledge = read_knowledge(directory / KNOWLEDGE)
    contexts = read_logs(directory / LOGS)
    label_path = directory / LABELS
    gold = None
    if labels or (labels is None and label_path.exists()):
        gold = read_labels(label_path, knowledge.format, n_contexts=len(contexts), knowledge=knowledge)
    return Dataset(knowledge.format, contexts, knowledge, gold, str(directory))


def predictions_to_json(predictions: Sequence[Label | dict[str, Any]], fmt: Format) -> list[dict[str, Any]]:
    return [p.to_json(fmt) if isinstance(p, Label) else p for p in predictions]


def write_predictions(
    path: str | Path,
    predictions: Sequence[Label | dict[str, Any]],
    fmt: Format,
    *,
    n_contexts: int | None = None,
    knowledge: Knowledge | None = None,
) -> None:
    """Validate ``predictions`` (labels or JSON objects) against the track schema and write them atomically.

    A list whose length differs from ``n_contexts`` is refused (the official scorers would
    silently drop the tail); with ``knowledge``, every referenced snippet must exist.
    """
    data = predictions_to_json(predictions, fmt)
    parse_labels(data, fmt, path, n_contexts=n_contexts, knowledge=knowledge)
    with atomic_writer(path) as handle:
        json.dump(data, handle, indent=2, ensure_ascii=False)
        handle.write("\n")

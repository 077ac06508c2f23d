"""JSON schemas of the DSTC9/10 and DSTC11 track files, and validation with one-line errors.

The shapes follow the tracks' data descriptions (github.com/alexa/alexa-with-dstc9-track1-dataset,
alexa-with-dstc10-track2-dataset, dstc11-track5, ``data/README.md``):

- ``logs.json``: a list of contexts, each a non-empty list of turns ``{speaker: "U"|"S", text, [nbest]}``;
- ``labels.json`` (and a system's output, same shape): one object per context with ``target`` (bool) and, when
  ``target`` is true, ``knowledge`` (list of snippet references) and ``response`` (string);
- ``knowledge.json``: domain -> entity_id -> ``{name, docs: {doc_id: {title, body}}}`` (DSTC9/10)
  or ``{name, reviews: {doc_id: {traveler_type, sentences: {sent_id: text}}},
  faqs: {doc_id: {question, answer}}}`` (DSTC11).

:func:`validate` raises :class:`~clarion.errors.DataError` naming the file, the entry and the field.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from enum import Enum
from pathlib import Path
from typing import Any

from clarion.errors import DataError, InputError


class Format(str, Enum):
    """The two data formats of the DSTC9 Track 1 family."""

    DSTC9 = "dstc9"
    """DSTC9 Track 1 / DSTC10 Track 2: FAQ documents ``{title, body}``."""
    DSTC11 = "dstc11"
    """DSTC11 Track 5: reviews (sentences) and FAQs ``{question, answer}``."""


_STR = {"type": "string"}
_INT = {"type": "integer"}
_ID = {"type": ["integer", "string"]}
_DIGITS = "^[0-9]+$"

LOGS_SCHEMA: dict[str, Any] = {
    "type": "array",
    "items": {
        "type": "array",
        "minItems": 1,
        "items": {
            "type": "object",
            "required": ["speaker", "text"],
            "properties": {
                "speaker": {"enum": ["U", "S"]},
                "text": _STR,
                "nbest": {
                    "type": "array",
                    "items": {
                        "type": "object",
                        "required": ["hyp", "score"],
                        "properties": {"hyp": _STR, "score": {"type": "number"}},
                    },
                },
            },
        },
    },
}

_REF9 = {
    "type": "object",
    "required": ["domain", "entity_id", "doc_id"],
    "properties": {"domain": _STR, "entity_id": _ID, "doc_id": _INT},
}
_REF11 = {
    "type": "object",
    "required": ["domain", "entity_id", "doc_type", "doc_id"],
    "properties": {
        "domain": _STR,
        "entity_id": _ID,
        "doc_type": {"enum": ["review", "faq"]},
        "doc_id": _INT,
        "sent_id": _INT,
    },
    # "if" requires the field it tests: without it a missing doc_type would also be reported as a missing sent_id
    "if": {"required": ["doc_type"], "properties": {"doc_type": {"const": "review"}}},
    "then": {"required": ["sent_id"]},
}


def _labels_schema(ref: dict[str, Any]) -> dict[str, Any]:
    return {
        "type": "array",
        "items": {
            "type": "object",
            "required": ["target"],
            "properties": {
                "target": {"type": "boolean"},
                "knowledge": {"type": "array", "items": ref},
                "response": _STR,
            },
            "if": {"required": ["target"], "properties": {"target": {"const": True}}},
            "then": {"required": ["knowledge", "response"]},
        },
    }


LABELS_SCHEMAS: dict[Format, dict[str, Any]] = {
    Format.DSTC9: _labels_schema(_REF9),
    Format.DSTC11: _labels_schema(_REF11),
}
"""Schema of ``labels.json`` and of a system's predictions, per format."""


def _entities(entity: dict[str, Any]) -> dict[str, Any]:
    return {
        "type": "object",
        "minProperties": 1,
        "additionalProperties": {
            "type": "object",
            "additionalProperties": {"type": "object", **entity},
        },
    }


_NAME = {"type": ["string", "null"]}

_DOCS9 = {
    "type": "object",
    "propertyNames": {"pattern": _DIGITS},
    "additionalProperties": {
        "type": "object",
        "required": ["title", "body"],
        "properties": {"title": _STR, "body": _STR},
    },
}
_REVIEWS = {
    "type": "object",
    "propertyNames": {"pattern": _DIGITS},
    "additionalProperties": {
        "type": "object",
        "required": ["sentences"],
        "properties": {
            "traveler_type": {"type": ["string", "null"]},
            "sentences": {
                "type": "object",
                "propertyNames": {"pattern": _DIGITS},
                "additionalProperties": _STR,
            },
        },
    },
}
_FAQS11 = {
    "type": "object",
    "propertyNames": {"pattern": _DIGITS},
    "additionalProperties": {
        "type": "object",
        "required": ["question", "answer"],
        "properties": {"question": _STR, "answer": _STR},
    },
}

KNOWLEDGE_SCHEMAS: dict[Format, dict[str, Any]] = {
    Format.DSTC9: _entities({"required": ["docs"], "properties": {"name": _NAME, "docs": _DOCS9}}),
    Format.DSTC11: _entities(
        {
            "anyOf": [{"required": ["reviews"]}, {"required": ["faqs"]}],
            "properties": {"name": _NAME, "reviews": _REVIEWS, "faqs": _FAQS11},
        }
    ),
}


def _where(path_items) -> str:
    """``[12, 'knowledge', 0, 'doc_id']`` -> ``entry 12, field knowledge[0].doc_id``."""
    items = list(path_items)
    if not items:
        return "top level"
    text = ""
    head, rest = items[0], items[1:]
    if isinstance(head, int):
        prefix = f"entry {head}"
    else:
        prefix, rest = "", items
    for item in rest:
        text += f"[{item}]" if isinstance(item, int) else (f".{item}" if text else str(item))
    if prefix and text:
        return f"{prefix}, field {text}"
    return prefix or f"field {text}"


# ------------------------------------------------------------------------------------------ fast checks
# jsonschema takes ~1 s per DSTC11 file. Each check below is *stricter* than its schema (exact Python types, no
# 1.0-for-1), so True proves the data valid and jsonschema is skipped; False only means "let jsonschema decide
# and word the error". tests/dstc/test_io_bad_input.py checks that every bad-input case fails its fast check.

_DIGITS_RE = re.compile(r"[0-9]+")


def _is_int(value: Any) -> bool:
    return type(value) is int


def _turn_ok(turn: Any) -> bool:
    if type(turn) is not dict or turn.get("speaker") not in ("U", "S") or type(turn.get("text")) is not str:
        return False
    if "nbest" not in turn:
        return True
    nbest = turn["nbest"]
    return type(nbest) is list and all(
        type(h) is dict and type(h.get("hyp")) is str and type(h.get("score")) in (int, float) for h in nbest
    )


def logs_ok(raw: Any) -> bool:
    """True only if ``raw`` is valid under :data:`LOGS_SCHEMA`."""
    return type(raw) is list and all(type(c) is list and c and all(_turn_ok(t) for t in c) for c in raw)


def _ref_ok(ref: Any, fmt: Format) -> bool:
    if type(ref) is not dict or type(ref.get("domain")) is not str or not _is_int(ref.get("doc_id")):
        return False
    if type(ref.get("entity_id")) not in (int, str):
        return False
    if fmt is Format.DSTC9:
        return True
    doc_type = ref.get("doc_type")
    if doc_type not in ("review", "faq") or ("sent_id" in ref and not _is_int(ref["sent_id"])):
        return False
    return doc_type == "faq" or "sent_id" in ref


def _label_ok(obj: Any, fmt: Format) -> bool:
    if type(obj) is not dict or type(obj.get("target")) is not bool:
        return False
    if "response" in obj and type(obj["response"]) is not str:
        return False
    if "knowledge" in obj:
        refs = obj["knowledge"]
        if type(refs) is not list or not all(_ref_ok(r, fmt) for r in refs):
            return False
    return not obj["target"] or ("knowledge" in obj and "response" in obj)


def labels_ok(raw: Any, fmt: Format) -> bool:
    """True only if ``raw`` is valid under ``LABELS_SCHEMAS[fmt]``."""
    return type(raw) is list and all(_label_ok(obj, fmt) for obj in raw)


def _docs_ok(docs: Any, fields: tuple[str, ...]) -> bool:
    return type(docs) is dict and all(
        _DIGITS_RE.fullmatch(k) and type(d) is dict and all(type(d.get(f)) is str for f in fields)
        for k, d in docs.items()
    )


def _review_ok(review: Any) -> bool:
    if type(review) is not dict or (
        "traveler_type" in review and type(review["traveler_type"]) not in (str, type(None))
    ):
        return False
    sentences = review.get("sentences")
    return type(sentences) is dict and all(_DIGITS_RE.fullmatch(k) and type(t) is str for k, t in sentences.items())


def _entity_ok(entity: Any, fmt: Format) -> bool:
    if type(entity) is not dict or type(entity.get("name", "")) not in (str, type(None)):
        return False
    if fmt is Format.DSTC9:
        return _docs_ok(entity.get("docs"), ("title", "body"))
    if "reviews" not in entity and "faqs" not in entity:
        return False
    if "faqs" in entity and not _docs_ok(entity["faqs"], ("question", "answer")):
        return False
    if "reviews" not in entity:
        return True
    reviews = entity["reviews"]
    return type(reviews) is dict and all(_DIGITS_RE.fullmatch(k) and _review_ok(r) for k, r in reviews.items())


def knowledge_ok(raw: Any, fmt: Format) -> bool:
    """True only if ``raw`` is valid under ``KNOWLEDGE_SCHEMAS[fmt]``."""
    return (
        type(raw) is dict
        and bool(raw)
        and all(type(ents) is dict and all(_entity_ok(e, fmt) for e in ents.values()) for ents in raw.values())
    )


def validate(
    data: Any, schema: dict[str, Any], path: str | Path | None, precheck: Callable[[Any], bool] | None = None
) -> None:
    """Raise :class:`DataError` for the most relevant violation of ``schema`` in ``data``, if any.

    ``precheck`` is a fast check that returns True only for valid data (then jsonschema is skipped).

    >>> validate([{"target": "yes"}], LABELS_SCHEMAS[Format.DSTC9], "labels.json")
    Traceback (most recent call last):
    clarion.errors.DataError: labels.json: entry 0, field target: 'yes' is not of type 'boolean'
    """
    if precheck is not None and precheck(data):
        return
    from jsonschema import Draft7Validator
    from jsonschema.exceptions import best_match, by_relevance

    relevance = by_relevance()

    def key(error):  # jsonschema's key without its path term, which picks the *last* of sibling errors
        rank = relevance(error)
        return rank[:1] + rank[2:]

    validator = Draft7Validator(schema)
    error = best_match(validator.iter_errors(data), key=key)  # ties: the first in document order
    if error is None:
        return
    message = error.message
    if len(message) > 160:
        message = message[:157] + "..."
    raise DataError(path, f"{_where(error.absolute_path)}: {message}")


def check_labels(turns: Any, fmt: Format, what: str) -> list[dict[str, Any]]:
    """``turns`` (labels or predictions passed from Python) as a list, or an error naming ``what``, the entry and
    the field (a ``target`` that is not a bool, a missing ``response`` ...). The fast check first, the schema only
    on failure, so valid data costs one cheap pass."""
    if isinstance(turns, str | bytes) or not isinstance(turns, Sequence):
        raise InputError(f"{what} must be a list of turn objects, got {type(turns).__name__}")
    turns = list(turns)
    validate(turns, LABELS_SCHEMAS[fmt], what, lambda data: labels_ok(data, fmt))
    return turns

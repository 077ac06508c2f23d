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

from enum import Enum
from pathlib import Path
from typing import Any

from clarion.errors import DataError


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
    "if": {"properties": {"doc_type": {"const": "review"}}},
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
            "if": {"properties": {"target": {"const": True}}},
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
    Format.DSTC9: _entities({"required": ["docs"], "properties": {"name": {}, "docs": _DOCS9}}),
    Format.DSTC11: _entities(
        {
            "anyOf": [{"required": ["reviews"]}, {"required": ["faqs"]}],
            "properties": {"name": {}, "reviews": _REVIEWS, "faqs": _FAQS11},
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


def validate(data: Any, schema: dict[str, Any], path: str | Path | None) -> None:
    """Raise :class:`DataError` for the most relevant violation of ``schema`` in ``data``, if any.

    >>> validate([{"target": "yes"}], LABELS_SCHEMAS[Format.DSTC9], "labels.json")
    Traceback (most recent call last):
    clarion.errors.DataError: labels.json: entry 0, field target: 'yes' is not of type 'boolean'
    """
    from jsonschema import Draft7Validator
    from jsonschema.exceptions import best_match

    validator = Draft7Validator(schema)
    error = best_match(validator.iter_errors(data))
    if error is None:
        return
    message = error.message
    if len(message) > 160:
        message = message[:157] + "..."
    raise DataError(path, f"{_where(error.absolute_path)}: {message}")

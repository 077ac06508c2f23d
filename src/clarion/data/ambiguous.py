"""Readers of the request sets the clarification-need model learns from besides ClariQ.

- AmbigNQ (Min et al., EMNLP 2020): open-domain questions from NQ-open; a question with a ``multipleQAs`` annotation is
  ambiguous, and its ``qaPairs`` are the readings a clarifying question would choose between
  (``<data>/ambignq/train_light.json``).
- clarion's everyday requests (``src/clarion/data/everyday/requests.jsonl``, written by hand: its README says how):
  shopping, travel, how-to, facts, entertainment and advice requests labelled ask / don't ask, with what a good
  question asks for.

Both read as :class:`Labelled` requests; a malformed record is a :class:`~clarion.errors.DataError` naming the file
and the record.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from clarion.data.io import read_json, read_lines
from clarion.errors import DataError

EVERYDAY = Path(__file__).parent / "everyday"
"""The packaged everyday requests (and the follow-up replies of ``followups.jsonl``)."""


@dataclass(frozen=True)
class Labelled:
    """A request and whether it needs a clarifying question, with what the question would ask for."""

    id: str
    request: str
    ask: bool
    source: str
    asks_for: str | None = None
    """What is missing (``place``, ``budget``, ``recipient``, ``reading``, ...), when known."""
    question: str | None = None
    """A clarifying question a person wrote for it, when known."""
    options: tuple[str, ...] = ()
    """The question's options, or the readings of an ambiguous question (AmbigNQ's disambiguated questions)."""
    domain: str | None = None


def read_ambignq(path: str | Path) -> list[Labelled]:
    """AmbigNQ records (``[{id, question, annotations}]``) as :class:`Labelled` (``source="ambignq"``)."""
    path = Path(path)
    records = read_json(path)
    if not isinstance(records, list):
        raise DataError(path, "expected a JSON list of {id, question, annotations} records")
    out = []
    for i, record in enumerate(records):
        try:
            question = record["question"]
            annotations = record["annotations"]
            readings = [pair["question"] for a in annotations if a["type"] == "multipleQAs" for pair in a["qaPairs"]]
            ambiguous = any(a["type"] == "multipleQAs" for a in annotations)
            if not isinstance(question, str) or not question.strip():
                raise TypeError("question must be a non-empty string")
            out.append(Labelled(str(record["id"]), question, ambiguous, "ambignq", options=tuple(readings)))
        except (KeyError, TypeError) as err:
            raise DataError(path, f"record {i}: not an AmbigNQ record ({err})") from None
    return out


def read_everyday(path: str | Path | None = None) -> list[Labelled]:
    """clarion's everyday requests (JSONL ``{id, request, domain, ask, asks_for, question, options}``)."""
    path = Path(path) if path is not None else EVERYDAY / "requests.jsonl"
    out = []
    for number, line in read_lines(path):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
            request, ask = row["request"], row["ask"]
            if not isinstance(request, str) or not request.strip() or not isinstance(ask, bool):
                raise TypeError("request must be a non-empty string and ask true or false")
            options = tuple(row.get("options") or ())
            out.append(
                Labelled(
                    str(row["id"]),
                    request,
                    ask,
                    "everyday",
                    row.get("asks_for"),
                    row.get("question"),
                    options,
                    row.get("domain"),
                )
            )
        except (json.JSONDecodeError, KeyError, TypeError) as err:
            raise DataError(path, f"not an everyday request ({err})", number) from None
    return out


@dataclass(frozen=True)
class FollowUp:
    """A request, the clarifying question asked, the user's reply, and whether the reply starts a new request."""

    id: str
    request: str
    question: str
    reply: str
    new_request: bool
    understood: str = ""
    """The user's need after the reply, as a clean standalone query."""


def read_followups(path: str | Path | None = None) -> list[FollowUp]:
    """clarion's follow-up replies (JSONL ``{id, request, question, reply, new_request, understood}``)."""
    path = Path(path) if path is not None else EVERYDAY / "followups.jsonl"
    out = []
    for number, line in read_lines(path):
        try:
            row = json.loads(line)
            texts = [row[k] for k in ("request", "question", "reply")]
            if not all(isinstance(t, str) and t.strip() for t in texts) or not isinstance(row["new_request"], bool):
                raise TypeError("request, question and reply must be non-empty strings, new_request true or false")
            out.append(FollowUp(str(row["id"]), *texts, row["new_request"], str(row.get("understood") or "")))
        except (json.JSONDecodeError, KeyError, TypeError) as err:
            raise DataError(path, f"not a follow-up ({err})", number) from None
    return out

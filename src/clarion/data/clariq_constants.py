"""Constants of the ClariQ task shared by readers, methods and the CLI, and the one check of split names."""

from __future__ import annotations

from collections.abc import Sequence

from clarion.bounds import check_length
from clarion.errors import InputError, check_unicode

NO_QUESTION = "Q00001"
"""The bank's empty question: "ask nothing"."""

MIN_DEPTH = 30
"""Every ranked run gives at least this many distinct questions per topic (the official cut-off)."""

NEED_LABELS = (1, 2, 3, 4)

LABELLED_SPLITS = ("train", "dev", "test")
"""Splits with labels (test needs test_with_labels.tsv)."""


def validate_request(request: object) -> str:
    """The stripped request, or :class:`InputError` for a non-string, empty or oversized one, or one with no
    letter or digit ("?!", zero-width spaces: nothing to rank questions for)."""
    if not isinstance(request, str):
        raise InputError(f"request must be a string, got {type(request).__name__}")
    text = request.strip()
    if not text:
        raise InputError("request is empty: give the user's initial request as text")
    if not any(c.isalnum() for c in text):
        raise InputError(f"request {text[:40]!r} has no letter or digit: give the user's request in words")
    return check_unicode(check_length(text, "request"), "request")


def validate_requests(requests: Sequence[str]) -> list[str]:
    """The requests as a list; an empty list, a non-string, an empty or an oversized request raises
    :class:`InputError` naming its position."""
    if isinstance(requests, str) or not isinstance(requests, Sequence):
        raise InputError("requests must be a list of strings")
    if not requests:
        raise InputError("no requests given: at least one request is needed")
    for i, request in enumerate(requests):
        try:
            validate_request(request)
        except InputError as err:
            raise InputError(f"requests[{i}]: {err}") from None
    return list(requests)


def check_splits(splits: Sequence[str]) -> tuple[str, ...]:
    """The distinct labelled splits in the canonical order of :data:`LABELLED_SPLITS` ("dev,train" names the
    same model as "train,dev"); an unknown or missing split raises :class:`InputError`."""
    splits = tuple(dict.fromkeys(s.strip() for s in splits if s.strip()))
    if not splits:
        raise InputError("give at least one labelled split to train on (train, dev)")
    for split in splits:
        if split not in LABELLED_SPLITS:
            raise InputError(f"unknown split {split!r}; choose from: {', '.join(LABELLED_SPLITS)}")
    return tuple(split for split in LABELLED_SPLITS if split in splits)

"""A deterministic train/dev split by dialogue for a DSTC data directory (used on ``dstc11_track5``).

``logs.json`` holds *contexts*, not dialogues: one entry per sampled user turn, holding the dialogue up to
that turn. In DSTC11 the knowledge-seeking turns were inserted into MultiWOZ dialogues, so the contexts of
one dialogue are not prefixes of each other (a branch replaces the next user turn, and re-serialised system
turns may differ in whitespace); what they share is the opening. :func:`dialogue_ids` therefore groups
contexts by their first two turns (user request and system reply), whitespace-collapsed and lower-cased; a
one-turn context joins the first group (in file order) with the same first turn, or forms its own. A
dialogue's id is the SHA-1 of that opening, so it does not depend on file order. On ``dstc11_track5`` this
gives 1,364 dialogues for 3,048 contexts (dev: 593 contexts, 299 knowledge-seeking; train: 2,455, 1,247).

:func:`split_indices` puts a dialogue in dev when ``int(sha1, 16) % 100 < dev_percent`` (default 20), in train
otherwise: every context of a dialogue lands on the same side, and the split is the same on every machine.
:func:`dialogue_folds` deals the dialogues into cross-validation folds the same way (the benchmarks' train CV).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from enum import Enum

from clarion.data.dstc import Context, Dataset
from clarion.errors import InputError


class Part(str, Enum):
    """The two sides of the development split."""

    TRAIN = "train"
    DEV = "dev"


def _norm(text: str) -> str:
    return " ".join(text.split()).lower()


def _digest(key: tuple[str, ...]) -> str:
    return hashlib.sha1(json.dumps(key, ensure_ascii=False).encode("utf-8")).hexdigest()


def dialogue_ids(contexts: Sequence[Context]) -> list[str]:
    """The dialogue id of every context, in input order (see the module docstring)."""
    openings = [tuple(_norm(t.text) for t in c.turns[:2]) for c in contexts]
    by_first: dict[str, tuple[str, ...]] = {}
    for opening in openings:
        if len(opening) == 2:
            by_first.setdefault(opening[0], opening)
    return [_digest(o if len(o) == 2 else by_first.get(o[0], o)) for o in openings]


def split_indices(contexts: Sequence[Context], dev_percent: int = 20) -> dict[Part, list[int]]:
    """Context indices of the train and dev sides (each in file order), split by dialogue."""
    if not 0 < dev_percent < 100:
        raise InputError(f"dev_percent must be between 1 and 99, got {dev_percent}")
    parts: dict[Part, list[int]] = {Part.TRAIN: [], Part.DEV: []}
    for i, did in enumerate(dialogue_ids(contexts)):
        parts[Part.DEV if int(did, 16) % 100 < dev_percent else Part.TRAIN].append(i)
    return parts


def dialogue_folds(contexts: Sequence[Context], folds: int) -> list[int]:
    """The cross-validation fold (0 to ``folds`` - 1) of every context, in input order: the MD5 of its dialogue id
    modulo ``folds``, so a dialogue's contexts share a fold and the folds are the same on every machine."""
    if isinstance(folds, bool) or not isinstance(folds, int) or folds < 2:
        raise InputError(f"folds must be an integer of at least 2, got {folds!r}")
    return [int(hashlib.md5(did.encode()).hexdigest(), 16) % folds for did in dialogue_ids(contexts)]


def split_dataset(dataset: Dataset, part: Part | str, dev_percent: int = 20) -> Dataset:
    """The ``train`` or ``dev`` side of ``dataset`` (see the module docstring)."""
    try:
        part = Part(part)
    except ValueError:
        raise InputError(f"unknown split part {part!r}; choose one of: train, dev") from None
    indices = split_indices(dataset.contexts, dev_percent)[part]
    if not indices:
        where = dataset.path or "the data"
        raise InputError(f"the {part.value} side of {where} has no contexts (too few dialogues to split)")
    return dataset.subset(indices)

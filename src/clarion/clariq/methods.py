"""The registries of ClariQ methods, looked up by name from the library, the CLI and the benchmark.

A **rank method** maps topics to a run over the question bank::

    fn(topics: list[Topic], data: ClariQ, train_splits: tuple[str, ...]) -> Run

with at least 30 distinct questions per topic and strictly decreasing scores. ``train_splits`` names the
labelled splits the method may learn from (the benchmark passes ``("train",)`` to score on dev; new topics
use ``("train", "dev")``).

A **need method** maps topics to clarification-need labels 1-4::

    fn(topics: list[Topic], data: ClariQ, train_splits: tuple[str, ...]) -> dict[str, int]

Entries are ``"module:function"`` strings, imported on first use, so listing the choices is cheap.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable

from clarion.errors import InputError

RANK_METHODS: dict[str, str] = {
    "bm25": "clarion.clariq.baselines:rank_bm25",
    "dense": "clarion.clariq.baselines:rank_dense",
    "no-question": "clarion.clariq.baselines:rank_no_question",
    "full": "clarion.clariq.train:rank_full",
}
DEFAULT_RANK_METHOD = "full"

NEED_METHODS: dict[str, str] = {
    "majority": "clarion.clariq.baselines:need_majority",
    "model": "clarion.clariq.need:need_model",
}
DEFAULT_NEED_METHOD = "model"


def _resolve(registry: dict[str, str], kind: str, name: str) -> Callable:
    if name not in registry:
        raise InputError(f"unknown {kind} method {name!r}; choose one of: {', '.join(registry)}")
    module, attr = registry[name].split(":")
    return getattr(importlib.import_module(module), attr)


def rank_method(name: str) -> Callable:
    """The rank method registered as ``name``."""
    return _resolve(RANK_METHODS, "rank", name)


def need_method(name: str) -> Callable:
    """The need method registered as ``name``."""
    return _resolve(NEED_METHODS, "need", name)

"""``ReplyRanker``: the respond-stage component that orders candidate replies to a dialogue context.

>>> from clarion.replies import ReplyRanker
>>> ranker = ReplyRanker.load()                       # doctest: +SKIP
>>> ranker.rank(["Hi! Any plans for the weekend?"], ["I like turtles.", "Going hiking, you?"])  # doctest: +SKIP
[1, 0]

``ReplyRanker.load()`` without a directory uses the default model (:data:`~.methods.DEFAULT_METHOD` trained on
the train part of the converted GRADE + DailyDialog++ data), training it first when the cache does not have it.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import fields
from pathlib import Path
from typing import Any

import numpy as np

from clarion.data.replies import ReplyRow, group_contexts
from clarion.errors import InputError, check_unicode
from clarion.replies.embed import Candidates, embed
from clarion.replies.methods import DEFAULT_METHOD, Method, load_method, method_class, split_scores
from clarion.store import Progress, no_progress

TASK = "replies"
MAX_CONTEXT = 3
"""Utterances of a context the models read (the task's ``context_2 .. context_0``)."""


def groups_of(rows: Sequence[ReplyRow], sources: Mapping[str, str] | None = None) -> tuple[list[str], list[Candidates]]:
    """(context ids, one :class:`Candidates` per context) of task rows, labels kept when present; ``sources``
    names the source of each context id (for weighing sources in training)."""
    ids, groups = [], []
    sources = sources or {}
    for context_id, block in group_contexts(rows).items():
        labelled = all(r.label is not None for r in block)
        ids.append(context_id)
        groups.append(
            Candidates(
                context=tuple(block[0].utterances),
                replies=tuple(r.reply for r in block),
                relevance=tuple(r.relevance for r in block) if labelled else None,
                confidence=tuple(float(r.confidence) for r in block) if labelled else None,  # type: ignore[arg-type]
                source=sources.get(context_id, ""),
            )
        )
    return ids, groups


def tiny() -> bool:
    """CI's tiny settings (``CLARION_TINY=1``): small models trained in seconds."""
    return os.environ.get("CLARION_TINY") == "1"


def method_config(
    method: str = DEFAULT_METHOD, weighted: bool = True, options: Mapping[str, Any] | None = None
) -> dict[str, Any]:
    """The settings a model is trained with (and keyed by): method, confidence weighting, the method's other
    options (e.g. ``balanced``), tiny or not; for a method over named features, the features it reads (a model
    trained on another default set is not reused)."""
    config: dict[str, Any] = {"method": method, "weighted": weighted, **dict(options or {}), "tiny": tiny()}
    default_features = getattr(method_class(method), "features", None)  # the dataclass field's default
    if default_features is not None:
        config.setdefault("features", list(default_features))
    return config


class ReplyRanker:
    """Scores and orders the candidate replies of a context (higher score = better reply)."""

    def __init__(self, method: Method, directory: Path | None = None):
        self.method = method
        self.directory = directory

    @classmethod
    def load(cls, model_dir: str | Path | None = None, progress: Progress | None = None) -> ReplyRanker:
        """The model saved in ``model_dir``; without one, the default model, trained first when absent (saying so
        on stderr)."""
        from clarion.store import read_meta

        if model_dir is None:
            from clarion.replies.training import ensure_default_model

            model_dir = ensure_default_model(progress=progress or no_progress)
        directory = Path(model_dir)
        read_meta(directory)  # a ModelError unless it is a complete model directory
        return cls(load_method(directory), directory)

    @classmethod
    def train(
        cls,
        groups: Sequence[Candidates],
        method: str = DEFAULT_METHOD,
        weighted: bool = True,
        progress=no_progress,
        options: Mapping[str, Any] | None = None,
    ) -> ReplyRanker:
        """A ranker fitted on labelled ``groups``; ``options`` set the method's other fields (``balanced``)."""
        if not groups or any(g.relevance is None for g in groups):
            raise InputError("training needs labelled contexts (label and confidence on every row)")
        kind = method_class(method)
        known = {f.name for f in fields(kind) if f.repr} - {"weighted"}
        unknown = sorted(set(options or {}) - known)
        if unknown:
            raise InputError(f"method {method!r} has no option {unknown[0]!r}; its options: {', '.join(sorted(known))}")
        model = kind(weighted=weighted, **dict(options or {}))
        if kind.trained and tiny():
            model = _tiny(model)
        if not kind.trained:
            return cls(model)
        tick = progress("embedding the training texts", 1)
        embedded = embed(groups, cached=True) if kind.uses_embeddings else None
        tick(1)
        return cls(model.fit(groups, embedded, progress))

    def score_groups(self, groups: Sequence[Candidates], cached: bool = False) -> list[np.ndarray]:
        """One score array per context (the replies' order kept); ``cached`` keeps the texts' embeddings on disk
        (for a fixed evaluation set scored again and again)."""
        if not groups:
            return []
        embedded = embed(groups, cached) if self.method.uses_embeddings else None
        return split_scores(groups, np.asarray(self.method.scores(groups, embedded), dtype=np.float64))

    def score(self, context: list[str], replies: list[str]) -> list[float]:
        """A score per reply (higher = better); ``context`` oldest first, its last 3 utterances read."""
        if not replies:
            return []
        return [float(s) for s in self.score_groups([_candidates(context, replies)])[0]]

    def rank(self, context: list[str], replies: list[str]) -> list[int]:
        """Indices of ``replies``, best first (ties keep the given order)."""
        scores = self.score(context, replies)
        return sorted(range(len(scores)), key=lambda i: (-scores[i], i))


def ranked_ids(ids: Sequence[str], scores: np.ndarray) -> list[str]:
    """Reply ids best first (ties keep file order)."""
    return [ids[i] for i in sorted(range(len(ids)), key=lambda i: (-scores[i], i))]


def _candidates(context: list[str], replies: list[str]) -> Candidates:
    if isinstance(context, str) or not isinstance(context, list | tuple):
        raise InputError("context must be a list of utterances (strings), oldest first")
    if isinstance(replies, str) or not isinstance(replies, list | tuple):
        raise InputError("replies must be a list of strings")
    for what, texts in (("context", context), ("replies", replies)):
        for i, text in enumerate(texts):
            if not isinstance(text, str):
                raise InputError(f"{what}[{i}] must be a string, got {type(text).__name__}")
            check_unicode(text, f"{what}[{i}]")
    utterances = tuple(" ".join(u.split()) for u in context if u.strip())[-MAX_CONTEXT:]
    if not utterances:
        raise InputError("context must hold at least one non-empty utterance")
    return Candidates(utterances, tuple(" ".join(r.split()) for r in replies))


def _tiny(model: Method) -> Method:
    for name, value in (("rounds", 20), ("epochs", 1)):
        if hasattr(model, name):
            setattr(model, name, value)
    return model

"""The models behind the endpoints, loaded once when the server starts, and the bounded pool that runs them.

:data:`LOADERS` maps each :class:`~clarion.serve.config.Feature` to the function that loads its model; a server loads
the features its config lists. The conversation engine and the clarifier take batches (:data:`BATCHED`: concurrent
requests gathered by :class:`clarion.serve.batching.Batcher`, one encoder pass each); the other models are called
one request at a time under their own lock. The pool's threads let different models (and the evaluation database)
work at once while the event loop stays free.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

from clarion.retrieve.threads import use_threads
from clarion.retrieve.traced import trace_encoders
from clarion.serve.config import Feature, ServeConfig


def _clarifier(config: ServeConfig, progress, loaded: dict):
    from clarion.clariq.clarifier import Clarifier

    engine = loaded.get(Feature.converse)
    if engine is not None and config.data_dir is None:  # the same model: one copy in memory
        return engine.clarifier
    if config.clariq_model is not None:
        return Clarifier.load(config.clariq_model, config.data_dir, progress=progress)
    from clarion.clariq.train import engine_models
    from clarion.data.clariq import ClariQ

    models = engine_models(ClariQ.load(config.data_dir))  # the engine's choice (train+dev, train or starter)
    return Clarifier.load(data_dir=config.data_dir, progress=progress, splits=models.splits, starter=models.starter)


def _grounder(config: ServeConfig, progress, loaded: dict):
    from clarion.dstc.assistant import Grounder
    from clarion.store import no_progress

    return Grounder.load(config.dstc_model, config.knowledge, config.data_dir, progress or no_progress)


def _assistant(config: ServeConfig, progress, loaded: dict):
    from clarion.dialogue import Assistant

    return Assistant.load(
        knowledge=config.knowledge, documents=config.documents, model_dir=config.clariq_model, progress=progress
    )


def _replies(config: ServeConfig, progress, loaded: dict):
    from clarion.replies import ReplyRanker

    return ReplyRanker.load(progress=progress)


LOADERS: dict[Feature, Callable[[ServeConfig, Any, dict], Any]] = {
    Feature.converse: _assistant,
    Feature.clarify: _clarifier,
    Feature.respond: _grounder,
    Feature.replies: _replies,
}
"""How each feature's model is loaded (its default model trained first when absent, as the CLI commands do), given
the models loaded before it (the clarifier is the conversation engine's own when both are loaded)."""


WARMUP_TEXT = "Tell me about dinosaurs."
"""A request every model answers once before the server listens, so that what loads on first use (the need model,
encoders, caches) is loaded by then and the first user does not wait for it."""

WARMUPS: dict[Feature, Callable[[Any], Any]] = {
    Feature.converse: lambda model: model.reply([{"role": "user", "text": WARMUP_TEXT}]),
    Feature.clarify: lambda model: (model.need(WARMUP_TEXT), model.rank(WARMUP_TEXT, k=5, fitting=True)),
    Feature.respond: lambda model: model.respond([{"speaker": "U", "text": WARMUP_TEXT}]),
    Feature.replies: lambda model: model.score([WARMUP_TEXT], ["They lived long ago.", "I like tea."]),
}


def _converse_many(model, conversations: list) -> list:
    many = getattr(model, "reply_many", None)
    return many(conversations) if many is not None else [model.reply(turns) for turns in conversations]


def _clarify_many(model, items: list[tuple[str, int, float]]) -> list[dict]:
    """``clarion clariq clarify --json``'s object for each ``(request, k, threshold)``, the needs in one batch."""
    from clarion.clariq.clarifier import clarification

    requests = [request for request, _, _ in items]
    many = getattr(model, "need_many", None)
    needs = many(requests) if many is not None else [model.need(r) for r in requests]
    return [clarification(model, *item, need=need)[0] for item, need in zip(items, needs, strict=True)]


BATCHED: dict[Feature, Callable[[Any, list], list]] = {
    Feature.converse: _converse_many,
    Feature.clarify: _clarify_many,
}
"""The features whose requests are gathered into batches: ``fn(model, items) -> results``, one per item."""


@dataclass
class Services:
    """The loaded model of each feature (a feature absent here answers 503: not loaded by this server)."""

    models: dict[Feature, Any] = field(default_factory=dict)
    needs: list[dict] = field(default_factory=list)
    """Information needs for the evaluation page (see :mod:`clarion.serve.needs`)."""
    _locks: dict[Feature, threading.Lock] = field(default_factory=dict, repr=False)

    def __post_init__(self) -> None:
        self.models = {Feature(k): v for k, v in self.models.items()}
        self._locks = {feature: threading.Lock() for feature in self.models}

    def has(self, feature: Feature) -> bool:
        return feature in self.models

    def sources(self) -> bool:
        """Whether the conversation engine answers from a knowledge base or documents (so with sources); without
        one its answer is the understood query, and it never has sources."""
        return getattr(self.models.get(Feature.converse), "answerer", None) is not None

    def clariq_models(self) -> str | None:
        """Which ClariQ models answer (the engine's, else the clarifier's): their splits, "starter" before them for the
        starter models a first run trains (``"train+dev"``, ``"train"``, ``"starter train+dev"``); None when no
        ClariQ model directory is loaded."""
        model = self.models.get(Feature.converse, self.models.get(Feature.clarify))
        directory = getattr(getattr(model, "clarifier", model), "directory", None)
        if not isinstance(directory, Path) or not (directory / "meta.json").is_file():
            return None
        from clarion.dialogue.loading import trained_models

        models = trained_models(directory)
        return ("starter " if models.starter else "") + "+".join(models.splits)

    def locked(self, feature: Feature, fn: Callable, *args):
        """``fn(model, *args)`` under the model's lock (run it in the pool: it blocks)."""
        with self._locks[feature]:
            return fn(self.models[feature], *args)

    def call(self, feature: Feature, method: str, *args):
        """``model.method(*args)`` under the model's lock."""
        return self.locked(feature, lambda model, *a: getattr(model, method)(*a), *args)

    def batch(self, feature: Feature, items: list) -> list:
        """:data:`BATCHED`'s function of ``feature`` on ``items`` (run it in the pool: it blocks). Not under the
        lock: these models keep no per-call state, so batches may run side by side."""
        return BATCHED[feature](self.models[feature], items)


def load_services(config: ServeConfig, progress=None) -> Services:
    """Every model ``config.features`` names, and the evaluation needs (ClariQ dev facets when the data is found,
    scenarios from ``config.knowledge`` when given)."""
    from clarion.errors import ClarionError
    from clarion.serve.needs import clariq_needs, dstc_needs

    models: dict[Feature, Any] = {}
    for feature in sorted(config.features, key=lambda f: f != Feature.converse):  # the engine first
        models[feature] = LOADERS[feature](config, progress, models)
    models = {feature: models[feature] for feature in config.features}
    _torch_threads(config.threads)
    trace_encoders()  # batches encode from several threads: traced, they do not queue for the interpreter lock
    for feature, model in models.items():
        WARMUPS[feature](model)
    needs: list[dict] = []
    try:
        needs += clariq_needs(config.data_dir)
    except ClarionError:  # no ClariQ data: the evaluation page offers the knowledge base's scenarios only
        pass
    grounder = models.get(Feature.respond)
    if config.knowledge is not None and grounder is not None:
        needs += dstc_needs(grounder.knowledge)
    elif config.knowledge is not None:
        from clarion.data.dstc import KNOWLEDGE, read_knowledge

        path = config.knowledge
        needs += dstc_needs(read_knowledge(path / KNOWLEDGE if path.is_dir() else path))
    return Services(models, needs)


def _torch_threads(threads: int) -> None:
    """``threads`` torch threads and BLAS (numpy) threads per model call (``clarion serve --threads``), set once the
    models are loaded (a model trained at start keeps its own settings). The need model's features are small
    matrix-vector products against the question bank: OpenBLAS's own threads cost more than they save there (on two
    cores shared with other work, ~10 ms instead of ~0.1 ms per product), and the batches running side by side
    already keep the cores busy."""
    import sys

    from threadpoolctl import threadpool_limits

    if "torch" in sys.modules:
        sys.modules["torch"].set_num_threads(threads)
    threadpool_limits(limits=threads, user_api="blas")


class Pool:
    """A bounded thread pool for blocking model and database calls, awaited from the event loop; each of its threads
    runs torch on ``threads`` threads (:func:`~clarion.retrieve.threads.use_threads`: set in the thread itself)."""

    def __init__(self, workers: int, threads: int = 1):
        self.workers = workers
        self._executor = ThreadPoolExecutor(workers, "clarion-serve", initializer=use_threads, initargs=(threads,))

    async def run(self, fn: Callable, *args, **kwargs):
        return await asyncio.get_running_loop().run_in_executor(self._executor, partial(fn, *args, **kwargs))

    def shutdown(self) -> None:
        self._executor.shutdown(wait=True, cancel_futures=True)

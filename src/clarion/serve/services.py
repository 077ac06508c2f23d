"""The models behind the endpoints, loaded once when the server starts, and the bounded pool that runs them.

:data:`LOADERS` maps each :class:`~clarion.serve.config.Feature` to the function that loads its model; a server loads
the features its config lists. Model objects are not documented as thread-safe (the clarifier keeps its last
request's neighbour), so each is called under its own lock; the pool's threads let different models (and the
evaluation database) work at once while the event loop stays free.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from functools import partial
from typing import Any

from clarion.serve.config import Feature, ServeConfig


def _clarifier(config: ServeConfig, progress):
    from clarion.clariq.clarifier import Clarifier

    return Clarifier.load(config.clariq_model, config.data_dir, progress=progress)


def _grounder(config: ServeConfig, progress):
    from clarion.dstc.assistant import Grounder
    from clarion.store import no_progress

    return Grounder.load(config.dstc_model, config.knowledge, config.data_dir, progress or no_progress)


def _assistant(config: ServeConfig, progress):
    from clarion.dialogue import Assistant

    return Assistant.load(
        knowledge=config.knowledge, documents=config.documents, model_dir=config.clariq_model, progress=progress
    )


def _replies(config: ServeConfig, progress):
    from clarion.respond.replies import ReplyRanker

    return ReplyRanker.load(progress=progress)


LOADERS: dict[Feature, Callable[[ServeConfig, Any], Any]] = {
    Feature.converse: _assistant,
    Feature.clarify: _clarifier,
    Feature.respond: _grounder,
    Feature.replies: _replies,
}
"""How each feature's model is loaded (its default model trained first when absent, as the CLI commands do)."""


WARMUP_TEXT = "Tell me about dinosaurs."
"""A request every model answers once before the server listens, so that what loads on first use (the need model,
encoders, caches) is loaded by then and the first user does not wait for it."""

WARMUPS: dict[Feature, Callable[[Any], Any]] = {
    Feature.converse: lambda model: model.reply([{"role": "user", "text": WARMUP_TEXT}]),
    Feature.clarify: lambda model: (model.need(WARMUP_TEXT), model.rank(WARMUP_TEXT, k=5, fitting=True)),
    Feature.respond: lambda model: model.respond([{"speaker": "U", "text": WARMUP_TEXT}]),
    Feature.replies: lambda model: model.score([WARMUP_TEXT], ["They lived long ago.", "I like tea."]),
}


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

    def locked(self, feature: Feature, fn: Callable, *args):
        """``fn(model, *args)`` under the model's lock (run it in the pool: it blocks)."""
        with self._locks[feature]:
            return fn(self.models[feature], *args)

    def call(self, feature: Feature, method: str, *args):
        """``model.method(*args)`` under the model's lock."""
        return self.locked(feature, lambda model, *a: getattr(model, method)(*a), *args)


def load_services(config: ServeConfig, progress=None) -> Services:
    """Every model ``config.features`` names, and the evaluation needs (ClariQ dev facets when the data is found,
    scenarios from ``config.knowledge`` when given)."""
    from clarion.errors import ClarionError
    from clarion.serve.needs import clariq_needs, dstc_needs

    models = {feature: LOADERS[feature](config, progress) for feature in config.features}
    _one_thread_per_call()
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


def _one_thread_per_call() -> None:
    """One torch thread per model call: the pool runs calls side by side (as ``cli.common.one_at_a_time`` does
    for one-request-at-a-time commands: two threads per call wait on each other)."""
    import sys

    if "torch" in sys.modules:
        sys.modules["torch"].set_num_threads(1)


class Pool:
    """A bounded thread pool for blocking model and database calls, awaited from the event loop."""

    def __init__(self, workers: int):
        self.workers = workers
        self._executor = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="clarion-serve")

    async def run(self, fn: Callable, *args, **kwargs):
        return await asyncio.get_running_loop().run_in_executor(self._executor, partial(fn, *args, **kwargs))

    def shutdown(self) -> None:
        self._executor.shutdown(wait=True, cancel_futures=True)

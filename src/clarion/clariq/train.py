"""Training everything the default ClariQ pipeline needs into one versioned model directory.

``<cache>/models/clariq/pipeline-<config hash>-<data hash>/`` (see :mod:`clarion.store`) holds

- ``ranker/``: the :class:`~clarion.clariq.ranker.QuestionRanker` (LambdaMART + context);
- ``need/``: the clarification-need model (:class:`clarion.clariq.need.NeedModel`), when available;
- ``meta.json``: config, data fingerprint, cross-validation metrics, training time, peak memory and the
  training environment (:func:`clarion.store.environment`).

``rank_full`` is the ``"full"`` rank method of :mod:`clarion.clariq.methods`: it uses the model trained on
its ``train_splits`` when present and trains it, saying so on stderr, when absent.
"""

from __future__ import annotations

import resource
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from functools import partial
from pathlib import Path

from clarion.clariq.ranker import QuestionRanker
from clarion.clariq.ranker_config import RankerConfig
from clarion.clariq.ranker_context import POOL_SPLITS
from clarion.data.clariq import ClariQ
from clarion.data.clariq_constants import check_splits
from clarion.rerank.competition import COMPETITION_FEATURES
from clarion.rerank.features import FEATURES
from clarion.store import (
    Progress,
    announce,
    ensure,
    model_dir,
    no_progress,
    read_meta,
    writable_cache,
    write_meta,
    writing,
)
from clarion.types import Run, Topic

TASK = "clariq"
NAME = "pipeline"
DEFAULT_SPLITS = ("train", "dev")


def ranker_config(tiny: bool = False, starter: bool = False) -> RankerConfig:
    """The ranker's configuration: the full one, CI's tiny one, or the starter one a first conversation trains."""
    config = RankerConfig.tiny() if tiny else RankerConfig()
    return config.as_starter() if starter else config


def pipeline_config(splits: Sequence[str], tiny: bool = False, starter: bool = False) -> dict:
    """The configuration that, with the data fingerprint, names the model directory (a starter model's says so)."""
    from clarion.clariq.need import NeedConfig

    ranker = ranker_config(tiny, starter)
    need = NeedConfig.tiny() if tiny else NeedConfig()
    features = {"features": list(FEATURES), "competition_features": list(COMPETITION_FEATURES)}
    kind = {"starter": True} if starter else {}  # the full models' directory names stay as they were
    return {"splits": list(splits), "tiny": tiny, **kind, "ranker": asdict(ranker), "need": asdict(need), **features}


def data_fingerprint(data: ClariQ, splits: Sequence[str]) -> str:
    """Fingerprint of the labelled splits, the bank and the request pool files."""
    return data.fingerprint(splits, POOL_SPLITS)


def default_model_dir(
    data: ClariQ, splits: Sequence[str] = DEFAULT_SPLITS, tiny: bool = False, starter: bool = False
) -> Path:
    """Where :func:`train_models` puts the model for ``splits`` (``starter``: the starter model's)."""
    splits = check_splits(splits)
    return model_dir(TASK, NAME, pipeline_config(splits, tiny, starter), data_fingerprint(data, splits))


BENCHMARK_SPLITS = ("train",)
"""The splits of the models ``clarion clariq benchmark`` trains (dev is what it scores)."""


TRAIN_ONLY = (
    "using the ClariQ models trained on ClariQ train, those `clarion clariq benchmark` trains ({directory}); "
    "`clarion clariq train` trains the train+dev ones (about 10 minutes on 2 cores), used from then on"
)
"""What :func:`engine_models` says when it chooses the train-only models."""

STARTER = (
    "no full ClariQ models are trained yet: using the starter models ({directory}; about 1 minute to train on 2 "
    "cores, questions ranked a little less well); `clarion chat --prepare` trains the full ones (about 18 minutes), "
    "used from then on"
)
"""What :func:`engine_models` says when it chooses the starter models."""


@dataclass(frozen=True)
class EngineModels:
    """Which ClariQ models a conversation uses: those trained on ``splits``, the starter ones when ``starter``."""

    splits: tuple[str, ...]
    starter: bool = False


def engine_models(data: ClariQ, say: Callable[[str], None] = announce, starter: bool = True) -> EngineModels:
    """The ClariQ models a conversation uses when no model is named: train+dev when cached (``clarion clariq
    train``), else the train-only ones ``clarion clariq benchmark`` trains when cached; with neither, the starter
    models on train+dev (:meth:`RankerConfig.starter`, trained in about a minute) when ``starter``, else the
    train-only ones (trained now: one set of models serves the benchmark and a conversation). ``say`` tells, in one
    line, what was chosen when it is not train+dev and how to get better models."""
    from clarion.store import is_complete

    if is_complete(default_model_dir(data, DEFAULT_SPLITS)):
        return EngineModels(DEFAULT_SPLITS)
    if starter and not is_complete(default_model_dir(data, BENCHMARK_SPLITS)):
        say(STARTER.format(directory=default_model_dir(data, DEFAULT_SPLITS, starter=True)))
        return EngineModels(DEFAULT_SPLITS, starter=True)
    say(TRAIN_ONLY.format(directory=default_model_dir(data, BENCHMARK_SPLITS)))
    return EngineModels(BENCHMARK_SPLITS)


def ready_to_train(data: ClariQ, splits: Sequence[str]) -> None:
    """Fail now, in one line, when a training on ``splits`` could not finish (a data file missing or malformed, a
    cache that cannot be written), before a training is announced."""
    data.require_training_files(splits)
    writable_cache()


def train_models(
    data: ClariQ,
    splits: Sequence[str] = DEFAULT_SPLITS,
    out_dir: str | Path | None = None,
    tiny: bool = False,
    progress: Callable[[int], None] | None = None,
    need_progress: Progress = no_progress,
    starter: bool = False,
) -> Path:
    """Train the question ranker and the need model on ``splits`` (``starter``: the starter ranker); return the model
    directory.

    ``progress`` (optional) is called with an increment after each ranker training step (``ranker_steps(tiny)``
    steps in all), e.g. a rich progress bar's ``advance``; ``need_progress`` reports the need model's training
    when it is not cached yet.
    """
    splits = check_splits(splits)
    config = pipeline_config(splits, tiny, starter)
    fingerprint = data_fingerprint(data, splits)
    ready_to_train(data, splits)  # the encoders and the need model are cached there, whatever ``out_dir`` is
    start = time.perf_counter()
    ranker = QuestionRanker.train(data, splits, progress=progress, config=ranker_config(tiny, starter))
    from clarion.clariq.need import load_or_train

    # The need method's own cached model for these splits (trained once, shared with `clarion clariq need`).
    need = load_or_train(data, splits, tiny=tiny, progress=need_progress)
    # Only now, with both trained, is the directory touched: a failed or interrupted training leaves a model
    # already there as it was.
    metrics: dict = {"ranker": ranker.cv_metrics, "need": "trained"}
    metrics["training_seconds"] = round(time.perf_counter() - start, 1)
    metrics["peak_memory_mb"] = round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)
    with writing(Path(out_dir) if out_dir else model_dir(TASK, NAME, config, fingerprint)) as directory:
        ranker.save(directory / "ranker")
        need.save(directory / "need")
        write_meta(directory, config, fingerprint, metrics)
    return directory


def ranker_steps(tiny: bool = False, starter: bool = False) -> int:
    """How many times :func:`train_models` calls ``progress`` (for a progress bar's total)."""
    config = ranker_config(tiny, starter)
    return config.folds * (1 + config.stages) + (1 if config.finetune_epochs > 0 else 0)


def load_ranker(data: ClariQ, splits: Sequence[str], tiny: bool = False, starter: bool = False) -> QuestionRanker:
    """The ranker trained on ``splits`` (``starter``: the starter one), trained now (:func:`clarion.store.ensure`)
    when absent."""

    def train(directory: Path) -> None:
        train_models(data, splits, directory, tiny=tiny, starter=starter)

    def stale(directory: Path) -> bool:
        return not (directory / "ranker" / "ranker.json").is_file()

    ready = partial(ready_to_train, data, splits)
    what, on = "the ClariQ question ranker", f"ClariQ {'+'.join(splits)}"
    directory = ensure(default_model_dir(data, splits, tiny, starter), train, what, on, ready=ready, stale=stale)
    read_meta(directory)  # an emptied meta.json (a crash) is a damaged model
    return QuestionRanker.load(directory / "ranker")


def rank_full(topics: list[Topic], data: ClariQ, train_splits: Sequence[str] = DEFAULT_SPLITS) -> Run:
    """The full pipeline (first stage + LambdaMART + ``Q00001`` slot) trained on ``train_splits``."""
    return rank_full_with(load_ranker(data, tuple(train_splits) or DEFAULT_SPLITS), topics)


def rank_full_with(ranker: QuestionRanker, topics: list[Topic]) -> Run:
    """:func:`rank_full` with its ranker loaded (a worker of ``--workers`` loads it once for many blocks)."""
    ranked = ranker.rank([t.request for t in topics], k=ranker.config.shortlist + 1)
    return {topic.id: dict(pairs) for topic, pairs in zip(topics, ranked, strict=True)}  # strictly decreasing

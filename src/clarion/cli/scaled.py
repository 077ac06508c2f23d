"""The batch commands on a Ray cluster (``--workers N``, ``--ray-address ADDR``): what each worker loads once, and
what it does with one block of the input, for :func:`clarion.scale.map_blocks`.

The driver reads and checks the whole input first (a bad line fails as in one process, before any cluster
starts) and trains or loads the models into the cache; the workers then load them from that cache (a cluster on
several machines needs ``CLARION_CACHE_DIR`` and the data on a shared file system). A worker receives only the
input of its blocks and the paths and options to load from; it returns each block's results, which the driver
writes as one process writes them.
"""

from __future__ import annotations

from functools import partial
from pathlib import Path

from clarion.cli.common import map_with_bar
from clarion.scale import Cluster


def absolute(path: Path | None) -> Path | None:
    """``path`` made absolute: a worker's working directory is not the driver's."""
    return None if path is None else Path(path).expanduser().resolve()


# ClariQ: rank and need


def clariq_results(kind: str, method: str, topics: list, data_dir: Path | None, splits: tuple, cluster: Cluster):
    """``rank_method(method)(topics, ...)`` (a run) or ``need_method(method)(...)`` (labels), by topic id, computed
    on the cluster in blocks of topics."""
    from clarion.data.location import data_dir as resolved

    load = partial(_clariq_model, kind, method, absolute(resolved(data_dir)), splits)
    pairs = map_with_bar(load, _clariq_block, topics, cluster, f"{kind} with {method}", size=8)
    return dict(pairs)


def _clariq_model(kind: str, method: str, data_dir: Path | None, splits: tuple):
    """A function of a block of topics to ``{topic id: result}``, its model loaded once."""
    from clarion.clariq.methods import need_method, rank_method
    from clarion.data.clariq import ClariQ

    data = ClariQ.load(data_dir)
    if kind == "rank" and method == "full":
        from clarion.clariq.train import load_ranker, rank_full_with

        ranker = load_ranker(data, splits)
        return lambda topics: rank_full_with(ranker, topics)
    if kind == "need" and method == "model":
        from clarion.clariq.need import load_or_train, need_with

        model = load_or_train(data, splits)
        return lambda topics: need_with(model, topics)
    function = rank_method(method) if kind == "rank" else need_method(method)
    return lambda topics: function(topics, data, splits)


def _clariq_block(model, topics: list) -> list[tuple]:
    result = model(topics)
    return [(topic.id, result[topic.id]) for topic in topics]


# replies rank


def reply_scores(model: Path, groups: list, cluster: Cluster) -> list:
    """``ReplyRanker.load(model).score_groups(groups)``, computed on the cluster in blocks of contexts."""
    load = partial(_reply_ranker, absolute(model))
    return map_with_bar(load, _score_block, groups, cluster, "ranking contexts", size=16)


def _reply_ranker(model: Path):
    from clarion.replies.ranker import ReplyRanker

    return ReplyRanker.load(model)


def _score_block(ranker, groups: list) -> list:
    return ranker.score_groups(groups)


# dstc predict


def dstc_predictions(directory: Path, split, model: Path, changes: dict, n_contexts: int, cluster: Cluster) -> list:
    """:meth:`DstcModel.predict` of every context of the data, computed on the cluster in blocks of contexts;
    ``changes``: the ``generator``, ``lm_samples`` and ``settings`` options of ``clarion dstc predict``."""
    load = partial(_dstc_worker, absolute(directory), split, absolute(model), changes)
    return map_with_bar(load, _predict_block, list(range(n_contexts)), cluster, "predicting contexts", size=16)


def _dstc_worker(directory: Path, split, model: Path, changes: dict):
    from dataclasses import replace

    from clarion.data.dstc import load_dataset
    from clarion.dstc.models.modeldir import load_model
    from clarion.dstc.models.options import prediction_config
    from clarion.dstc.models.pipeline import apply_split

    pipeline = load_model(model)
    if changes.get("generator") is not None:
        pipeline.config.generator = changes["generator"]
    if changes.get("lm_samples") is not None:
        pipeline.config.lm = replace(pipeline.config.lm, samples=changes["lm_samples"])
    if changes.get("settings"):
        pipeline.config = prediction_config(pipeline.config, changes["settings"])
    dataset = apply_split(load_dataset(directory, labels=False), split)
    return pipeline, dataset, pipeline.prepare(dataset.knowledge)


def _predict_block(worker, indices: list[int]) -> list:
    pipeline, dataset, prepared = worker
    return pipeline.predict(dataset.subset(indices), prepared=prepared)

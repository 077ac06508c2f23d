"""Batch work spread over a Ray cluster, its result the one a single process computes.

:func:`map_blocks` cuts a list of items into ordered blocks and maps a per-block function over them on a pool of
Ray actors, one per worker. Each actor builds its model once (``load()``, typically from the shared model cache
that the driver filled first); blocks go to whichever actor is free, and the results come back in input order,
each block's exactly once. An actor whose process dies is restarted (it loads its model again) and its blocks are
run again (Ray's ``max_restarts``/``max_task_retries``), so no block is lost and none counted twice.

Ray is imported only here and only when a cluster is asked for (``--workers`` or ``--ray-address``): a command run
without either never imports it. Ray is the optional extra ``clarion[ray]``.

A local cluster (``--workers N``) stays on loopback: it binds to :data:`LOOPBACK` (Ray rewrites 127.0.0.1 to the
machine's network address, but leaves 127.0.0.2 alone), without the dashboard, and with Ray's usage reporting off.
"""

from __future__ import annotations

import logging
import math
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from clarion.errors import ClarionError, InputError

LOOPBACK = "127.0.0.2"
"""The address of a local cluster: loopback that Ray does not rewrite to the machine's network address."""

RETRIES = 3
"""How often a dead worker is restarted and its block run again before the command gives up."""

IN_FLIGHT = 2
"""Blocks queued per worker, so that a worker never waits for the driver between two blocks."""

OBJECT_STORE_BYTES = 256 * 1024**2
"""A local cluster's shared-memory object store (Ray's default takes 30% of the machine's memory)."""

PASSED_ENV = ("PYTHONPATH", "CLARION_", "HF_", "TRANSFORMERS_", "TOKENIZERS_", "OMP_NUM_THREADS")
"""Environment variables (names, or prefixes ending in ``_``) the driver hands to every worker, so that workers
read the same cache, data and settings (``CLARION_TINY``) as the driver."""


class ScaleError(ClarionError):
    """The cluster could not run the work: Ray is missing, the address is wrong, or a worker kept dying."""


@dataclass(frozen=True)
class Cluster:
    """Where the work runs: ``workers`` actors on a local cluster started for the run, or on the running cluster
    at ``address`` (``workers`` there defaults to one per CPU of the cluster)."""

    workers: int | None = None
    address: str | None = None

    def __post_init__(self) -> None:
        if self.workers is not None and self.workers < 1:
            raise InputError(f"--workers must be at least 1, got {self.workers}")
        if self.address is not None and not self.address.strip():
            raise InputError("--ray-address is empty: give host:port of a running cluster (ray start --head), or auto")


def cluster_of(workers: int | None, address: str | None) -> Cluster | None:
    """The cluster the options ask for, or ``None`` (one process, Ray never imported)."""
    if workers is None and address is None:
        return None
    return Cluster(workers, address)


def block_size(n_items: int, n_workers: int, most: int = 32) -> int:
    """A block size giving each worker about eight blocks (for balance and a smooth progress bar), 1 to ``most``."""
    return max(1, min(most, math.ceil(n_items / (8 * max(n_workers, 1)))))


def map_blocks(
    load: Callable[[], Any],
    work: Callable[[Any, list], list],
    items: Sequence,
    cluster: Cluster,
    *,
    size: int | None = None,
    progress: Callable[[int], None] | None = None,
) -> list:
    """``work(model, block)`` for consecutive blocks of ``items`` (one result per item, in order), with ``model =
    load()`` built once per worker; the results concatenated in input order. ``load`` and ``work`` must be
    picklable (module-level functions, or :func:`functools.partial` of them). ``progress(n)`` is called in the
    driver as each block of ``n`` items comes back, whichever worker ran it."""
    items = list(items)
    if not items:
        return []
    ray = _connect(cluster)
    try:
        n_workers = cluster.workers or max(1, int(ray.cluster_resources().get("CPU", 1)))
        size = size or block_size(len(items), n_workers)
        blocks = [items[i : i + size] for i in range(0, len(items), size)]
        holder = ray.remote(num_cpus=1, max_restarts=RETRIES, max_task_retries=RETRIES)(_Holder)
        actors = [holder.remote(load, work) for _ in range(min(n_workers, len(blocks)))]
        results = _run(ray, actors, blocks, progress or (lambda n: None))
    finally:
        ray.shutdown()
    out: list = []
    for block, result in zip(blocks, results, strict=True):
        if len(result) != len(block):
            raise ValueError(f"a block of {len(block)} items gave {len(result)} results")
        out.extend(result)
    return out


class _Holder:
    """A worker: its model, loaded once, and the per-block function."""

    def __init__(self, load: Callable[[], Any], work: Callable[[Any, list], list]):
        self.model = load()
        self.work = work

    def run(self, block: list) -> list:
        return self.work(self.model, block)


def _run(ray, actors: list, blocks: list[list], progress: Callable[[int], None]) -> list[list]:
    """Every block's result, by block index; each actor keeps :data:`IN_FLIGHT` blocks queued."""
    results: list[list | None] = [None] * len(blocks)
    pending: dict[Any, tuple[int, Any]] = {}  # object ref -> (block index, actor)
    following = iter(range(len(blocks)))

    def submit(actor) -> None:
        index = next(following, None)
        if index is not None:
            pending[actor.run.remote(blocks[index])] = (index, actor)

    for actor in actors:
        for _ in range(IN_FLIGHT):
            submit(actor)
    while pending:
        [ref], _ = ray.wait(list(pending), num_returns=1)
        index, actor = pending.pop(ref)
        results[index] = _get(ray, ref)
        progress(len(blocks[index]))
        submit(actor)
    return results  # type: ignore[return-value]


def _get(ray, ref) -> list:
    """A block's result; a :class:`ClarionError` raised in a worker is raised here as it is."""
    from ray.exceptions import RayActorError, RayTaskError

    try:
        return ray.get(ref)
    except RayTaskError as err:
        cause = getattr(err, "cause", None)
        if isinstance(cause, ClarionError):
            raise cause from None
        raise
    except RayActorError as err:
        if getattr(err, "_actor_init_failed", False):  # load() raised: its last line says why
            lines = [line.strip() for line in str(err.error_msg).splitlines() if line.strip()]
            raise ScaleError(f"a worker could not load its model: {lines[-1] if lines else err}") from None
        raise ScaleError(f"a worker died {RETRIES + 1} times running one block; giving up") from None


def worker_env() -> dict[str, str]:
    """The driver's variables of :data:`PASSED_ENV`, for every worker's environment."""
    return {
        name: value
        for name, value in os.environ.items()
        if any(name.startswith(p) if p.endswith("_") else name == p for p in PASSED_ENV)
    }


def _connect(cluster: Cluster):
    """The ``ray`` module, connected to the cluster (a local one started for the run when no address is given)."""
    os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")  # no usage report leaves the machine
    try:
        import ray
    except ImportError:
        raise ScaleError("--workers and --ray-address need Ray: pip install 'clarion[ray]'") from None
    options: dict[str, Any] = {
        "runtime_env": {"env_vars": worker_env()},
        "log_to_driver": False,
        "logging_level": logging.WARNING,
    }
    try:
        if cluster.address is not None:
            ray.init(address=cluster.address, **options)
        else:
            os.environ.setdefault("RAY_worker_niceness", "0")  # the run's workers are the command, not background
            ray.init(
                num_cpus=cluster.workers,
                _node_ip_address=LOOPBACK,
                include_dashboard=False,
                object_store_memory=OBJECT_STORE_BYTES,
                **options,
            )
    except (ConnectionError, ValueError, RuntimeError) as err:
        where = f"the Ray cluster at {cluster.address}" if cluster.address else "a local Ray cluster"
        raise ScaleError(f"could not connect to {where}: {str(err).splitlines()[0] if str(err) else err}") from None
    return ray

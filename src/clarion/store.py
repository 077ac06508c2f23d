"""Versioned directories for trained artefacts, keyed by task, configuration and training data: one model lifecycle.

Every model (ClariQ's question ranker and need model, the answer rewriter, the DSTC pipeline, the reply ranker)
goes through the same steps: a directory
keyed by its configuration and a fingerprint of its training data (:func:`model_dir`), training that reports to a
:data:`Progress` callback, saving with ``meta.json`` written last (:func:`writing`, :func:`write_meta`), and loading;
:func:`ensure` trains a model that is absent, saying in one line (:func:`announce`) what it trains, on which data
and where.

Every model directory holds ``meta.json``: clarion's version, the config, the data fingerprint, the metrics
measured when it was trained, the environment that trained it (CPU, key package versions) and the creation
time. A directory is complete only once ``meta.json`` exists
(it is written last), so an interrupted training never looks like a usable model.
"""

from __future__ import annotations

import os
import platform
import sys
import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from clarion.data.io import fingerprint_config, read_json, write_json
from clarion.data.location import cache_dir
from clarion.errors import DataError, ModelError

try:
    import fcntl
except ImportError:  # pragma: no cover - not POSIX: no lock, the meta.json-last rule still holds
    fcntl = None

META = "meta.json"

Progress = Callable[[str, int], Callable[[int], None]]
"""``progress(description, total)`` returns an ``advance(n)`` callback (the CLI passes a rich bar)."""


def no_progress(description: str, total: int) -> Callable[[int], None]:
    """A :data:`Progress` that reports nothing."""
    return lambda n=1: None


Say = Callable[[str], None]
"""Where a one-line announcement goes (``say(message)``); the CLI passes its console's ``print``."""


def announce(message: str) -> None:
    """The default :data:`Say`: one line on stderr, flushed (stdout is kept for results)."""
    print(message, file=sys.stderr, flush=True)


def ensure(
    directory: str | Path,
    train: Callable[[Path], object],
    what: str,
    on: str,
    *,
    ready: Callable[[], None] | None = None,
    stale: Callable[[Path], bool] | None = None,
    say: Say | None = None,
) -> Path:
    """``directory`` when it holds a finished model; otherwise it is trained there first, every model kind the same
    way: ``ready()`` fails at once when the training could not finish (data missing), the cache must be writable,
    one line says ``"<what> is not trained yet: training it on <on> -> <directory>"`` (``say``, default
    :func:`announce`), and ``train(directory)`` trains and saves the model (``meta.json`` last). ``stale(directory)``
    says a finished model was saved in a format this clarion no longer reads: it is retrained in place."""
    directory = Path(directory)
    complete = is_complete(directory)
    old = complete and stale is not None and stale(directory)
    if complete and not old:
        return directory
    if ready is not None:
        ready()
    writable_cache()
    state = "was saved by an older clarion: retraining it" if old else "is not trained yet: training it"
    (say or announce)(f"{what} {state} on {on} -> {directory}")
    train(directory)
    return directory


def writable_cache() -> Path:
    """The cache directory, created if needed; :class:`ModelError` at once when models cannot be written there
    (a read-only disk, a file in its place), so that no training runs only to fail at its end."""
    root = cache_dir()
    probe = root / "models" / f".write-test.{os.getpid()}"
    try:
        probe.parent.mkdir(parents=True, exist_ok=True)
        probe.write_bytes(b"")
        probe.unlink()
    except OSError as err:
        raise ModelError(
            f"{root}: the cache directory cannot be written ({err.strerror or err}); set CLARION_CACHE_DIR"
        ) from None
    return root


def model_dir(task: str, name: str, config: Mapping[str, Any], data_fingerprint: str) -> Path:
    """``<cache>/models/<task>/<name>-<config hash>-<data hash>``: where such a model lives."""
    return cache_dir() / "models" / task / f"{name}-{fingerprint_config(config)}-{data_fingerprint}"


@contextmanager
def writing(directory: str | Path) -> Iterator[Path]:
    """:func:`begin` under an exclusive lock held until the block ends (``write_meta`` goes inside it): two
    trainings saving into one directory at once save one after the other, so the directory ends as one whole
    model, never a mix of both (``.<name>.lock`` beside it holds the lock)."""
    directory = Path(directory)
    directory.parent.mkdir(parents=True, exist_ok=True)
    with open(directory.parent / f".{directory.name}.lock", "a") as handle:
        if fcntl is not None:
            fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield begin(directory)
        finally:
            if fcntl is not None:
                fcntl.flock(handle, fcntl.LOCK_UN)


def begin(directory: str | Path) -> Path:
    """Create ``directory`` for a model about to be written and mark it incomplete (remove ``meta.json``), so
    a training that dies half-way over an older model never leaves a mix that looks finished."""
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    (directory / META).unlink(missing_ok=True)
    return directory


def is_complete(directory: str | Path) -> bool:
    """True when ``directory`` holds a finished model (its ``meta.json`` exists)."""
    return (Path(directory) / META).is_file()


ENVIRONMENT_PACKAGES = ("numpy", "scikit-learn", "lightgbm", "torch", "transformers", "sentence-transformers")
"""Packages whose versions change trained models' numbers; recorded in every ``meta.json``."""


def environment() -> dict[str, Any]:
    """Where a model was trained: Python, the CPU and the versions of :data:`ENVIRONMENT_PACKAGES`.

    Trained numbers are reproducible on one machine, but float-level differences between CPUs (vector
    instruction sets) and library versions move them slightly; this says which environment produced them."""
    from importlib.metadata import PackageNotFoundError, version

    packages = {}
    for name in ENVIRONMENT_PACKAGES:
        try:
            packages[name] = version(name)
        except PackageNotFoundError:
            packages[name] = None
    return {"python": platform.python_version(), "machine": platform.machine(), "cpu": cpu_model(), **packages}


def cpu_model() -> str:
    """The CPU's model name and widest vector extension from Linux ``/proc/cpuinfo`` (e.g. ``AMD EPYC,
    avx512f``), or ``platform.processor()`` elsewhere."""
    name, flags = "", set()
    try:
        for line in Path("/proc/cpuinfo").read_text(encoding="utf-8", errors="replace").splitlines():
            key, _, value = line.partition(":")
            if key.strip() == "model name" and not name:
                name = value.strip()
            elif key.strip() == "flags" and not flags:
                flags = set(value.split())
    except OSError:
        pass
    vector = next((f for f in ("avx512f", "avx2", "avx", "sse4_2") if f in flags), "")
    name = name or platform.processor() or "unknown"
    return f"{name}, {vector}" if vector else name


def write_meta(
    directory: str | Path,
    config: Mapping[str, Any],
    data_fingerprint: str,
    metrics: Mapping[str, Any] | None = None,
) -> None:
    """Write ``meta.json`` (last, marking the directory complete)."""
    from clarion import __version__

    write_json(
        Path(directory) / META,
        {
            "clarion_version": __version__,
            "config": dict(config),
            "data_fingerprint": data_fingerprint,
            "metrics": dict(metrics or {}),
            "environment": environment(),
            "created": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        },
    )


def read_meta(directory: str | Path) -> dict[str, Any]:
    """The ``meta.json`` of a model directory; a missing one raises :class:`ModelError`."""
    path = Path(directory) / META
    if not path.is_file():
        raise ModelError(f"{directory}: not a trained model directory (no {META}); train it first")
    try:
        meta = read_json(path)
    except DataError as err:  # emptied or cut by a crash: the model's file, not the user's data
        raise ModelError(f"{err}; retrain it") from None
    if not isinstance(meta, dict):
        raise ModelError(f"{path}: not a model's meta.json (a JSON object); retrain it")
    return meta

"""Where clarion finds datasets and keeps trained artefacts.

Data directory, first match wins:

1. an explicit ``data_dir`` (the CLI's ``--data-dir``);
2. the ``CLARION_DATA_DIR`` environment variable;
3. ``../shared/data`` beside the checkout (the development layout), when it exists;
4. ``<cache dir>/data`` (where ``clarion data fetch`` puts downloads).

Cache directory: ``CLARION_CACHE_DIR`` or ``$XDG_CACHE_HOME/clarion`` (``~/.cache/clarion``).
"""

from __future__ import annotations

import os
from pathlib import Path

from clarion.data.io import as_path, no_directory
from clarion.errors import DataError

_REPO_ROOT = Path(__file__).resolve().parents[3]


def cache_dir() -> Path:
    """The per-user cache directory for downloads, embeddings and trained models."""
    env = os.environ.get("CLARION_CACHE_DIR")
    if env:
        return Path(env).expanduser()
    xdg = os.environ.get("XDG_CACHE_HOME")
    base = Path(xdg).expanduser() if xdg else Path.home() / ".cache"
    return base / "clarion"


def data_dir(explicit: str | Path | None = None) -> Path:
    """Resolve the data directory (see the module docstring for the order)."""
    if explicit:
        path = as_path(explicit, "data_dir").expanduser()
        if not path.is_dir():
            raise DataError(path, f"data directory {no_directory(path)} (given with --data-dir)")
        return path
    env = os.environ.get("CLARION_DATA_DIR")
    if env:
        path = Path(env).expanduser()
        if not path.is_dir():
            raise DataError(path, f"data directory {no_directory(path)} (set by CLARION_DATA_DIR)")
        return path
    for base in (Path.cwd(), _REPO_ROOT):
        shared = base.parent / "shared" / "data"
        if shared.is_dir():
            return shared
    return cache_dir() / "data"


def dataset_dir(name: str, explicit: str | Path | None = None) -> Path:
    """The directory of one dataset (``clariq``, ``dstc11_track5``, ...), which must exist."""
    path = data_dir(explicit) / name
    if not path.is_dir():
        hint = " Run `clarion data fetch clariq`." if name == "clariq" else ""
        raise DataError(path, f"dataset {name!r} not found.{hint}")
    return path

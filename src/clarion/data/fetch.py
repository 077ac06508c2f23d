"""Download official dataset files into the cache (``clarion data fetch clariq``).

ClariQ's ``data/`` and ``sample_runs/`` folders (including ``test_with_labels.tsv`` and the large evaluation
pickles) are listed through the GitHub contents API and downloaded file by file, each written atomically.
Without network the first request fails within seconds (short timeouts) with a :class:`NetworkError`.
"""

from __future__ import annotations

import json
import os
import urllib.error
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from clarion.data.io import atomic_writer
from clarion.errors import InputError, NetworkError

CLARIQ_API = os.environ.get("CLARION_CLARIQ_API", "https://api.github.com/repos/aliannejadi/ClariQ/contents")
CLARIQ_FOLDERS = ("data", "sample_runs")
TIMEOUT = 5.0


@dataclass(frozen=True)
class RemoteFile:
    folder: str
    name: str
    url: str
    size: int


def _open(url: str, timeout: float):
    request = urllib.request.Request(url, headers={"User-Agent": "clarion"})
    try:
        return urllib.request.urlopen(request, timeout=timeout)
    except urllib.error.HTTPError as err:
        raise NetworkError(f"{url}: HTTP {err.code} {err.reason}") from None
    except (TimeoutError, urllib.error.URLError, OSError) as err:
        reason = getattr(err, "reason", err)
        raise NetworkError(f"cannot reach {url}: {reason} (no network?)") from None


def list_clariq(api: str = CLARIQ_API, timeout: float = TIMEOUT) -> list[RemoteFile]:
    """The files of ClariQ's ``data/`` and ``sample_runs/`` folders."""
    files = []
    for folder in CLARIQ_FOLDERS:
        with _open(f"{api}/{folder}", timeout) as response:
            try:
                entries = json.load(response)
            except (json.JSONDecodeError, UnicodeDecodeError):
                raise NetworkError(f"{api}/{folder}: unexpected answer (not JSON)") from None
        for entry in entries:
            if entry.get("type") == "file" and entry.get("download_url"):
                files.append(RemoteFile(folder, entry["name"], entry["download_url"], int(entry.get("size", 0))))
    return files


def download(
    remote: RemoteFile, dest: Path, advance: Callable[[int], None] | None = None, timeout: float = 30.0
) -> Path:
    """Download one file to ``dest`` atomically, calling ``advance(nbytes)`` as bytes arrive."""
    with _open(remote.url, timeout) as response, atomic_writer(dest, "wb") as out:
        while chunk := response.read(1 << 16):
            out.write(chunk)
            if advance:
                advance(len(chunk))
    return dest


def fetch_clariq(target: Path, progress=None) -> list[Path]:
    """Download ClariQ into ``target`` (``data/*`` at its top, ``sample_runs/*`` below it).

    ``progress`` is an optional rich Progress; files already present with the right size are skipped.
    """
    if target.exists() and not target.is_dir():
        raise InputError(f"{target}: exists and is not a directory")
    files = list_clariq()
    written = []
    task = progress.add_task("ClariQ", total=sum(f.size for f in files)) if progress else None
    for remote in files:
        dest = target / remote.name if remote.folder == "data" else target / remote.folder / remote.name
        if dest.is_file() and dest.stat().st_size == remote.size:
            if progress:
                progress.advance(task, remote.size)
            continue
        download(remote, dest, (lambda n: progress.advance(task, n)) if progress else None)
        written.append(dest)
    return written

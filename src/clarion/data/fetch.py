"""Download official dataset files into the cache (``clarion data fetch clariq``).

ClariQ's ``data/`` and ``sample_runs/`` folders (including ``test_with_labels.tsv`` and the large evaluation
pickles) are listed through the GitHub contents API and downloaded file by file, each written atomically.
Without network the first request fails within seconds (short timeouts) with a :class:`NetworkError`.
"""

from __future__ import annotations

import contextlib
import http.client
import json
import os
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
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
        url = f"{api}/{folder}"
        with _open(url, timeout) as response:
            try:
                entries = json.loads(_read_all(response, url))
            except (json.JSONDecodeError, UnicodeDecodeError, RecursionError):
                raise NetworkError(f"{url}: unexpected answer (not JSON)") from None
        files.extend(_remote_files(url, folder, entries))
    return files


def _remote_files(url: str, folder: str, entries: object) -> list[RemoteFile]:
    """The downloadable files of a contents-API answer, which must be a list of entries ``{"type", "name",
    "download_url", "size"}``; any other shape raises :class:`NetworkError` naming the URL."""
    if not isinstance(entries, list):
        got = type(entries).__name__ if not isinstance(entries, dict) else "an object"
        message = entries.get("message") if isinstance(entries, dict) else None
        detail = f": {' '.join(str(message).split())[:200]}" if message else ""
        raise NetworkError(f"{url}: unexpected answer (expected a list of files, got {got}){detail}")
    files = []
    for number, entry in enumerate(entries):
        if not isinstance(entry, dict):
            raise NetworkError(f"{url}: unexpected answer (entry {number} is not an object)")
        if entry.get("type") != "file" or not entry.get("download_url"):
            continue
        name, link, size = entry.get("name"), entry.get("download_url"), entry.get("size", 0)
        if not isinstance(name, str) or name in {"", ".", ".."} or any(c in name for c in "/\\\0"):
            raise NetworkError(f"{url}: unexpected answer (entry {number} has an invalid name: {name!r:.60})")
        if not isinstance(link, str) or not link.startswith(("https://", "http://")):
            raise NetworkError(f"{url}: unexpected answer (file {name}: invalid download_url {link!r:.60})")
        if isinstance(size, bool) or not isinstance(size, int) or size < 0:
            raise NetworkError(f"{url}: unexpected answer (file {name}: invalid size {size!r:.60})")
        files.append(RemoteFile(folder, name, link, size))
    return files


def _expected_length(response) -> int | None:
    """The Content-Length announced by ``response``, or None when absent or unreadable."""
    try:
        length = int(response.headers.get("Content-Length", ""))
    except ValueError:
        return None
    return length if length >= 0 else None


def _chunks(response, url: str) -> Iterator[bytes]:
    """The body of ``response`` in chunks; a connection lost midway or a body shorter than its announced
    Content-Length raises :class:`NetworkError`."""
    expected, received = _expected_length(response), 0
    while True:
        try:
            chunk = response.read(1 << 16)
        except (http.client.HTTPException, OSError) as err:
            reason = err or type(err).__name__
            raise NetworkError(f"{url}: download interrupted after {received} bytes ({reason})") from None
        if not chunk:
            break
        received += len(chunk)
        yield chunk
    if expected is not None and received != expected:
        raise NetworkError(f"{url}: download incomplete, received {received} of {expected} bytes")


def _read_all(response, url: str) -> bytes:
    return b"".join(_chunks(response, url))


def download(
    remote: RemoteFile, dest: Path, advance: Callable[[int], None] | None = None, timeout: float = 30.0
) -> Path:
    """Download one file to ``dest`` atomically, calling ``advance(nbytes)`` as bytes arrive."""
    with _open(remote.url, timeout) as response, atomic_writer(dest, "wb") as out:
        for chunk in _chunks(response, remote.url):
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
    new_dirs = [d for d in (target / "sample_runs", target) if not d.exists()]
    try:
        for remote in files:
            dest = target / remote.name if remote.folder == "data" else target / remote.folder / remote.name
            if dest.is_file() and dest.stat().st_size == remote.size:
                if progress:
                    progress.advance(task, remote.size)
                continue
            download(remote, dest, (lambda n: progress.advance(task, n)) if progress else None)
            written.append(dest)
    except BaseException:
        for directory in new_dirs:  # the directories this run made, if the failure left them empty
            with contextlib.suppress(OSError):
                directory.rmdir()
        raise
    return written

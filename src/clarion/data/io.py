"""Low-level file helpers shared by every reader and writer: safe reading and atomic writing."""

from __future__ import annotations

import contextlib
import functools
import hashlib
import json
import os
import re
import shutil
import tempfile
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any

from clarion.errors import DataError, InputError


def as_path(value: object, what: str) -> Path:
    """``value`` (a string or path-like) as a :class:`Path`; anything else raises :class:`InputError`."""
    if isinstance(value, str | os.PathLike):
        return Path(value)
    raise InputError(f"{what} must be a path (a string or pathlib.Path), got {type(value).__name__}")


def no_directory(path: Path) -> str:
    """Why ``path``, expected to be a directory, is none: "is a file, not a directory" or "does not exist"."""
    return "is a file, not a directory" if path.exists() else "does not exist"


def remove_orphans(directory: Path, pattern: str) -> None:
    """Remove the temporaries in ``directory`` matching ``pattern``, a glob whose one ``*`` stands for the id of the
    process that wrote them, when that process is gone (killed before it could clean up)."""
    prefix, _, suffix = pattern.partition("*")
    for path in directory.glob(pattern) if directory.is_dir() else ():
        pid = path.name[len(prefix) : len(path.name) - len(suffix)]
        if not pid.isdigit() or int(pid) == os.getpid() or _alive(int(pid)):
            continue
        if path.is_dir():
            shutil.rmtree(path, ignore_errors=True)
        else:
            path.unlink(missing_ok=True)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # another user's process: alive
        return True
    return True


def read_bytes(path: str | Path) -> bytes:
    """The bytes of ``path``; a missing, unreadable or directory path raises :class:`DataError` naming it."""
    path = as_path(path, "path")
    try:
        return path.read_bytes()
    except FileNotFoundError:
        raise DataError(path, "no such file") from None
    except IsADirectoryError:
        raise DataError(path, "is a directory, expected a file") from None
    except PermissionError:
        raise DataError(path, "permission denied") from None
    except OSError as err:
        raise DataError(path, f"cannot read: {err.strerror}") from None


def read_text(path: str | Path) -> str:
    """The whole text of ``path``; a missing, unreadable, binary or empty file raises :class:`DataError` (a
    ``path`` that is no path at all, :class:`InputError`)."""
    path = as_path(path, "path")
    data = read_bytes(path)
    try:
        text = data.decode("utf-8-sig")  # a byte-order mark is not part of the first field
    except UnicodeDecodeError as err:
        line = err.object[: err.start].count(b"\n") + 1
        raise DataError(
            path, f"not UTF-8 text (byte {err.start}, {err.object[err.start : err.start + 1]!r})", line
        ) from None
    text = text.replace("\r\n", "\n").replace("\r", "\n")  # universal newlines, as Path.read_text reads
    if not text.strip():
        raise DataError(path, "file is empty")
    return text


def read_lines(path: str | Path) -> Iterator[tuple[int, str]]:
    """(1-based line number, line without newline) for each non-blank line of ``path``. Lines end at a newline
    only (as for :func:`~clarion.data.tsv.read_tsv`): a form feed or U+2028 inside a line is part of it."""
    for number, line in enumerate(read_text(path).split("\n"), start=1):
        if line.strip():
            yield number, line


def read_json(path: str | Path) -> Any:
    """Parse a JSON file; a syntax error, or a string escape no text can hold (a lone surrogate such as
    ``"\\ud800"``, which JSON allows but no tokenizer or file can take), names the file and line."""
    text = read_text(path)
    try:
        obj = json.loads(text)
    except json.JSONDecodeError as err:
        raise DataError(path, f"invalid JSON: {err.msg} (column {err.colno})", line=err.lineno) from None
    except RecursionError:
        raise DataError(path, "invalid JSON: nested too deeply") from None
    if (where := _lone_surrogate(text)) is not None:
        line, escape = where
        raise DataError(path, f"not valid Unicode text: a lone surrogate escape {escape}", line=line)
    return obj


_SURROGATE = re.compile(r"\\u[dD][89a-fA-F][0-9a-fA-F]{2}")


def _lone_surrogate(text: str) -> tuple[int, str] | None:
    """(line, escape) of the first surrogate escape of JSON ``text`` that is not half of a pair, or None."""
    paired = -1  # the position of a low surrogate already matched to the high one before it
    for match in _SURROGATE.finditer(text):
        start = match.start()
        before = start
        while before and text[before - 1] == "\\":
            before -= 1
        if (start - before) % 2 or start == paired:  # an escaped backslash ("\\\\ud800" is text), a pair's half
            continue
        follow = _SURROGATE.match(text, match.end())
        if match.group()[3].lower() in "89ab" and follow and follow.group()[3].lower() in "cdef":
            paired = match.end()
            continue
        return text.count("\n", 0, start) + 1, match.group()
    return None


_STREAM = re.compile(r"/(?:dev/(?:stdin|stdout|stderr|fd/\d+)|proc/(?:self|thread-self|\d+)/fd/\d+)")
"""Paths of a process's open streams: replacing the file behind one ("> log.txt") would lose what else it holds."""


def check_output(path: str | Path, inputs: Iterable[str | Path | None] = ()) -> Path:
    """``path`` as an output file: not a directory, not a standard stream, not one of the command's ``inputs``,
    and writable where it will be created. Commands call it before their work, so a wrong ``--out`` fails at once
    instead of after the run. Nothing is created: the missing parent directories are made by :func:`atomic_writer`
    when the output is written."""
    path = Path(path)
    if path.is_dir():
        raise DataError(path, "is a directory, expected a file to write")
    if _STREAM.fullmatch(os.path.abspath(path)):  # "/dev/stdout" redirected to a file is a regular file
        raise DataError(path, "is a standard stream, refusing to replace the file behind it; give a file path")
    if path.exists() and not path.is_file():  # follows links: /dev/stdout is a pipe or a terminal
        raise DataError(path, "is not a regular file (a FIFO, device or socket), refusing to replace it")
    for source in inputs:
        if source is not None and path.exists() and Path(source).exists() and os.path.samefile(path, source):
            raise DataError(path, f"is also an input ({source}), refusing to overwrite it")
    _probe_writable(path, _target(path).parent)
    return path


def _target(path: Path) -> Path:
    """The file written for ``path``: ``path`` itself or, when it is a symbolic link, the file it points to
    (which may not exist yet), so the link survives the atomic replace."""
    if not path.is_symlink():
        return path
    try:
        return path.resolve()
    except (OSError, RuntimeError):  # a loop of links
        raise DataError(path, "cannot write: the symbolic link cannot be resolved (a loop?)") from None


def check_output_dir(path: str | Path) -> Path:
    """``path`` as an output directory (a model's): a directory or not there yet, and writable. Training
    commands call it before they train."""
    path = Path(path)
    if path.exists() and not path.is_dir():
        raise DataError(path, "is a file, expected a directory to write the model into")
    _probe_writable(path, path)
    return path


def _probe_writable(path: Path, where: Path) -> None:
    """Raise :class:`DataError` for ``path`` unless a file can be created in ``where`` or, when it does not
    exist yet, in its nearest existing ancestor (nothing is left behind)."""
    while not where.exists() and where != where.parent:
        where = where.parent
    if not where.is_dir():
        raise DataError(path, f"cannot write: {where} is not a directory")
    try:  # a real probe: os.access says yes to root even on read-only file systems
        with tempfile.TemporaryFile(dir=where):
            pass
    except OSError as err:
        raise DataError(path, f"cannot write: {err.strerror}") from None


@functools.cache
def _umask() -> int:
    """The process umask (read once: reading it means setting it for a moment)."""
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


@contextlib.contextmanager
def atomic_writer(path: str | Path, mode: str = "w") -> Iterator[Any]:
    """Write to a temporary file beside ``path`` and move it into place only on success.

    Nothing half-written is ever left at ``path``: if the body raises, the temporary file is removed. When
    ``path`` is a symbolic link, the file it points to is replaced and the link kept.
    """
    path = check_output(path)
    target = _target(path)
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    except OSError as err:
        raise DataError(path, f"cannot write: {err.strerror}") from None
    try:
        encoding = None if "b" in mode else "utf-8"
        with os.fdopen(fd, mode, encoding=encoding) as handle:
            yield handle
        os.chmod(tmp, 0o666 & ~_umask())  # mkstemp's 0600 would make outputs private
        os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def write_json(path: str | Path, obj: Any) -> None:
    """Write ``obj`` as indented JSON, atomically."""
    with atomic_writer(path) as handle:
        json.dump(obj, handle, indent=2, ensure_ascii=False)
        handle.write("\n")


def fingerprint_files(paths: Iterable[str | Path]) -> str:
    """A short sha256 over the names and bytes of ``paths`` (the training data)."""
    digest = hashlib.sha256()
    for path in sorted(Path(p) for p in paths):
        digest.update(path.name.encode())
        digest.update(read_bytes(path))  # unreadable: a one-line DataError naming the file
    return digest.hexdigest()[:16]


def fingerprint_config(config: Mapping[str, Any]) -> str:
    """A short sha256 of a JSON-serialisable config."""
    return hashlib.sha256(json.dumps(config, sort_keys=True, default=str).encode()).hexdigest()[:12]

"""The one error hierarchy of clarion.

Every user mistake (bad file, unknown id, empty request) raises a :class:`ClarionError`. The CLI turns it
into a single line on stderr and exit code 2; the Python APIs raise it as it is. Never ``assert`` on user
input.
"""

from __future__ import annotations

from pathlib import Path


class ClarionError(Exception):
    """Base class for every error caused by input clarion was given."""


class DataError(ClarionError):
    """A data file is missing, unreadable or malformed.

    The message names the file and, when known, the 1-based line, so ``str(err)`` is a complete one-line
    report: ``dev.tsv:12: expected 9 fields, found 7``.
    """

    def __init__(self, path: str | Path | None, message: str, line: int | None = None):
        self.path = None if path is None else str(path)
        self.line = line
        self.message = message
        where = self.path or "<input>"
        if line is not None:
            where = f"{where}:{line}"
        super().__init__(f"{where}: {message}")


class InputError(ClarionError):
    """A request or parameter given to the API is invalid (empty text, value out of range, ...)."""


class ModelError(ClarionError):
    """A trained model directory is missing, incomplete or incompatible."""


class NetworkError(ClarionError):
    """A download could not be made (no network, host unreachable)."""


def check_unicode(text: str, what: str) -> str:
    """``text`` unchanged, or :class:`InputError` naming ``what`` when it holds a lone surrogate (a string no
    tokenizer or file can take, e.g. half of an emoji cut from a UTF-16 buffer)."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as err:
        escaped = 0xDC80 <= ord(text[err.start]) <= 0xDCFF  # how Python keeps a non-UTF-8 byte of argv or a file name
        byte = f"; the byte {ord(text[err.start]) - 0xDC00:#04x} there is not UTF-8" if escaped else ""
        raise InputError(
            f"{what} is not valid Unicode text (a lone surrogate at character {err.start}{byte})"
        ) from None
    return text

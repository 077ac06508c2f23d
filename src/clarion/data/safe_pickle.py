"""A restricted unpickler for the official ClariQ pickles.

Pickles can run arbitrary code when loaded. The ClariQ evaluation tables and synthetic conversations are
plain containers of strings and numbers, so :func:`load_pickle` admits exactly that (dict, list, tuple, set,
str, bytes, int, float, bool, None) and refuses any other global with a :class:`DataError`.
"""

from __future__ import annotations

import collections
import io
import pickle
from pathlib import Path
from typing import Any

from clarion.errors import DataError

_ALLOWED = {
    ("builtins", "set"): set,
    ("builtins", "frozenset"): frozenset,
    ("collections", "OrderedDict"): collections.OrderedDict,
}


class _RestrictedUnpickler(pickle.Unpickler):
    def find_class(self, module: str, name: str) -> Any:
        try:
            return _ALLOWED[(module, name)]
        except KeyError:
            raise pickle.UnpicklingError(
                f"refused to load {module}.{name}: only plain containers and scalars are allowed"
            ) from None


def loads_restricted(data: bytes) -> Any:
    """Unpickle ``data`` admitting only plain containers and scalars."""
    return _RestrictedUnpickler(io.BytesIO(data)).load()


def load_pickle(path: str | Path) -> Any:
    """Load a pickle file through the restricted unpickler; anything else raises :class:`DataError`."""
    path = Path(path)
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise DataError(path, "no such file") from None
    except OSError as err:
        raise DataError(path, f"cannot read: {err.strerror}") from None
    if not data:
        raise DataError(path, "file is empty")
    try:
        return loads_restricted(data)
    except pickle.UnpicklingError as err:
        raise DataError(path, f"unsafe or invalid pickle: {err}") from None
    except Exception as err:  # a corrupted stream fails in many ways (OverflowError, MemoryError, ...)
        detail = " ".join(str(err).split()) or type(err).__name__
        raise DataError(path, f"invalid pickle: {detail}") from None

"""A small least-recently-used memo that several threads may share (the service calls one model from many)."""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable, Sequence
from typing import Any


class Memo:
    """``get(key, compute)``: the value remembered for ``key``, else ``compute()`` remembered. At most ``size``
    values, the least recently used dropped first. Only for values that are a function of the key alone (the same
    key always computes the same value), so a value computed twice by two threads at once is the same value.

    >>> memo = Memo(2)
    >>> memo.get("a", lambda: 1), memo.get("a", lambda: 2)
    (1, 1)
    """

    def __init__(self, size: int):
        if size < 1:
            raise ValueError(f"a memo holds at least one value, got size {size}")
        self.size = size
        self._values: OrderedDict[Hashable, Any] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: Hashable, compute: Callable[[], Any]) -> Any:
        found, value = self.peek(key)
        if found:
            return value
        value = compute()  # outside the lock: other keys are served meanwhile
        self.put(key, value)
        return value

    def get_many(self, keys: Sequence[Hashable], compute: Callable[[list], Sequence]) -> dict:
        """``{key: value}`` for each distinct key, those not remembered computed together by ``compute(missing)``
        (one value per missing key, in order) and remembered."""
        out, missing = {}, []
        for key in dict.fromkeys(keys):
            found, value = self.peek(key)
            if found:
                out[key] = value
            else:
                missing.append(key)
        if missing:
            for key, value in zip(missing, compute(missing), strict=True):
                self.put(key, value)
                out[key] = value
        return out

    def peek(self, key: Hashable) -> tuple[bool, Any]:
        """``(True, value)`` when ``key`` is remembered (it becomes the most recent), else ``(False, None)``."""
        with self._lock:
            if key in self._values:
                self._values.move_to_end(key)
                return True, self._values[key]
        return False, None

    def put(self, key: Hashable, value: Any) -> None:
        with self._lock:
            self._values[key] = value
            self._values.move_to_end(key)
            while len(self._values) > self.size:
                self._values.popitem(last=False)

    def __len__(self) -> int:
        return len(self._values)

    def clear(self) -> None:
        with self._lock:
            self._values.clear()

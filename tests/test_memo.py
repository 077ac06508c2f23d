"""The shared least-recently-used memo."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import pytest

from clarion.memo import Memo


def test_remembers_up_to_size_and_drops_the_least_recent():
    memo, computed = Memo(2), []

    def value(key):
        computed.append(key)
        return key.upper()

    assert [memo.get(k, lambda k=k: value(k)) for k in ("a", "b", "a", "c", "a", "b")] == list("ABACAB")
    assert computed == ["a", "b", "c", "b"]  # "b" was the least recent when "c" came
    assert len(memo) == 2 and memo.peek("a") == (True, "A") and memo.peek("zz") == (False, None)


def test_threads_share_it():
    memo = Memo(64)
    keys = [i % 100 for i in range(5000)]
    with ThreadPoolExecutor(8) as pool:
        values = list(pool.map(lambda k: memo.get(k, lambda: k * k), keys))
    assert values == [k * k for k in keys] and len(memo) == 64


def test_a_memo_holds_something():
    with pytest.raises(ValueError):
        Memo(0)


def test_get_many_computes_only_the_missing_keys_together():
    memo = Memo(8)
    memo.put("a", 1)
    calls = []

    def compute(keys):
        calls.append(list(keys))
        return [len(k) for k in keys]

    assert memo.get_many(["a", "bb", "ccc", "bb"], compute) == {"a": 1, "bb": 2, "ccc": 3}
    assert calls == [["bb", "ccc"]]
    assert memo.get_many(["ccc"], compute) == {"ccc": 3} and len(calls) == 1

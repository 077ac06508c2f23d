"""encode_distinct: each distinct text encoded once (encode_queries batches by length), rows back in input order."""

from __future__ import annotations

import numpy as np


def test_encode_distinct_encodes_each_text_once_and_keeps_the_order(monkeypatch):
    from clarion.retrieve import dense

    seen: list[list[str]] = []

    def fake(texts, batch_size=64, encoder=None, on_batch=None):
        seen.append(list(texts))
        return np.asarray([[len(t), ord(t[0])] for t in texts], dtype=np.float32)

    monkeypatch.setattr(dense, "encode_queries", fake)
    texts = ["a longer text", "b", "a longer text", "cc", "b"]
    rows = dense.encode_distinct(texts)
    assert seen == [["a longer text", "b", "cc"]]
    assert rows.tolist() == [[len(t), ord(t[0])] for t in texts]
    assert dense.encode_distinct([]).shape[0] == 0

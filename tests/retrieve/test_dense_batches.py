"""Encoding many texts: batched by their number of word pieces, each text's embedding kept in its place."""

from __future__ import annotations

import numpy as np

from clarion.retrieve.dense import _length_order, _tokenized, encode, encode_queries, load_encoder

# Character length and word-piece count disagree: a long common word is one piece, rare words are several.
TEXTS = [
    "Unquestionably understandable.",
    "zxq vbn plk",
    "ok",
    "Hi! Qwzx jjkl mmnop rrst?",
    "The weather is lovely today, shall we walk by the river after lunch?",
    "a b c d e f g",
]


def test_batches_follow_the_number_of_word_pieces_and_cover_every_text_once():
    tokenizer = load_encoder()[0].tokenizer
    batches = [(p, _tokenized(tokenizer, TEXTS, p, 256)) for p in _length_order(tokenizer, TEXTS, 2, 256)]
    positions = [i for p, _ in batches for i in p]
    assert sorted(positions) == list(range(len(TEXTS)))
    pieces = [len(tokenizer(TEXTS[i])["input_ids"]) for i in positions]
    assert pieces == sorted(pieces)
    by_chars = sorted(range(len(TEXTS)), key=lambda i: len(TEXTS[i]))
    assert positions != by_chars  # the hand-made texts order differently by characters
    for p, batch in batches:
        assert batch["input_ids"].shape[1] == max(len(tokenizer(TEXTS[i])["input_ids"]) for i in p)


def test_embeddings_stay_in_the_texts_order_whatever_the_batch():
    whole = encode(TEXTS)
    for size in (1, 2, 64):
        assert np.allclose(encode_queries(TEXTS, batch_size=size), whole, atol=1e-5)
    one = encode_queries([TEXTS[3]])[0]
    assert np.allclose(one, whole[3], atol=1e-5)


def test_many_batches_run_in_lanes_with_the_same_embeddings_and_the_thread_count_restored():
    import torch

    from clarion.retrieve import dense

    texts = [f"{a} {b}" for a in TEXTS for b in TEXTS] * 2  # 72 texts, 36 batches of 2
    whole = encode(texts)
    before = torch.get_num_threads()
    torch.set_num_threads(2)
    try:
        assert dense._lanes(36) == 2 and dense._lanes(dense.LANE_BATCHES - 1) == 1
        counted: list[int] = []
        emb = encode_queries(texts, batch_size=2, on_batch=counted.append)
        assert torch.get_num_threads() == 2
    finally:
        torch.set_num_threads(before)
    assert np.allclose(emb, whole, atol=1e-5)
    assert sum(counted) == len(texts) and len(counted) == 36


def test_a_failing_lane_raises_and_releases_the_lanes(monkeypatch):
    import pytest
    import torch

    from clarion.retrieve import dense

    def broken(tokenizer, texts, positions, max_length):
        raise RuntimeError("tokenizer failed")

    monkeypatch.setattr(dense, "_tokenized", broken)
    before = torch.get_num_threads()
    torch.set_num_threads(2)
    try:
        with pytest.raises(RuntimeError, match="tokenizer failed"):
            encode_queries(TEXTS * 6, batch_size=2)
        assert torch.get_num_threads() == 2 and not dense._LANES.locked()
    finally:
        torch.set_num_threads(before)

"""The encoder's traced forward pass (what ``clarion serve`` runs): the same embeddings as the eager model."""

from __future__ import annotations

import logging

import numpy as np
import pytest

from clarion.retrieve import traced
from clarion.retrieve.dense import encode_queries, load_encoder

# From one word piece to more than the example the graph is traced on, alone and in padded batches.
TEXTS = ["hi", "Tell me about dinosaurs.", "word " * 40 + "end", "a b c d e f g h i j k l m n o p q r s t u v w x y z"]


@pytest.fixture
def tracing():
    traced.trace_encoders(True)
    yield
    traced.trace_encoders(False)


def test_traced_embeddings_are_the_eager_ones(tracing):
    traced.trace_encoders(False)
    eager = encode_queries(TEXTS, batch_size=3)
    traced.trace_encoders(True)
    assert np.allclose(encode_queries(TEXTS, batch_size=3), eager, atol=1e-6)
    assert np.allclose(encode_queries(TEXTS[2:3]), eager[2:3], atol=1e-6)
    assert traced._TRACED.get(load_encoder()[0].auto_model) is not None  # the graph ran, not the eager model


def test_eager_by_default_and_when_turned_off():
    model = load_encoder()[0]
    traced.trace_encoders(False)
    calls = []
    real = model.auto_model.forward
    try:
        model.auto_model.forward = lambda *a, **k: calls.append(1) or real(*a, **k)
        encode_queries(["hello"])
    finally:
        del model.auto_model.forward
    assert calls == [1]


def test_an_encoder_that_cannot_be_traced_runs_eagerly(tracing, monkeypatch):
    import torch

    traced.trace_encoders(False)
    eager = encode_queries(TEXTS)
    traced.trace_encoders(True)
    model = load_encoder()[0].auto_model
    monkeypatch.setattr(traced, "_TRACED", traced.weakref.WeakKeyDictionary())

    def untraceable(*args, **kwargs):
        raise RuntimeError("not traceable")

    monkeypatch.setattr(torch.jit, "trace", untraceable)
    records: list[logging.LogRecord] = []
    handler = logging.Handler()
    handler.emit = records.append
    traced.log.addHandler(handler)
    try:
        assert np.allclose(encode_queries(TEXTS), eager, atol=1e-6)
        encode_queries(TEXTS)  # tried once, not per batch
    finally:
        traced.log.removeHandler(handler)
    assert traced._TRACED[model] is None
    assert sum("could not be traced" in r.getMessage() for r in records) == 1

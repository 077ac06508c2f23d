"""The service's clarifier, loaded without the engine and without a model named, is the engine's choice of ClariQ
models (train+dev when cached, else the benchmark's train-only ones), not a train+dev training."""

from __future__ import annotations


def test_clarify_alone_uses_the_engines_choice_of_models(monkeypatch):
    import clarion.clariq.train as train
    from clarion.clariq.clarifier import Clarifier
    from clarion.data.clariq import ClariQ
    from clarion.serve import services
    from clarion.serve.config import ServeConfig

    asked = {}
    monkeypatch.setattr(ClariQ, "load", classmethod(lambda cls, data_dir=None: "data"))
    monkeypatch.setattr(train, "engine_models", lambda data: train.EngineModels(("train",)))
    monkeypatch.setattr(Clarifier, "load", staticmethod(lambda *a, **k: asked.update(args=a, **k) or "clarifier"))
    assert services._clarifier(ServeConfig(), None, {}) == "clarifier"
    assert asked["splits"] == ("train",) and asked["starter"] is False and asked["args"] == ()

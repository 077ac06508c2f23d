"""The app factory loading its models itself (the lifespan hook), and `clarion serve`'s one-line model errors."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient

from clarion.errors import ModelError
from clarion.serve import ServeConfig, create_app


def test_the_lifespan_loads_the_configured_models(saved, tmp_path):
    model, data = saved
    config = ServeConfig(features=["respond"], dstc_model=model, knowledge=data, db=tmp_path / "eval.sqlite")
    with TestClient(create_app(config)) as client:
        health = client.get("/health").json()
        assert health["features"] == ["respond"] and health["evaluation"] is False  # no conversation engine
        turns = [{"role": "user", "text": "Is the ALPHA LODGE quiet at night?"}]
        assert client.post("/v1/respond", json={"turns": turns}).json()["target"] is True
        assert client.post("/v1/converse", json={"turns": turns}).status_code == 503
        need = client.post("/v1/eval/sessions", json={"kind": "dstc"}).json()["need"]  # scenarios of the knowledge
        assert need["kind"] == "dstc" and need["level"] == "scenario" and "Find out:" in need["text"]


def test_a_model_that_cannot_load_stops_the_start(tmp_path):
    config = ServeConfig(features=["respond"], dstc_model=tmp_path, db=tmp_path / "eval.sqlite")
    with pytest.raises(ModelError), TestClient(create_app(config)):
        pass


def test_serve_says_a_model_error_in_one_line(saved, tmp_path, capsys, monkeypatch):
    from clarion.cli import main

    _, data = saved
    monkeypatch.chdir(tmp_path)
    args = ["serve", "--feature", "respond", "--dstc-model", str(tmp_path), "--knowledge", str(data)]
    with pytest.raises(SystemExit) as exit_:
        main(args)
    lines = capsys.readouterr().err.strip().splitlines()  # "loading the models …", then the error: one line
    assert exit_.value.code == 2 and len(lines) == 2 and lines[0].startswith("loading the models"), lines
    assert lines[1].startswith("error: ") and "meta.json" in lines[1], lines

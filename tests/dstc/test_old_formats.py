"""Models and configurations an older clarion saved are not upgraded: they are refused with one line saying to
retrain, and the default model in the cache is retrained (clarion is 0.x: no upgrade paths)."""

from __future__ import annotations

import json

import pytest
from dstc_synthetic import write_synthetic

from clarion.cli import main
from clarion.dstc.models.modeldir import STATE, load_model, save_model, stale_format
from clarion.dstc.models.pipeline import PipelineConfig
from clarion.errors import InputError, ModelError


def _rewrite_state(directory, change) -> None:
    state = json.loads((directory / STATE).read_text())
    change(state)
    (directory / STATE).write_text(json.dumps(state))


def test_an_old_format_model_is_refused_by_the_cli_with_one_line(tiny_model, tmp_path, capsys):
    data = write_synthetic(tmp_path / "data")
    directory = save_model(tiny_model, tmp_path / "old", "fp")
    _rewrite_state(directory, lambda state: state.update(format_version=2))
    assert stale_format(directory)
    with pytest.raises(SystemExit) as err:
        main(["dstc", "predict", "--data", str(data), "--out", str(tmp_path / "p.json"), "--model", str(directory)])
    assert err.value.code == 2
    assert capsys.readouterr().err == (
        f"error: {directory}: DSTC model format 2, expected 3 (saved by another clarion); delete it and retrain it "
        "(clarion dstc train)\n"
    )


def test_a_format_1_configuration_is_refused():
    with pytest.raises(InputError) as err:
        PipelineConfig.from_json({"ask_entity": True, "detail_penalty": 0.2})  # one field per rule, no "format"
    assert str(err.value) == (
        "PipelineConfig: configuration format 1, expected 2; retrain the model (clarion dstc train)"
    )


@pytest.mark.parametrize("rule", ["downsides", "follow_ups"])
def test_a_saved_configuration_naming_an_unknown_rule_is_refused_with_one_line(tiny_model, tmp_path, rule):
    directory = save_model(tiny_model, tmp_path / "m", "fp")
    _rewrite_state(directory, lambda state: state["config"]["rules"].update({rule: {}}))
    assert not stale_format(directory)  # the format is current; the rule is unknown
    with pytest.raises(ModelError) as err:
        load_model(directory)
    message = str(err.value)
    assert "\n" not in message and f"no rule {rule!r}" in message
    assert message.endswith("; retrain it (clarion dstc train)")


def test_the_default_model_saved_by_an_older_clarion_is_retrained(tmp_path, monkeypatch, capsys):
    from clarion.dstc.assistant import Grounder

    monkeypatch.setenv("CLARION_TINY", "1")
    monkeypatch.setenv("CLARION_CACHE_DIR", str(tmp_path / "cache"))
    write_synthetic(tmp_path / "data" / "dstc11_track5")
    first = Grounder.load(data_dir=tmp_path / "data")
    capsys.readouterr()
    _rewrite_state(first.directory, lambda state: state.update(format_version=2))
    again = Grounder.load(data_dir=tmp_path / "data")
    assert "the default DSTC model was saved by an older clarion: retraining it" in capsys.readouterr().err
    assert again.directory == first.directory and not stale_format(again.directory)
    assert again.respond(["Is the staff friendly at Alpha Lodge?"]).knowledge_seeking
    Grounder.load(data_dir=tmp_path / "data")
    assert capsys.readouterr().err == ""  # current now: loaded as it is

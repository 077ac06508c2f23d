"""`clarion dstc train/predict/evaluate` on a tiny synthetic data directory (tiny settings, no MiniLM)."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from clarion.cli import app, main
from dstc_synthetic import write_synthetic


@pytest.fixture(autouse=True)
def tiny_env(monkeypatch, tmp_path):
    monkeypatch.setenv("CLARION_TINY", "1")
    monkeypatch.setenv("CLARION_CACHE_DIR", str(tmp_path / "cache"))


@pytest.fixture
def data(tmp_path):
    return write_synthetic(tmp_path / "data")


def run(*args: str):
    result = CliRunner().invoke(app, ["dstc", *args])
    assert result.exit_code == 0, result.output
    return result


def fails(capsys, *args: str) -> str:
    with pytest.raises(SystemExit) as err:
        main(["dstc", *args])
    assert err.value.code == 2
    lines = capsys.readouterr().err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ")
    return lines[0]


def test_train_predict_evaluate(data, tmp_path):
    model = tmp_path / "model"
    run("train", "--data", str(data), "--out", str(model))
    meta = json.loads((model / "meta.json").read_text())
    assert meta["config"]["dense"] is False and meta["metrics"]["contexts"] == 24
    pred = tmp_path / "pred.json"
    run("predict", "--data", str(data), "--out", str(pred), "--model", str(model))
    assert len(json.loads(pred.read_text())) == 24
    template = tmp_path / "template.json"
    run("predict", "--data", str(data), "--out", str(template), "--model", str(model), "--generator", "template")
    responses = [p.get("response", "") for p in json.loads(template.read_text())]
    assert any("Guests of" in r for r in responses)  # after the FAQ answer, if one is selected
    result = run("evaluate", "--data", str(data), "--pred", str(pred), "--json", "--no-meteor")
    scores = json.loads(result.stdout)
    assert set(scores) == {"detection", "selection", "generation"}
    assert scores["detection"]["f1"] > 0.9


def test_lm_generator_needs_a_model_trained_with_it(data, tmp_path, capsys):
    model, out = tmp_path / "model", tmp_path / "lm.json"
    run("train", "--data", str(data), "--out", str(model))
    line = fails(capsys, "predict", "--data", str(data), "--out", str(out), "--model", str(model), "--generator", "lm")
    assert "no fine-tuned LM" in line and "--generator lm" in line
    assert not out.exists()
    args = ["predict", "--data", str(data), "--out", str(out), "--model", str(model), "--lm-samples", "-1"]
    result = CliRunner().invoke(app, ["dstc", *args])
    assert result.exit_code == 2 and "--lm-samples" in result.output and not out.exists()


def test_split_flags_use_one_side_of_the_dialogue_split(data, tmp_path):
    model = tmp_path / "model"
    run("train", "--data", str(data), "--split", "train", "--out", str(model))
    metrics = json.loads((model / "meta.json").read_text())["metrics"]
    n_train = metrics["contexts"]
    assert set(metrics["dev"]) == {"detection", "selection", "generation"}
    pred = tmp_path / "dev.json"
    run("predict", "--data", str(data), "--split", "dev", "--out", str(pred), "--model", str(model))
    n_dev = len(json.loads(pred.read_text()))
    assert n_train + n_dev == 24 and n_dev > 0
    result = run("evaluate", "--data", str(data), "--split", "dev", "--pred", str(pred), "--json", "--no-meteor")
    assert "selection" in json.loads(result.stdout)


def test_predict_without_labels_trains_the_default_model(tmp_path):
    root = tmp_path / "root"
    write_synthetic(root / "dstc11_track5")
    unlabelled = write_synthetic(tmp_path / "unlabelled", labels=False)
    pred = tmp_path / "pred.json"
    result = CliRunner().invoke(
        app, ["dstc", "predict", "--data", str(unlabelled), "--out", str(pred), "--data-dir", str(root)]
    )
    assert result.exit_code == 0, result.output
    assert "training it" in result.output
    assert len(json.loads(pred.read_text())) == 24
    assert list((tmp_path / "cache" / "models" / "dstc").iterdir())


def test_the_default_model_learns_every_context_and_dev_is_scored_by_the_train_side_model(tmp_path):
    from clarion.dstc.models.default import held_out_split
    from clarion.dstc.models.pipeline import DataSplit

    root = tmp_path / "root"
    default = write_synthetic(root / "dstc11_track5")
    other = write_synthetic(tmp_path / "other")
    assert held_out_split(default, DataSplit.dev, root) is DataSplit.train
    assert held_out_split(default, DataSplit.all, root) is DataSplit.all
    assert held_out_split(other, DataSplit.dev, root) is DataSplit.all
    assert held_out_split(other, DataSplit.dev, tmp_path / "no data here") is DataSplit.all

    def trained(*args: str) -> dict:
        pred = tmp_path / "pred.json"
        result = CliRunner().invoke(app, ["dstc", "predict", *args, "--out", str(pred), "--data-dir", str(root)])
        assert result.exit_code == 0, result.output
        models = tmp_path / "cache" / "models" / "dstc"
        return {d.name.rsplit("-", 1)[-1]: json.loads((d / "meta.json").read_text()) for d in models.glob("pipeline-*")}

    metas = trained("--data", str(other))
    assert list(metas) == ["all"] and metas["all"]["metrics"]["contexts"] == 24  # every labelled context
    metas = trained("--split", "dev")  # dstc11_track5's own dev side: the model that has not seen it
    assert sorted(metas) == ["all", "train"] and metas["train"]["metrics"]["contexts"] < 24


@pytest.mark.parametrize("name", ["logs.json", "knowledge.json", "labels.json"])
def test_malformed_input_is_one_line_exit_2(data, tmp_path, capsys, name):
    (data / name).write_text("[{" if name != "knowledge.json" else '{"hotel": {"0": {"name": 3}}}')
    line = fails(capsys, "train", "--data", str(data), "--out", str(tmp_path / "m"))
    assert line.startswith("error: ") and name in line
    assert not (tmp_path / "m" / "meta.json").exists()


def test_bad_prediction_and_missing_model(data, tmp_path, capsys):
    pred = tmp_path / "pred.json"
    pred.write_text(json.dumps([{"target": False}]))
    assert "pred.json" in fails(capsys, "evaluate", "--data", str(data), "--pred", str(pred), "--no-meteor")
    out = tmp_path / "out.json"
    assert "nope: no such model directory" in fails(
        capsys, "predict", "--data", str(data), "--out", str(out), "--model", str(tmp_path / "nope")
    )
    (tmp_path / "empty").mkdir()
    assert "no meta.json" in fails(
        capsys, "predict", "--data", str(data), "--out", str(out), "--model", str(tmp_path / "empty")
    )
    assert not out.exists()


def test_bad_outputs_fail_before_the_work_and_keep_what_exists(data, tmp_path, capsys):
    taken = tmp_path / "taken.txt"
    taken.write_text("keep me")
    assert "is a file, expected a directory" in fails(capsys, "train", "--data", str(data), "--out", str(taken))
    assert taken.read_text() == "keep me" and not (tmp_path / "cache").exists()  # nothing trained
    (data / "logs.json").write_text("[]")
    out = tmp_path / "new" / "sub" / "pred.json"
    assert "logs.json: no contexts" in fails(capsys, "predict", "--data", str(data), "--out", str(out))
    assert not (tmp_path / "new").exists()  # no empty directories left behind


def test_respond_answers_one_dialogue(data, tmp_path, capsys):
    model = tmp_path / "model"
    run("train", "--data", str(data), "--out", str(model))
    opening = ["I want a hotel number 1 for clean.", "Alpha Lodge is a good choice."]
    args = ["respond", "--model", str(model), "--knowledge", str(data), "--json"]
    seeking = json.loads(run(*args, *opening, "Are the bathrooms clean?").stdout)
    assert seeking["target"] is True and seeking["response"]
    assert seeking["knowledge"][0]["entity_name"] == "ALPHA LODGE" and seeking["knowledge"][0]["text"]
    booking = json.loads(run(*args, *opening, "Please book it for 3 people.").stdout)
    assert booking == {"target": False, "knowledge": [], "response": None}
    human = run("respond", "--model", str(model), "--knowledge", str(data / "knowledge.json"), *opening, "Is it clean?")
    assert "response: " in human.stdout and "1. [ALPHA LODGE]" in human.stdout
    line = fails(capsys, "respond", "--model", str(model), "--knowledge", str(data), "Hello.", "")
    assert "turn 1: text must be a non-empty string" in line


def test_respond_and_predict_take_prediction_time_settings(data, tmp_path, capsys):
    model = tmp_path / "model"
    run("train", "--data", str(data), "--out", str(model))
    opening = ["I want a hotel number 1 for clean.", "Alpha Lodge is a good choice."]
    args = ["respond", "--model", str(model), "--knowledge", str(data), "--json"]
    dialogue = [*opening, "Are the bathrooms clean?"]
    plain = json.loads(run(*args, *dialogue).stdout)
    off = json.loads(run(*args, "--set", "rules.comparisons=null", "--set", "rules.faq_cover=false", *dialogue).stdout)
    assert off["target"] is True and off["knowledge"] == plain["knowledge"]  # response rules: the selection stays
    line = fails(capsys, *args, "--set", "rules.downsides=null", *dialogue)  # no such rule, on or off
    assert line == (
        "error: --set: no rule 'downsides'; rules: ask_entity, known_sets, entity_follow_up, comparisons, faq_cover, "
        "relevance_gate"
    )
    pred, again = tmp_path / "pred.json", tmp_path / "again.json"
    run("predict", "--data", str(data), "--out", str(pred), "--model", str(model))
    run("predict", "--data", str(data), "--out", str(again), "--model", str(model), "--set", "rules.ask_entity=true")
    assert json.loads(again.read_text()) == json.loads(pred.read_text())  # on already: nothing changes
    line = fails(capsys, "respond", "--model", str(tmp_path / "none"), "--set", "dense=false", "Is it clean?")
    assert "--set: dense is fixed when the model is trained" in line  # before the model loads
    line = fails(capsys, "predict", "--data", str(data), "--out", str(pred), "--set", "ask_entity=yes")
    assert "the value is not JSON" in line
    line = fails(capsys, "respond", "--model", str(model), "--set", "follow_ups=true", *dialogue)
    assert line == "error: --set: PipelineConfig has no field 'follow_ups'"


def test_a_command_failing_before_its_work_prints_its_error_line_alone(tmp_path, capsys):
    with pytest.raises(SystemExit):
        main(["dstc", "respond", "--model", str(tmp_path / "no-model"), "--knowledge", str(tmp_path / "no"), "Hi."])
    err = capsys.readouterr().err
    assert err.startswith("error: ") and err.count("\n") == 1  # no empty progress display before it
    with pytest.raises(SystemExit):  # a bad dialogue is refused before the model and the knowledge load
        main(["dstc", "respond", "--model", str(tmp_path / "no-model"), "Hi.", "Hello!", "..."])
    assert capsys.readouterr().err == "error: turn 2: the user's turn has no letter or digit to answer\n"


def test_respond_answers_dialogues_read_from_stdin_one_json_line_each(data, tmp_path):
    model = tmp_path / "model"
    run("train", "--data", str(data), "--out", str(model))
    opening = ["I want a hotel number 1 for clean.", "Alpha Lodge is a good choice."]
    args = ["dstc", "respond", "--model", str(model), "--knowledge", str(data)]
    seeking = json.loads(run(*args[1:], "--json", *opening, "Are the bathrooms clean?").stdout)
    lines = [
        json.dumps([*opening, "Are the bathrooms clean?"]),
        json.dumps([*opening, "Please book it for 3 people."]),
        "not json",
        '{"turns": []}',
        json.dumps([{"speaker": "S", "text": t} for t in opening]),
        json.dumps(
            [
                {"speaker": "U", "text": opening[0]},
                {"speaker": "S", "text": opening[1]},
                {"speaker": "U", "text": "Are the bathrooms clean?"},
            ]
        ),
    ]
    result = CliRunner().invoke(app, [*args, "--json", "-"], input="\n".join(lines) + "\n")
    assert result.exit_code == 2  # some lines failed; every line was answered
    answers = [json.loads(line) for line in result.stdout.splitlines()]
    assert [a["line"] for a in answers] == [1, 2, 3, 4, 5, 6]
    assert answers[0] == {"line": 1, **seeking} == {**answers[5], "line": 1}  # as one dialogue on the command line
    assert answers[1] == {"line": 2, "target": False, "knowledge": [], "response": None}
    assert answers[2]["error"].startswith("not JSON (Expecting value at character 0)")
    assert answers[3]["error"] == "expected a JSON array of turns, got a JSON dict"
    assert answers[4]["error"] == "the last turn must be the user's"
    assert result.stderr.splitlines() == [f"error: <stdin>:{a['line']}: {a['error']}" for a in answers[2:5]]
    human = CliRunner().invoke(app, [*args, "-"], input=lines[0] + "\n")
    assert human.exit_code == 0 and "> Are the bathrooms clean?\n1. [ALPHA LODGE]" in human.stdout


def test_train_takes_settings_and_refuses_a_bad_one_before_training(data, tmp_path, capsys):
    model = tmp_path / "model"
    settings = ["--set", "select.n_estimators=7", "--set", "rules.ask_entity=null"]
    run("train", "--data", str(data), "--out", str(model), *settings)
    config = json.loads((model / "meta.json").read_text())["config"]
    assert config["select"]["n_estimators"] == 7 and "ask_entity" not in config["rules"]
    assert config["select"]["calibration_folds"] == 2  # the other fields as the default (tiny here) has them
    other = tmp_path / "other"
    for setting, words in (
        ("select.trees=5", "PipelineConfig.select has no field 'trees'"),
        ("select.n_estimators=0", "SelectConfig.n_estimators"),
        ("rules.faq_cover", "expected FIELD=VALUE"),
        ("rules.abstain.below=0.2", "no rule 'abstain'; rules: ask_entity,"),
    ):
        line = fails(capsys, "train", "--data", str(data), "--out", str(other), "--set", setting)
        assert line.startswith("error: --set") and words in line, line
    assert not other.exists()

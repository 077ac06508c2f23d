"""The question ranker's save/load round trip, its refusals of damaged or stale models, and the input checks of
its configuration and of the Clarifier API (on the tiny ranker of tests/clariq/conftest.py)."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from clarion.bounds import MAX_TURN_CHARS
from clarion.clariq.clarifier import Clarifier
from clarion.clariq.ranker import QuestionRanker
from clarion.clariq.ranker_config import RankerConfig
from clarion.clariq.ranker_context import Context
from clarion.clariq.ranker_io import ENCODER_DIR
from clarion.data.clariq_constants import NO_QUESTION, validate_request
from clarion.errors import InputError, ModelError
from clarion.retrieve.dense import MODEL_NAME, encoder_id, load_encoder
from clarion.retrieve.finetune import FinetuneConfig, finetune, finetuned_id


def test_save_load_round_trip(tiny_ranker):
    ranker, directory, data = tiny_ranker
    loaded = QuestionRanker.load(directory)
    requests = [t.request for t in data.topics("dev")[:4]]
    assert loaded.rank(requests) == ranker.rank(requests)
    assert loaded.no_question_at == ranker.no_question_at
    assert loaded.context.encoder is None and not (directory / ENCODER_DIR).exists()


def test_a_finetuned_encoder_travels_with_the_model(tiny_ranker, tmp_path):
    import shutil

    ranker, _, _ = tiny_ranker
    pairs = [("t1", "tell me about iron", "do you mean the metal"), ("t2", "dinosaurs", "which dinosaur")]
    config = FinetuneConfig(epochs=1, batch_size=2)
    tuned = finetune(pairs, tmp_path / "tuned", config)
    context = replace(ranker.context, encoder=str(tuned))
    directory = QuestionRanker(ranker.config, context, ranker.models, ranker.no_question_at).save(tmp_path / "m")
    loaded = QuestionRanker.load(directory)
    assert loaded.context.encoder == str(directory / ENCODER_DIR)
    assert encoder_id(loaded.context.encoder) == finetuned_id(pairs, config) != MODEL_NAME
    shutil.rmtree(tuned)  # the model directory holds its own copy
    loaded.save(directory)  # saving in place keeps it
    assert encoder_id(QuestionRanker.load(directory).context.encoder) == finetuned_id(pairs, config)
    shutil.rmtree(directory / ENCODER_DIR)
    with pytest.raises(ModelError, match="fine-tuned encoder"):
        QuestionRanker.load(directory)


def test_a_composite_encoder_travels_with_the_model(tiny_ranker, tmp_path):
    """Packaged members are saved by name, a fine-tuned member is copied; the loaded ranker ranks alike."""
    ranker, _, data = tiny_ranker
    pairs = [("t1", "tell me about iron", "do you mean the metal"), ("t2", "dinosaurs", "which dinosaur")]
    config = FinetuneConfig(epochs=1, batch_size=2)
    tuned = finetune(pairs, tmp_path / "tuned", config)
    composite = (MODEL_NAME, str(tuned))
    context = replace(ranker.context, encoder=composite)
    trained = QuestionRanker(ranker.config, context, ranker.models, ranker.no_question_at)
    directory = trained.save(tmp_path / "m")
    loaded = QuestionRanker.load(directory)
    assert loaded.context.encoder == (MODEL_NAME, str(directory / ENCODER_DIR))
    assert encoder_id(loaded.context.encoder) == f"{MODEL_NAME}+{finetuned_id(pairs, config)}"
    requests = [t.request for t in data.topics("dev")[:3]]
    assert loaded.rank(requests) == trained.rank(requests)


def test_unknown_packaged_encoders_are_refused():
    with pytest.raises(InputError, match="unknown packaged encoder"):
        RankerConfig(encoders=("bert-large",))
    assert RankerConfig(encoders=["all-mpnet-base-v2"]).encoders == ("all-mpnet-base-v2",)  # as read from JSON


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [
        ("shortlist", -1, r"shortlist must be int in \[1, inf\), got -1"),
        ("folds", 1, r"folds must be int in \[2, inf\), got 1"),
        ("stages", 0, r"stages must be int in \[1, inf\), got 0"),
        ("bag", 2.5, r"bag must be int in \[1, inf\), got 2.5"),
        ("chunk", 64.0, r"chunk must be int in \[1, inf\), got 64.0"),
        ("rounds", True, r"rounds must be int in \[1, inf\), got True"),
        ("lambdamart_seed", "13", r"lambdamart_seed must be int in \[0, inf\) or None, got \'13\'"),
        ("temperature", 0.0, r"temperature must be float in \(0, inf\), got 0.0"),
        ("learning_rate", float("nan"), r"learning_rate must be float in \(0, inf\), got nan"),
        ("finetune_epochs", -0.5, r"finetune_epochs must be float in \[0, inf\), got -0.5"),
        ("finetune_lr", float("inf"), r"finetune_lr must be float in \(0, inf\), got inf"),
    ],
)
def test_bad_config_values_are_refused_naming_the_field(field, value, message):
    with pytest.raises(InputError, match=f"RankerConfig.{message}"):
        RankerConfig(**{field: value})


def test_edge_config_values_are_accepted():
    config = RankerConfig(finetune_epochs=0, generic_owners=0, folds=2, lambdamart_seed=None, finetune_seed=0)
    assert config.finetune_epochs == 0 and config.generic_owners == 0


def test_damaged_model_files_are_model_errors(tiny_ranker, tmp_path):
    import json
    import shutil

    _, directory, _ = tiny_ranker
    copy = shutil.copytree(directory, tmp_path / "m")
    model_text = (copy / "lambdamart1.txt").read_text()
    (copy / "lambdamart1.txt").write_text(model_text[: len(model_text) // 3])
    with pytest.raises(ModelError, match="lambdamart1.txt: not a complete LightGBM model"):
        QuestionRanker.load(copy)
    (copy / "lambdamart1.txt").unlink()
    with pytest.raises(ModelError, match="lambdamart1.txt: no such file; retrain it"):
        QuestionRanker.load(copy)
    (copy / "lambdamart1.txt").write_text(model_text)
    state = json.loads((copy / "ranker.json").read_text())
    del state["context"]["pool_texts"]
    (copy / "ranker.json").write_text(json.dumps(state))
    with pytest.raises(ModelError, match="damaged ranker state"):
        QuestionRanker.load(copy)


def test_a_damaged_encoder_is_a_model_error(tmp_path):
    (tmp_path / "config.json").write_text("{")
    (tmp_path / "model.safetensors").write_bytes(b"not weights")
    with pytest.raises(ModelError, match="cannot load the sentence encoder"):
        load_encoder(tmp_path)


def test_load_rejects_missing_model(tmp_path):
    with pytest.raises(ModelError, match="not a trained question ranker"):
        QuestionRanker.load(tmp_path)
    with pytest.raises(ModelError, match="train it first"):
        Clarifier.load(tmp_path)
    with pytest.raises(InputError, match="model_dir must be a path"):
        Clarifier.load(5)
    with pytest.raises(InputError, match="progress must be a callable progress"):
        Clarifier.load(tmp_path, progress=5)


@pytest.mark.parametrize("bad", ["", "   \n", "x" * (MAX_TURN_CHARS + 1), None, 42, "obama \ud800"])
def test_bad_requests_are_rejected(bad):
    with pytest.raises(InputError):
        validate_request(bad)


def test_a_request_of_thousands_of_characters_is_ranked(tiny_ranker):
    ranker, directory, _ = tiny_ranker
    request = ("I am planning a trip and would like to know about dinosaur museums near me. " * 45).strip()
    assert 3_000 < len(request) <= MAX_TURN_CHARS
    ranked = Clarifier(directory, ranker).rank(request, k=5)
    assert len(ranked) == 5 and all(c.text is not None for c in ranked)


def test_clarifier_rejects_bad_input(tiny_ranker):
    ranker, directory, _ = tiny_ranker
    bot = Clarifier(directory, ranker)
    with pytest.raises(InputError, match="empty"):
        bot.rank("  ")
    with pytest.raises(InputError, match="request: 8,001 characters, more than the 8,000 accepted"):
        bot.rank("a" * (MAX_TURN_CHARS + 1))
    with pytest.raises(InputError, match="k must be"):
        bot.rank("obama family tree", k=0)
    with pytest.raises(InputError, match="threshold"):
        bot.should_clarify("obama family tree", threshold=0)
    with pytest.raises(ModelError, match="need"):
        bot.need("obama family tree")
    with pytest.raises(InputError, match="requests must be a list of strings"):
        ranker.rank("kids", k=2)  # not four one-letter requests
    with pytest.raises(InputError, match="no requests given"):
        ranker.rank([], k=2)
    for k in (2.5, "3", None):
        with pytest.raises(InputError, match="k must be an integer"):
            ranker.rank(["kids"], k=k)
    candidates = bot.rank("Tell me about Obama family tree.", k=5)
    assert [c.id for c in candidates] == [q for q, _ in ranker.rank(["Tell me about Obama family tree."], 5)[0]]
    assert all(c.text for c in candidates if c.id != NO_QUESTION)
    assert bot.rank("Tell me about Obama family tree.", k=np.int64(5)) == candidates  # numpy's integers are integers
    with pytest.raises(InputError, match="threshold"):
        bot.should_clarify("obama family tree", threshold=np.float32("nan"))


def test_context_round_trip_types(tiny_ranker):
    """JSON turns the owned-question map's int keys into strings; loading must turn them back."""
    ranker, directory, _ = tiny_ranker
    loaded = QuestionRanker.load(directory).context
    assert loaded.owned == ranker.context.owned and all(type(k) is int for k in loaded.owned)
    assert len(loaded.owned) == 30 and (loaded.bank_ids, loaded.pool_texts) == (
        ranker.context.bank_ids,
        ranker.context.pool_texts,
    )
    assert Context(["Q1"], ["q"], ["r"], {0: ["Q1"]}).owned == {0: ["Q1"]}


def test_load_rejects_stale_competition_features(tiny_ranker, tmp_path):
    import json
    import shutil

    _, directory, _ = tiny_ranker
    copy = shutil.copytree(directory, tmp_path / "stale")
    state = json.loads((copy / "ranker.json").read_text())
    state["competition_features"] = state["competition_features"][:-2]
    (copy / "ranker.json").write_text(json.dumps(state))
    with pytest.raises(ModelError, match="other features"):
        QuestionRanker.load(copy)


@pytest.mark.parametrize(
    "change, message",
    [
        (lambda s: s["config"].update(competition=True), "another RankerConfig"),
        (lambda s: s["config"].pop("shortlist"), "another RankerConfig"),
        (lambda s: s.pop("no_question_at"), "not a ranker state written by this version"),
    ],
)
def test_load_rejects_a_state_of_another_version(tiny_ranker, tmp_path, change, message):
    import json
    import shutil

    _, directory, _ = tiny_ranker
    copy = shutil.copytree(directory, tmp_path / "other")
    state = json.loads((copy / "ranker.json").read_text())
    change(state)
    (copy / "ranker.json").write_text(json.dumps(state))
    with pytest.raises(ModelError, match=message):
        QuestionRanker.load(copy)


def test_load_reports_training_the_default_model_to_progress(monkeypatch, tmp_path):
    """Clarifier.load's progress gets the training's description and step count, and train_models its advance."""
    import clarion.clariq.train as train
    from clarion.data.clariq import ClariQ

    calls, advanced = [], []

    def progress(description, total):
        calls.append((description, total))
        return advanced.append

    def fake_train(data, splits, directory, progress=None, need_progress=None, starter=False):
        assert need_progress is progress_bars  # the need model's training reports to the same callback
        progress(1)
        raise RuntimeError("stop here")  # the wiring is what is tested, not the training

    monkeypatch.setattr(ClariQ, "load", classmethod(lambda cls, data_dir=None: None))
    monkeypatch.setattr(train, "default_model_dir", lambda data, splits, starter=False: tmp_path / "absent")
    monkeypatch.setattr(train, "ready_to_train", lambda data, splits: None)
    monkeypatch.setattr(train, "train_models", fake_train)
    progress_bars = progress
    with pytest.raises(RuntimeError, match="stop here"):
        Clarifier.load(progress=progress)
    assert calls == [("training the ClariQ model", train.ranker_steps())] and advanced == [1]

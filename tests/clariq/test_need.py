"""The clarification-need model's contract: labels 1-4 for every topic, determinism, probabilities that sum
to 1, a save/load round trip and clear errors for bad input.

One model (tiny CV settings, the same classifier) is trained per session on 80 train topics (the bank and
the request pool stay whole); it is about the contract, not about quality (see test_need_training.py and
benchmarks/clariq_need_cv.py for that).
"""

from __future__ import annotations

from dataclasses import asdict

import numpy as np
import pytest

from clarion.bounds import MAX_TURN_CHARS
from clarion.clariq import need as need_module
from clarion.clariq.methods import DEFAULT_NEED_METHOD, need_method
from clarion.clariq.need import NeedConfig, NeedModel, check_splits, need_model
from clarion.data.clariq_constants import validate_requests
from clarion.errors import InputError, ModelError


@pytest.fixture(scope="session")
def data(train_subset):
    return train_subset(80)


@pytest.fixture(scope="session")
def model(data):
    return NeedModel.train(data, ("train",), tiny=True)


@pytest.fixture(scope="session")
def dev_requests(data):
    return list(data.labels("dev").requests.values())


def test_the_model_is_the_default_need_method():
    assert DEFAULT_NEED_METHOD == "model"
    assert need_method("model") is need_model


def test_every_topic_gets_a_label_in_1_to_4(model, data, monkeypatch):
    monkeypatch.setattr(need_module, "load_or_train", lambda *a, **k: model)
    topics = data.topics("dev") + data.topics("test")
    labels = need_model(topics, data, ("train",))
    assert set(labels) == {t.id for t in topics}
    assert set(labels.values()) <= {1, 2, 3, 4}
    assert len(set(labels.values())) >= 2  # not a constant predictor


def test_no_topics_give_no_labels(data):
    assert need_model([], data, ("train",)) == {}


def test_probabilities_sum_to_one(model, dev_requests):
    P = model.predict_proba(dev_requests)
    assert P.shape == (len(dev_requests), 4)
    assert np.all(P >= 0)
    np.testing.assert_allclose(P.sum(axis=1), 1.0, atol=1e-9)


def test_predictions_are_deterministic_and_batch_independent(model, dev_requests):
    first = model.predict(dev_requests)
    assert model.predict(dev_requests) == first
    alone = [model.predict([r])[0] for r in dev_requests[:5]]
    assert alone == first[:5]
    # batch padding changes MiniLM embeddings in the last float bits only
    np.testing.assert_allclose(model.predict_proba(dev_requests[:3]), model.predict_proba(dev_requests)[:3], atol=1e-4)


def test_retraining_gives_the_same_model_and_shows_its_progress(model, data, dev_requests):
    steps = []

    def progress(description, total):
        steps.append([description, total, 0])
        return lambda n=1: steps[-1].__setitem__(2, steps[-1][2] + n)

    again = NeedModel.train(data, ("train",), tiny=True, progress=progress)
    assert steps == [["training the clarification-need model", 3, 3]]
    np.testing.assert_allclose(again.predict_proba(dev_requests), model.predict_proba(dev_requests))
    assert again.metrics == model.metrics


def test_save_load_round_trip(model, dev_requests, tmp_path):
    directory = model.save(tmp_path / "need")
    loaded = NeedModel.load(directory)
    np.testing.assert_allclose(loaded.predict_proba(dev_requests), model.predict_proba(dev_requests))
    assert loaded.predict(dev_requests) == model.predict(dev_requests)
    assert loaded.metrics["cv"]["folds"] == 3
    assert loaded.fingerprint == model.fingerprint != ""


def test_neither_a_final_period_nor_case_changes_the_prediction(model, dev_requests):
    typed = [r.rstrip(" .") for r in dev_requests if r.rstrip().endswith(".")]
    assert typed  # some dev requests end in a period
    expected = model.predict_proba(typed)
    np.testing.assert_allclose(model.predict_proba([f"{r}." for r in typed]), expected, atol=1e-6)
    np.testing.assert_allclose(model.predict_proba([r.lower() for r in typed]), expected, atol=1e-6)
    np.testing.assert_allclose(model.predict_proba([r.upper() for r in typed]), expected, atol=1e-6)
    read = NeedConfig().read(["Tell me about Iron. ", "What is it?", "..."])
    assert read == ["tell me about iron", "what is it?", "..."]
    as_typed = NeedConfig(drop_final_period=False, lower_case=False)
    assert as_typed.read(["Tell me about Iron."]) == ["Tell me about Iron."]


def test_a_model_saved_before_the_readings_reads_requests_as_typed(model, tmp_path):
    import json

    directory = model.save(tmp_path / "need")
    meta = json.loads((directory / "meta.json").read_text())
    del meta["config"]["drop_final_period"], meta["config"]["lower_case"]
    (directory / "meta.json").write_text(json.dumps(meta))
    config = NeedModel.load(directory).config
    assert config.drop_final_period is False and config.lower_case is False
    assert model.config.drop_final_period is True and model.config.lower_case is True


def test_loading_an_incomplete_directory_is_a_model_error(tmp_path):
    with pytest.raises(ModelError, match="train it first"):
        NeedModel.load(tmp_path)


def test_a_truncated_classifier_file_is_a_model_error(model, tmp_path):
    directory = model.save(tmp_path / "need")
    arrays = directory / "classifier.npz"
    arrays.write_bytes(arrays.read_bytes()[:100])
    with pytest.raises(ModelError, match="not a clarification-need model"):
        NeedModel.load(directory)


def test_a_model_whose_config_was_damaged_is_a_model_error(model, tmp_path):
    import json

    directory = model.save(tmp_path / "need")
    meta = json.loads((directory / "meta.json").read_text())
    meta["config"]["cv_splits"] = 0
    (directory / "meta.json").write_text(json.dumps(meta))
    with pytest.raises(ModelError, match=r"not a clarification-need model \(NeedConfig.cv_splits must be int in"):
        NeedModel.load(directory)


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [
        ("C", 0, r"C must be float in \(0, inf\), got 0"),
        ("C", float("nan"), r"C must be float in \(0, inf\), got nan"),
        ("cv_splits", 1, r"cv_splits must be int in \[2, inf\), got 1"),
        ("cv_repeats", 2.0, r"cv_repeats must be int in \[1, inf\), got 2.0"),
        ("temperature", -0.05, r"temperature must be float in \(0, inf\), got -0.05"),
        ("tune_decision", 1, "tune_decision must be True or False, got 1"),
        ("drop_final_period", "yes", "drop_final_period must be True or False, got 'yes'"),
        ("lower_case", 0, "lower_case must be True or False, got 0"),
        ("seed", None, r"seed must be int in \[0, inf\), got None"),
        ("classifier", "svm", "classifier must be one of logreg, ordinal, lgbm, blend, views, got 'svm'"),
        ("groups", ("form", "colour"), "unknown feature group 'colour'"),
        ("groups", (), "at least one feature group"),
    ],
)
def test_bad_config_values_are_refused_naming_the_field(field, value, message):
    with pytest.raises(InputError, match=message):
        NeedConfig(**{field: value})


def test_a_config_read_back_from_json_equals_the_original():
    assert NeedConfig(**{**asdict(NeedConfig()), "groups": list(NeedConfig().groups)}) == NeedConfig()


@pytest.mark.parametrize(
    "requests, message",
    [
        ([], "no requests"),
        ([""], r"requests\[0\]: request is empty"),
        (["fine", "   "], r"requests\[1\]: request is empty"),
        ("tell me about iron", "list of strings"),
        ([3], r"requests\[0\]: request must be a string"),
        (["x" * (MAX_TURN_CHARS + 1)], "more than the"),
        (["fine", "?!?"], r"requests\[1\]: request '\?!\?' has no letter or digit"),
        (["\u200b\u200b"], "has no letter or digit"),
    ],
)
def test_bad_requests_are_rejected(requests, message):
    with pytest.raises(InputError, match=message):
        validate_requests(requests)


def test_bad_requests_are_rejected_by_the_model(model):
    with pytest.raises(InputError):
        model.predict([])
    with pytest.raises(InputError):
        model.predict_proba([""])


def test_unknown_splits_are_rejected():
    with pytest.raises(InputError, match="unknown split"):
        check_splits(["train", "validation"])
    with pytest.raises(InputError, match="at least one"):
        check_splits([])


def test_splits_come_in_one_order_so_one_model_serves_both_spellings():
    assert check_splits(["dev", "train"]) == check_splits(["train", "dev", "train"]) == ("train", "dev")
    assert check_splits([" test", "train "]) == ("train", "test")


def test_a_model_saved_before_classifier_headers_is_refused_with_one_line(model, tmp_path):
    import json

    directory = model.save(tmp_path / "need")
    state = json.loads((directory / "need.json").read_text())
    assert state.pop("classifier")["kind"] == model.config.classifier
    (directory / "need.json").write_text(json.dumps(state))
    with pytest.raises(ModelError) as err:
        NeedModel.load(directory)
    assert str(err.value) == (
        f"{directory}: saved by an older clarion (no classifier header); retrain it (clarion clariq train)"
    )

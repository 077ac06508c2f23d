"""SmolLM2's turn states (the detector's second view of a turn) and the detector that reads them."""

from __future__ import annotations

import numpy as np
import pytest

from clarion.errors import ModelError


TURNS = ["Is the hotel quiet at night?", "Book it for two people please.", "Do guests like the breakfast there?"]


def test_turn_states_are_the_mean_of_the_layers_hidden_states(smollm2):
    """The truncated model's output is layer ``layer`` of the whole model, averaged over the turn's tokens, and a
    turn's state does not depend on the batch around it (right padding, causal attention)."""
    import torch

    from clarion.retrieve.smollm import TURN_PREFIX, base_model, encode_states

    states = encode_states(TURNS, layer=4)
    assert states.shape == (3, 576) and states.dtype == np.float32
    tokenizer, model = base_model()
    with torch.inference_mode():
        for text, row in zip(TURNS, states, strict=True):
            batch = tokenizer([TURN_PREFIX + text], return_tensors="pt")
            hidden = model.model(**batch, output_hidden_states=True).hidden_states[4][0]
            assert np.allclose(hidden.mean(0).numpy(), row, atol=1e-4)
    alone = encode_states(TURNS[:1], layer=4)
    assert np.allclose(alone[0], states[0], atol=1e-4)


def test_turn_states_are_cached_by_layer_and_texts(smollm2, tmp_path, monkeypatch):
    from clarion.retrieve import smollm

    monkeypatch.setenv("CLARION_CACHE_DIR", str(tmp_path))
    first = smollm.turn_states(TURNS, layer=4, cached=True)
    assert len(list((tmp_path / "embeddings").glob("smollm2-l4-*.npy"))) == 1
    monkeypatch.setattr(smollm, "encode_states", lambda *a, **k: pytest.fail("computed again"))
    assert np.array_equal(smollm.turn_states(TURNS, layer=4, cached=True), first)
    assert smollm.turn_states([], layer=4).shape == (0, 576)


@pytest.mark.parametrize("layer", [0, 31, True, "26"])
def test_a_layer_smollm2_does_not_have_is_refused(layer):
    from clarion.retrieve.smollm import check_layer

    with pytest.raises(ModelError, match="SmolLM2 has layers 1 to 30"):
        check_layer(layer)


def test_the_detector_reads_the_states_and_keeps_their_statistics(smollm2):
    """Fitted with ``lm_layer``, the detector standardises the states with the training turns' statistics, saves
    them and both classifiers, and a copy loaded from its state scores turns as it does; states given are used as
    they are."""
    from clarion.detect.knowledge import DetectConfig, Detector
    from clarion.retrieve.smollm import turn_states

    detector = Detector(DetectConfig(use_embeddings=False, lm_layer=4, lm_margin=0.0))
    detector.fit(TEXTS, TARGETS)
    arrays: dict[str, np.ndarray] = {}
    state = detector.state(arrays)
    assert np.allclose(arrays["detect_lm_mean"], turn_states(TEXTS, 4).mean(axis=0), atol=1e-4)
    again = Detector.from_state(state, arrays)
    assert np.allclose(again.predict_proba(NEW), detector.predict_proba(NEW))
    assert np.allclose(detector.predict_proba(NEW, states=turn_states(NEW, 4)), detector.predict_proba(NEW))
    del arrays["detect_lm_std"]
    with pytest.raises(ModelError, match="detect_lm_std"):
        Detector.from_state(state, arrays)


TEXTS = ["is it quiet?", "book it please", "are rooms clean?", "for 2 people", "is the staff nice?", "at 7 pm"]
TARGETS = [1, 0, 1, 0, 1, 0]
NEW = ["do guests like the food?", "a table for four", "what time?"]


def test_smollm2_reads_only_the_turns_the_plain_classifier_is_unsure_of(smollm2, monkeypatch):
    """``lm_margin``: a turn the classifier without the states scores within the margin of 0 or 1 keeps that score
    (and SmolLM2 never reads it); the others get the score with the states."""
    from clarion.detect.knowledge import DetectConfig, Detector, _mean_positive
    from clarion.retrieve import smollm

    detector = Detector(DetectConfig(use_embeddings=False, lm_layer=4, lm_margin=0.0))
    detector.fit(TEXTS, TARGETS)
    plain = _mean_positive(detector._plain, detector._features(NEW, None))
    full = detector.predict_proba(NEW)
    assert not np.allclose(plain, full)
    detector.config.lm_margin = float(np.sort(np.minimum(plain, 1 - plain))[1])  # the two surest turns' margin
    read, real = [], smollm.encode_states
    monkeypatch.setattr(smollm, "encode_states", lambda texts, layer: read.append(list(texts)) or real(texts, layer))
    mixed = detector.predict_proba(NEW)
    sure = np.minimum(plain, 1 - plain) <= detector.config.lm_margin
    assert np.allclose(mixed[sure], plain[sure]) and np.allclose(mixed[~sure], full[~sure])
    assert read == [[t for t, s in zip(NEW, sure, strict=True) if not s]]
    detector.config.lm_margin = 0.5  # every turn is sure
    assert np.allclose(detector.predict_proba(NEW), plain) and len(read) == 1


def test_a_detector_saved_before_lm_layer_loads_without_it():
    from clarion.detect.knowledge import DetectConfig, Detector

    detector = Detector(DetectConfig(use_embeddings=False, lm_layer=None))
    detector.fit(["is it quiet?", "book it please", "are rooms clean?", "for 2 people"], [1, 0, 1, 0])
    arrays: dict[str, np.ndarray] = {}
    state = detector.state(arrays)
    del state["config"]["lm_layer"], state["config"]["svm_C"]  # as an older clarion wrote it
    del state["svm_classifier"]
    older = Detector.from_state(state, arrays)
    assert older.config.lm_layer is None and older.config.svm_C is None and len(older._model) == 1


def test_a_pipeline_with_smollm2_states_saves_loads_and_predicts_alike(smollm2, tmp_path):
    """The DSTC pipeline trained with ``detect.lm_layer`` (tiny otherwise): the loaded model detects as the trained
    one does, and the states moved the detector's scores."""
    from dstc_synthetic import write_synthetic

    from clarion.data.dstc import load_dataset
    from clarion.dstc.models.modeldir import load_model, save_model
    from clarion.dstc.models.pipeline import PipelineConfig
    from clarion.dstc.models.train import train
    from clarion.dstc.models.turns import query_texts

    data = load_dataset(write_synthetic(tmp_path / "syn"))
    config = PipelineConfig.tiny()
    config.detect.lm_layer, config.detect.lm_margin = 4, 0.0
    model, _ = train(data, config)
    save_model(model, tmp_path / "m", "fp")
    loaded = load_model(tmp_path / "m")
    assert loaded.config.detect.lm_layer == 4
    texts = query_texts(data)
    assert np.allclose(loaded.detector.predict_proba(texts), model.detector.predict_proba(texts))
    assert [p.target for p in loaded.predict(data)] == [p.target for p in model.predict(data)]
    plain, _ = train(data, PipelineConfig.tiny())
    assert not np.allclose(plain.detector.predict_proba(texts), model.detector.predict_proba(texts))

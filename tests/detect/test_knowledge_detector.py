"""The knowledge-seeking turn detector's classifiers: a logistic regression and an RBF support vector machine whose
probabilities are averaged, saved and loaded without pickle."""

from __future__ import annotations

import numpy as np
import pytest

from clarion.classifier import BinaryLogReg, KernelSvm
from clarion.detect.knowledge import DetectConfig, Detector
from clarion.errors import ModelError

TEXTS = [
    "is it quiet at night?",
    "book it for two nights please",
    "are the rooms clean?",
    "a table for 2 people at 7",
    "is the staff friendly?",
    "I need a taxi at 5 pm",
    "do guests like the breakfast?",
    "what is the postcode?",
    "how is the wifi there?",
    "book a table for four",
]
TARGETS = [1, 0, 1, 0, 1, 0, 1, 0, 1, 0]
NEW = ["is the food any good?", "reserve it for 3 people", "what time?"]


def _detector(**config) -> Detector:
    detector = Detector(DetectConfig(use_embeddings=False, lm_layer=None, **config))
    detector.fit(TEXTS, TARGETS)
    return detector


def test_the_detector_averages_the_logistic_regression_and_the_svm():
    detector = _detector()
    assert [type(c) for c in detector._model] == [BinaryLogReg, KernelSvm]
    features = detector._features(NEW, None)
    expected = np.mean([c.predict_proba(features)[:, 1] for c in detector._model], axis=0)
    assert np.allclose(detector.predict_proba(NEW), expected)
    assert detector.predict(NEW).tolist() == [True, False, False]
    alone = _detector(svm_C=None)
    assert [type(c) for c in alone._model] == [BinaryLogReg]


def test_a_saved_detector_loads_and_scores_alike():
    detector = _detector()
    arrays: dict[str, np.ndarray] = {}
    state = detector.state(arrays)
    assert {"classifier", "svm_classifier"} <= set(state) and any(k.startswith("detect_svm_") for k in arrays)
    again = Detector.from_state(state, arrays)
    np.testing.assert_array_equal(again.predict_proba(NEW), detector.predict_proba(NEW))
    del state["svm_classifier"]
    with pytest.raises(ModelError, match="svm_classifier missing"):
        Detector.from_state(state, arrays)


def test_the_svm_needs_two_examples_of_each_label():
    with pytest.raises(ValueError, match="two examples of each label"):
        KernelSvm(C=1.0).fit(np.eye(3), [1, 0, 0])

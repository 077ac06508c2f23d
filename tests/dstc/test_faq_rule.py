"""The FAQ-paraphrase rule for DSTC9/10-format knowledge (`clarion.dstc.models.faq_rule`) and its place in predict."""

from __future__ import annotations

import numpy as np
import pytest
from dstc_synthetic import write_synthetic

from clarion.dstc.io import load_dataset
from clarion.dstc.models import faq_rule
from clarion.dstc.models.faq_rule import FaqRule, best_cosines, faq_questions, youden_threshold
from clarion.dstc.models.modeldir import load_model, save_model
from clarion.dstc.models.pipeline import PipelineConfig
from clarion.dstc.models.train import train


def unit(rows) -> np.ndarray:
    rows = np.asarray(rows, dtype=np.float32)
    return rows / np.linalg.norm(rows, axis=1, keepdims=True)


def test_youden_threshold_separates_and_prefers_the_lowest_cut():
    assert youden_threshold([0.8, 0.9], [0.5, 0.6], grid=[0.55, 0.65, 0.7, 0.85]) == 0.65
    # a cut that loses a positive but drops more negatives wins
    assert youden_threshold([0.7, 0.9, 0.9], [0.75, 0.75, 0.5], grid=[0.6, 0.8]) == 0.8


def test_best_cosines_can_exclude_each_row_itself():
    questions = unit([[1, 0], [1, 0.1], [0, 1]])
    assert best_cosines(questions, questions)[0] == pytest.approx(1.0)
    alone = best_cosines(questions, questions, exclude=np.arange(3))
    assert alone[0] == pytest.approx(float(questions[0] @ questions[1]))
    assert alone[2] == pytest.approx(float(questions[2] @ questions[1]))


def test_calibrated_rule_matches_paraphrases_not_api_requests():
    questions = unit([[1, 0, 0], [0.95, 0.05, 0], [0, 1, 0], [0.05, 0.95, 0]])  # two pairs of paraphrases
    negatives = unit([[1, 1, 1], [1, 0.2, 1], [0.2, 1, 1]])  # API requests: best cosines 0.58-0.70
    rule = FaqRule.calibrate(questions, negatives)
    assert rule is not None and 0.70 < rule.threshold <= 0.71  # the lowest cut above every negative
    assert rule.matches(unit([[1, 0.02, 0], [1, 0.2, 1]])).tolist() == [True, False]
    assert FaqRule.calibrate(questions[:1], negatives) is None
    sampled = faq_rule.MAX_POSITIVES
    try:  # a large knowledge base calibrates on a sample of its questions: same separation here
        faq_rule.MAX_POSITIVES = 2
        assert FaqRule.calibrate(questions, negatives).threshold == rule.threshold
    finally:
        faq_rule.MAX_POSITIVES = sampled
    assert FaqRule.calibrate(questions, negatives[:0]) is None


def test_faq_questions_are_distinct_titles(tiny, tmp_path):
    data = load_dataset(tiny.write_dir(tmp_path / "d9", "dstc9"), labels=False)
    titles = [s.title.strip() for s in data.knowledge.snippets() if s.title.strip()]
    assert faq_questions(data.knowledge) == sorted(set(titles)) and titles


@pytest.fixture(scope="module")
def dense_model(tmp_path_factory):
    """A tiny model with MiniLM features (the rule needs them): synthetic DSTC11 turns."""
    data = load_dataset(write_synthetic(tmp_path_factory.mktemp("syn")))
    config = PipelineConfig.tiny()
    config.dense, config.detect.use_embeddings = True, True
    model, _ = train(data, config)
    return model, data


def test_training_keeps_the_non_knowledge_turns_as_negatives(dense_model, tmp_path):
    model, data = dense_model
    assert model.faq_negatives.shape == (sum(not g.target for g in data.labels), 384)
    save_model(model, tmp_path / "m", "fp")
    assert np.array_equal(load_model(tmp_path / "m").faq_negatives, model.faq_negatives)


def test_predict_ors_the_detector_with_the_rule_on_dstc9_knowledge_only(dense_model, tiny, tmp_path):
    from clarion.retrieve.dense import encode

    model, synthetic = dense_model
    data = load_dataset(tiny.write_dir(tmp_path / "d9", "dstc9"), labels=False)
    prepared = model.prepare(data.knowledge)
    assert prepared.faq_rule is not None and model.prepare(synthetic.knowledge).faq_rule is None
    texts = [c.last_user_text for c in data.contexts]
    emb = encode(texts)
    expected = model.detector.predict(texts, emb) | prepared.faq_rule.matches(emb)
    assert [p.target for p in model.predict(data, prepared=prepared)] == expected.tolist()
    # with the detector silenced, an FAQ question asked verbatim is still knowledge-seeking, a booking is not
    logs = [[{"speaker": "U", "text": "Are pets allowed?"}], [{"speaker": "U", "text": "Book it for two nights."}]]
    asked = load_dataset(tiny.write_dir(tmp_path / "asked", "dstc9", logs=logs), labels=False)
    threshold = model.detector.config.threshold
    model.detector.config.threshold = 2.0
    try:
        assert [p.target for p in model.predict(asked)] == [True, False]
        model.config.detect.faq_rule = False
        assert model.prepare(asked.knowledge).faq_rule is None
        assert [p.target for p in model.predict(asked)] == [False, False]
    finally:
        model.detector.config.threshold, model.config.detect.faq_rule = threshold, True


def test_faq_only_knowledge_is_ranked_by_the_cosine(dense_model, tiny, tmp_path):
    """DSTC9/10-format knowledge (unseen FAQs): the tracked entities' FAQs in order of MiniLM cosine to the turn."""
    from clarion.retrieve.dense import encode

    model, _ = dense_model
    texts = ["Are pets allowed at Alpha Hotel?", "Is there parking for my car at Alpha Hotel?"]
    logs = [[{"speaker": "U", "text": text}] for text in texts]
    data = load_dataset(tiny.write_dir(tmp_path / "q", "dstc9", logs=logs), labels=False)
    threshold = model.detector.config.threshold
    model.detector.config.threshold = -1.0  # every turn is knowledge-seeking
    try:
        preds = model.predict(data)
    finally:
        model.detector.config.threshold = threshold
    faqs = data.knowledge.entity_snippets("hotel", 1)
    for pred, emb in zip(preds, encode(texts), strict=True):
        cosine = encode([s.text for s in faqs]) @ emb
        hotel = [key for key in pred.knowledge if key[0] == "hotel"]  # the taxi domain's FAQ is a candidate too
        assert pred.target and hotel == [faqs[j].key for j in np.argsort(-cosine, kind="stable")]
    assert [pred.knowledge[0][2] for pred in preds] == [1, 0]  # pets, parking
    assert model.config.select.faq_cosine
    assert not PipelineConfig.from_json({"select": {}}).select.faq_cosine  # models trained before it

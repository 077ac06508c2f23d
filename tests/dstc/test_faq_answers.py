"""The FAQ rule in the pipeline: the turns it makes knowledge-seeking and the FAQs that answer them (tiny model)."""

from __future__ import annotations

import json

import numpy as np
import pytest
from dstc_synthetic import write_synthetic

from clarion.data.dstc import load_dataset
from clarion.detect import faq_rule
from clarion.dstc.models.modeldir import load_model, save_model
from clarion.dstc.models.pipeline import PipelineConfig
from clarion.dstc.models.train import train


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
    negatives = sum(not g.target for g in data.labels)
    assert model.faq_negatives.shape == model.faq_negatives_stripped.shape == (negatives, 384)
    assert np.array_equal(model.faq_negatives, model.faq_negatives_stripped)  # the booking turns name no entity
    save_model(model, tmp_path / "m", "fp")
    loaded = load_model(tmp_path / "m")
    assert np.array_equal(loaded.faq_negatives, model.faq_negatives)
    assert np.array_equal(loaded.faq_negatives_stripped, model.faq_negatives_stripped)


def test_predict_ors_the_detector_with_the_rule(dense_model, tiny, tmp_path):
    from clarion.retrieve.dense import encode

    model, synthetic = dense_model
    data = load_dataset(tiny.write_dir(tmp_path / "d9", "dstc9"), labels=False)
    prepared = model.prepare(data.knowledge)
    assert prepared.faq_rule is not None and prepared.faq_rule.penalties is None
    assert model.prepare(synthetic.knowledge).faq_rule.penalties is not None  # DSTC11 format: the gated rule
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


def _unlabelled(root, logs: list, kb: dict):
    """A DSTC11-format data directory of ``logs`` and knowledge ``kb`` (no labels), read back."""
    root.mkdir()
    (root / "logs.json").write_text(json.dumps(logs))
    (root / "knowledge.json").write_text(json.dumps(kb))
    return load_dataset(root, labels=False)


def test_dstc11_turn_on_an_faq_the_training_never_asks_is_answered_from_it(dense_model, tmp_path):
    """DSTC11-format knowledge: the gated rule flags "Are pets allowed?" and the entity's FAQ answers it; a booking
    request (like the training negatives) stays with the dialogue manager."""
    from dstc_synthetic import knowledge

    model, _ = dense_model
    kb = knowledge()
    kb["hotel"]["0"]["faqs"]["1"] = {"question": "Are pets allowed here?", "answer": "Pets are not allowed."}
    opening = [{"speaker": "U", "text": "I want a hotel."}, {"speaker": "S", "text": "Alpha Lodge is a good choice."}]
    kb["hotel"]["1"]["faqs"]["1"] = {"question": "Is there a lift?", "answer": "Yes, a lift to every floor."}
    other = [
        {"speaker": "U", "text": "I want a hotel."},
        {"speaker": "S", "text": "Beta House Hotel is a good choice."},
    ]
    texts = ("Are pets allowed?", "Can I get the phone number?", "Is there a lift?")
    logs = [opening + [{"speaker": "U", "text": text}] for text in texts] + [
        other + [{"speaker": "U", "text": "Is there a lift?"}]
    ]
    data = _unlabelled(tmp_path / "pets", logs, kb)
    pets = next(s for s in data.knowledge.entity_snippets("hotel", 0) if s.title.startswith("Are pets"))
    threshold = model.detector.config.threshold
    model.detector.config.threshold = 2.0  # the detector says no to every turn
    try:
        preds = model.predict(data)
    finally:
        model.detector.config.threshold = threshold
    assert preds[0].target and preds[0].knowledge == (pets.key,)
    assert preds[0].response.startswith("Pets are not allowed.")
    assert not preds[1].target
    # an FAQ question the knowledge base answers for another hotel only: left to the dialogue manager
    assert not preds[2].target and preds[3].target and preds[3].response.startswith("Yes, a lift")


def _reworded_faqs(tmp_path):
    """Turns that reword FAQs of the tracked place (below the gated rule's cosine) and the FAQs they reword:
    ``(data, check-in FAQ, credit-card FAQ, forms-of-payment FAQ)``."""
    from dstc_synthetic import knowledge

    from clarion.retrieve.dense import encode

    kb = knowledge()
    question = "What time can I check in at Alpha Lodge?"
    kb["hotel"]["0"]["faqs"]["1"] = {"question": question, "answer": "Check-in is between 2 pm and 11 pm."}
    cards = "Do you accept credit cards?"
    kb["hotel"]["0"]["faqs"]["2"] = {"question": cards, "answer": "All major credit cards are accepted."}
    forms = "What forms of payment do you accept?"
    kb["hotel"]["1"]["faqs"]["1"] = {"question": forms, "answer": "Beta House takes Visa and Mastercard."}
    turn, by_card = "Can I check in at 11 pm?", "Can I pay by card?"
    logs = [
        [
            {"speaker": "U", "text": "I want a hotel."},
            {"speaker": "S", "text": f"{place} is a good choice."},
            {"speaker": "U", "text": text},
        ]
        for place, text in (("Alpha Lodge", turn), ("Alpha Lodge", by_card), ("Beta House Hotel", by_card))
    ] + [
        [
            {"speaker": "U", "text": "I want a hotel."},
            {"speaker": "S", "text": "Sure."},
            {"speaker": "U", "text": turn},
        ],
    ]
    data = _unlabelled(tmp_path / "checkin", logs, kb)
    cosine = float(np.prod(encode([turn, "What time can I check in at the ?"]), axis=0).sum())
    assert 0.65 <= cosine < faq_rule.GATE_COSINE  # what the entity gate is for
    cosine = float(np.prod(encode([by_card, cards]), axis=0).sum())
    assert 0.5 <= cosine < faq_rule.ENTITY_FAQ_COSINE  # taken by the gate at 0.5, below the rule's answering floor
    cosine = float(np.prod(encode([by_card, forms]), axis=0).sum())
    assert 0.4 <= cosine < 0.5  # taken by the gate since 2026-11-27
    checkin = next(s for s in data.knowledge.entity_snippets("hotel", 0) if s.title == question)
    accepted = next(s for s in data.knowledge.entity_snippets("hotel", 0) if s.title == cards)
    payment = next(s for s in data.knowledge.entity_snippets("hotel", 1) if s.title == forms)
    return data, checkin, accepted, payment


def test_a_reworded_faq_question_about_the_tracked_place_is_knowledge_seeking(dense_model, tmp_path):
    """``DetectConfig.entity_faq_cosine``: below the gated rule's cosine, a turn close to an FAQ of the place the
    dialogue is about is knowledge-seeking and answered from it; models trained before it leave the turn alone."""
    model, _ = dense_model
    data, checkin, accepted, payment = _reworded_faqs(tmp_path)
    threshold = model.detector.config.threshold
    model.detector.config.threshold = 2.0  # the detector says no to every turn
    try:
        assert model.config.detect.entity_faq_cosine == 0.4
        named, paid, forms_of_payment, unnamed = model.predict(data)
        model.config.detect.entity_faq_cosine = 0.5
        half = model.predict(data)
        model.config.detect.entity_faq_cosine = 0.65
        above = model.predict(data)
        model.config.detect.entity_faq_cosine = None
        before = model.predict(data)
    finally:
        model.detector.config.threshold = threshold
        model.config.detect.entity_faq_cosine = 0.4
    assert named.target and named.knowledge == (checkin.key,) and named.response.startswith("Check-in is between")
    assert paid.target and paid.knowledge == (accepted.key,) and "credit cards are accepted" in paid.response
    assert forms_of_payment.target and forms_of_payment.knowledge == (payment.key,)
    assert not unnamed.target  # no place tracked: nothing to match
    assert half[1].target and not half[2].target  # the gate's cosine of 2026-11-26 night
    assert above[0].target and not above[1].target  # the gate's cosine of 2026-11-26 evening
    assert not before[0].target


def test_a_detected_turn_the_selector_is_unsure_of_gets_the_faq_the_entity_gate_found(dense_model, tmp_path):
    """A turn the detector flags and the entity gate takes (below the rule's answering floor) is answered from the
    FAQ the gate fires on when the selector is unsure, as an undetected one is."""
    model, _ = dense_model
    data, _, _, payment = _reworded_faqs(tmp_path)
    threshold, scores = model.detector.config.threshold, model.selector.scores
    model.detector.config.threshold = -1.0  # the detector says yes to every turn
    model.selector.scores = lambda group: np.full(len(group.snippets), 0.1)  # and the selector is unsure
    try:
        forms_of_payment = model.predict(data)[2]
    finally:
        model.detector.config.threshold = threshold
        del model.selector.scores
    assert model.selector.scores == scores
    assert forms_of_payment.target and forms_of_payment.knowledge == (payment.key,)

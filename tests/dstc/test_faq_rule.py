"""The FAQ-paraphrase rule for DSTC9/10-format knowledge (`clarion.detect.faq_rule`) and its place in predict."""

from __future__ import annotations

import json

import numpy as np
import pytest
from dstc_synthetic import write_synthetic

from clarion.data.dstc import Snippet, load_dataset
from clarion.detect import faq_rule
from clarion.detect.faq_rule import (
    FaqRule,
    best_cosines,
    faq_questions,
    other_end_of_stay,
    stay_end,
    youden_threshold,
)
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


def test_gated_rule_skips_faq_questions_that_resemble_api_requests():
    questions = unit([[1, 0, 0], [0, 1, 0]])  # "are pets allowed?", "is there parking?"
    negatives = unit([[0, 1, 0.3]])  # an API request close to the parking question (cosine 0.96)
    rule = FaqRule.gated(["pets", "parking"], questions, negatives, cosine=0.8, margin=0.1)
    assert rule.penalties.tolist() == pytest.approx([0.0, 0.958], abs=1e-3)
    turns = unit([[1, 0.1, 0], [0.1, 1, 0], [0, 0, 1], [0.6, 0.6, 0.5]])  # pets, parking, unrelated, far from both
    assert rule.matches(turns).tolist() == [True, False, False, False]
    assert FaqRule.gated([], questions[:0], negatives) is None
    assert FaqRule.gated(["pets"], questions[:1], negatives[:0]) is None


def test_entity_gate_matches_a_tracked_places_faq_at_a_lower_cosine():
    from types import SimpleNamespace

    questions = unit([[1, 0, 0], [0, 1, 0]])  # "what time is check-in?" (one place's), "is there parking?"
    negatives = unit([[0, 1, 0.3]])
    rule = FaqRule.gated(["check-in", "parking"], questions, negatives, cosine=0.8, margin=0.1)
    faq = SimpleNamespace(doc_type="faq", title=" check-in ")
    review = SimpleNamespace(doc_type="review", title="")
    turn = unit([[0.7, 0, 0.714]])[0]  # cosine 0.70 to the check-in question: below the rule's 0.8
    assert not rule.matches(turn[None, :])[0]
    assert rule.matches_entity(turn, [review, faq], cosine=0.65)
    assert not rule.matches_entity(turn, [review, faq], cosine=0.75)
    assert not rule.matches_entity(turn, [review], cosine=0.65)  # the place has no such FAQ
    assert rule.reaches(np.stack([turn, unit([[0, 0, 1]])[0]]), 0.65).tolist() == [True, False]  # the cheap test first
    parking = SimpleNamespace(doc_type="faq", title="parking")
    near_booking = unit([[0, 0.9, 0.436]])[0]  # close to the parking question, which a booking turn resembles
    assert not rule.matches_entity(near_booking, [parking], cosine=0.65)
    assert not FaqRule(questions, 0.7).matches_entity(turn, [faq], cosine=0.65)  # the plain rule has no gate


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
    assert not PipelineConfig.from_json({"select": {}}).select.faq_cosine  # models trained before it


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


def test_the_faq_the_entity_gate_fires_on_is_the_one_it_answers_from():
    from types import SimpleNamespace

    questions = unit([[1, 0, 0], [0, 1, 0]])  # "do you accept credit cards?", "is there parking?"
    negatives = unit([[0, 1, 0.3]])  # a booking turn close to the parking question
    rule = FaqRule.gated(["cards", "parking"], questions, negatives, cosine=0.8, margin=0.1)
    cards, parking = (SimpleNamespace(doc_type="faq", title=t) for t in ("cards", "parking"))
    turn = unit([[0.55, 0.58, 0.6]])[0]  # "can I pay by card?": 0.55 from cards, 0.58 from parking
    assert rule.best_faq(turn, [cards, parking]) is None  # below the answering floor
    assert rule.best_faq(turn, [cards, parking], 0.5) is parking  # the closest question
    assert rule.best_faq(turn, [cards, parking], 0.5, gated=True) is cards  # the closest one the gate fires on
    assert rule.best_faq(turn, [parking], 0.5, gated=True) is None
    assert FaqRule(questions, 0.7).best_faq(turn, [cards, parking], 0.5, gated=True) is None  # the plain rule


def test_an_faq_answer_gets_the_same_faq_of_every_other_tracked_place():
    """``PipelineConfig.faq_every_place``: "Do the Gonville Hotel and the Lensfield Hotel have gyms?" had been answered
    from the Lensfield's gym FAQ alone."""
    from clarion.data.dstc import Snippet
    from clarion.dstc.models.pipeline import DstcModel

    questions = unit([[1, 0, 0], [0.9, 0.436, 0], [0, 1, 0]])  # one place's gym, the other's gym, its parking
    rule = FaqRule.gated(["gym 1", "gym 2", "parking 2"], questions, unit([[0, 0, 1]]), cosine=0.8, margin=0.1)
    gym1, gym2, parking2 = (
        Snippet("hotel", e, d, None, "faq", title, "...", "")
        for e, d, title in ((1, 0, "gym 1"), (2, 0, "gym 2"), (2, 1, "parking 2"))
    )
    review = Snippet("hotel", 3, 0, 0, "review", "", "Nice gym.", "")
    turn = unit([[1, 0.05, 0]])[0]
    found = DstcModel._other_places_faqs(rule, turn, [gym1, gym2, parking2, review], gym1, 0.6, False)
    assert found == [gym2]  # the other place's closest FAQ; the place with reviews only adds nothing
    assert DstcModel._other_places_faqs(rule, turn, [gym1, gym2], gym1, 0.95, False) == []  # below the floor
    assert PipelineConfig().uses("faq_every_place") and not PipelineConfig.from_json({}).uses("faq_every_place")


def test_a_reworded_faq_question_about_the_tracked_place_is_knowledge_seeking(dense_model, tmp_path):
    """``DetectConfig.entity_faq_cosine``: below the gated rule's cosine, a turn close to an FAQ of the place the
    dialogue is about is knowledge-seeking and answered from it; models trained before it leave the turn alone."""
    from dstc_synthetic import knowledge

    from clarion.retrieve.dense import encode

    model, _ = dense_model
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
    assert PipelineConfig.from_json({"detect": {}}).detect.entity_faq_cosine is None  # models trained before it


def test_a_question_about_one_end_of_a_stay_is_not_answered_about_the_other():
    assert stay_end("Can I check in early?") == "in" and stay_end("When is check-out?") == "out"
    assert stay_end("What are the check-in and check-out times?") is None and stay_end("Is there a gym?") is None
    assert other_end_of_stay("Can I check in early?", "What time is check-out?")
    assert other_end_of_stay("Can I check out late?", "Is there an age restriction for check-in?")
    assert not other_end_of_stay("Can I check in early?", "When is standard check in?")
    assert not other_end_of_stay("Can I leave my luggage?", "Can I store my suitcase until check-in time?")
    assert not other_end_of_stay("Is there a gym?", "What time is check-out?")


def test_a_check_in_question_gets_no_check_out_faq(dense_model, tmp_path):
    """``PipelineConfig.stay_ends_apart``: MiniLM puts "Can I check in early?" near a place's check-out FAQ."""
    from dstc_synthetic import knowledge

    model, _ = dense_model
    kb = knowledge()
    faqs = kb["hotel"]["0"]["faqs"]
    faqs["1"] = {"question": "When is standard check in?", "answer": "Check-in time is from 16:00 to 22:00."}
    faqs["2"] = {"question": "What time is check-out?", "answer": "Check out is between 730 and 1030."}
    logs = [[{"speaker": "U", "text": "I want Alpha Lodge."}, {"speaker": "S", "text": "Sure."}]]
    logs = [[*logs[0], {"speaker": "U", "text": text}] for text in ("Can I check in early?", "Can I check out late?")]
    data = _unlabelled(tmp_path / "stay", logs, kb)
    assert model.config.uses("stay_ends_apart")
    check_in, check_out = model.predict(data)
    assert check_in.target and ("hotel", 0, 2) not in check_in.knowledge
    assert check_out.target and ("hotel", 0, 1) not in check_out.knowledge
    assert not PipelineConfig.from_json({}).uses("stay_ends_apart")  # models trained before it


def test_the_outranking_faq_answers_turns_the_gated_rule_did_not_flag(dense_model, tmp_path, monkeypatch):
    """``faq_fallback_memory`` consults the entity's FAQs on every detected turn, not only where the rule fired."""
    from dstc_synthetic import knowledge

    from clarion.dstc.models.pipeline import DstcModel

    model, _ = dense_model
    kb = knowledge()
    kb["hotel"]["0"]["faqs"]["1"] = {"question": "Are pets allowed here?", "answer": "Pets are not allowed."}
    logs = [
        [
            {"speaker": "U", "text": "I want a hotel."},
            {"speaker": "S", "text": "Alpha Lodge is a good choice."},
            {"speaker": "U", "text": "Are pets allowed?"},
        ]
    ]
    data = _unlabelled(tmp_path / "outranked", logs, kb)
    pets = next(s for s in data.knowledge.entity_snippets("hotel", 0) if s.title.startswith("Are pets"))
    prepared = model.prepare(data.knowledge)
    monkeypatch.setattr(FaqRule, "matches", lambda self, emb: np.zeros(len(emb), dtype=bool))  # never fires
    monkeypatch.setattr(DstcModel, "_outranked", lambda self, *args: True)
    monkeypatch.setattr(model.detector.config, "threshold", -1.0)  # every turn is knowledge-seeking
    assert model.config.param("faq_outranks_memory", "cosine") is not None
    answered = model.predict(data, prepared=prepared)[0]  # the FAQ's own answer
    assert (
        answered.knowledge == (pets.key,)
        and answered.response == f"Pets are not allowed. {model.bank.closings.for_keys([pets.key])}"
    )
    monkeypatch.delitem(model.config.rules, "faq_outranks_memory")
    assert model.predict(data, prepared=prepared)[0].response != answered.response  # the selector's answer


def _french_question(directory):
    """An unlabelled one-dialogue dataset asking "Do they speak French?" after Alpha Lodge, whose FAQ "What languages
    are spoken at this location?" answers it: ``(data, FAQ question, turn)``."""
    from dstc_synthetic import knowledge

    kb = knowledge()
    question, turn = "What languages are spoken at this location?", "Do they speak French?"
    kb["hotel"]["0"]["faqs"]["1"] = {"question": question, "answer": "The staff speak English and French."}
    opening = [{"speaker": "U", "text": "I want a hotel."}, {"speaker": "S", "text": "Alpha Lodge is a good choice."}]
    return _unlabelled(directory, [opening + [{"speaker": "U", "text": turn}]], kb), question, turn


def test_the_outranking_faq_may_be_farther_than_the_rules_answers(dense_model, tmp_path, monkeypatch):
    """``OUTRANKING_FAQ_COSINE``: "Do they speak French?" is 0.5-0.6 from "What languages are spoken at this
    location?", below the gated rule's answers (``ENTITY_FAQ_COSINE``); that FAQ may still outrank the choice."""
    from clarion.dstc.models.pipeline import DstcModel
    from clarion.rerank import faq_choice
    from clarion.retrieve.dense import encode

    model, _ = dense_model
    data, question, turn = _french_question(tmp_path / "french")
    cosine = float(np.prod(encode([turn, question]), axis=0).sum())
    assert faq_choice.OUTRANKING_FAQ_COSINE <= cosine < faq_rule.ENTITY_FAQ_COSINE
    offered = []
    monkeypatch.setattr(FaqRule, "matches", lambda self, emb: np.zeros(len(emb), dtype=bool))  # never fires
    monkeypatch.setattr(DstcModel, "_outranked", lambda self, _g, _s, _n, faq, *_: offered.append(faq) or True)
    monkeypatch.setattr(model.detector.config, "threshold", -1.0)  # every turn is knowledge-seeking
    answered = model.predict(data)[0]
    assert [faq.title for faq in offered] == [question]
    closing = model.bank.closings.for_keys(answered.knowledge)
    assert answered.response == f"The staff speak English and French. {closing}"
    monkeypatch.setattr(faq_choice, "OUTRANKING_FAQ_COSINE", faq_rule.ENTITY_FAQ_COSINE)
    assert model.predict(data)[0].response != answered.response and offered[-1] is None


def test_an_unsure_choice_may_be_outranked_by_a_farther_faq_too(dense_model, tmp_path, monkeypatch):
    """``PipelineConfig.unsure_outranking``: on a turn the rule fired on and the selector is unsure of, with no FAQ
    within the rule's answering floor, the FAQ at 0.5-0.6 may still outrank the choice ("Do they allow pets at the
    Gonville Hotel?" had got a bathroom review, "Can I bring my dog?" 0.55); models trained before it keep it."""
    from clarion.dstc.models.pipeline import DstcModel
    from clarion.rerank import faq_choice

    model, _ = dense_model
    data, question, _ = _french_question(tmp_path / "unsure")
    offered = []
    monkeypatch.setattr(FaqRule, "matches", lambda self, emb: np.ones(len(emb), dtype=bool))  # always fires
    monkeypatch.setattr(DstcModel, "_outranked", lambda self, _g, _s, _n, faq, *_: offered.append(faq) or True)
    monkeypatch.setattr(faq_choice, "FAQ_FALLBACK_CONFIDENCE", 2.0)  # the selector is never sure
    monkeypatch.setattr(model.detector.config, "threshold", -1.0)  # every turn is knowledge-seeking
    assert model.config.uses("unsure_outranking")
    answered = model.predict(data)[0]
    assert [faq.title for faq in offered] == [question]
    closing = model.bank.closings.for_keys(answered.knowledge)
    assert answered.response == f"The staff speak English and French. {closing}"
    monkeypatch.delitem(model.config.rules, "unsure_outranking")
    assert model.predict(data)[0].response != answered.response and len(offered) == 1  # not asked
    assert not PipelineConfig.from_json({}).uses("unsure_outranking")  # models trained before it


def test_an_unremembered_choice_farther_than_the_faq_yields_to_it():
    """The fallback when the selector is confident on snippets no similar question chose ("Does Charlie Chan have high
    chairs?" -> the outdoor-seating FAQ): the FAQ the turn paraphrases answers when it is not chosen, nothing chosen
    is remembered within faq_fallback_memory, and it is closer to the turn than every choice by FAQ_OUTRANKS."""
    from types import SimpleNamespace

    from clarion.dstc.models.pipeline import FAQ_OUTRANKS, DstcModel
    from clarion.rerank.snippets import Group, Selector

    model = DstcModel(PipelineConfig(), None, Selector(), None, None)
    model.selector.threshold = 0.5
    snippets = [SimpleNamespace(key=("restaurant", 1, k, 0)) for k in range(3)]
    query = unit([[1, 0, 0]])[0]
    # cosines to the turn: 0.3 (chosen), 0.2 (chosen), 0.7 (the FAQ, not chosen)
    embeddings = unit([[0.3, np.sqrt(0.91), 0], [0.2, np.sqrt(0.96), 0], [0.7, 0, np.sqrt(0.51)]])
    scores = np.array([0.9, 0.6, 0.1])

    def group(best):
        memory = np.array([[b, 0, b, 0] for b in best], dtype=np.float32)
        return Group(query, embeddings, np.zeros(3), np.array([False, False, True]), key_memory=memory)

    faq = snippets[2]
    assert model._outranked(group([-1, 0.4, -1]), scores, snippets, faq)
    assert not model._outranked(group([0.75, 0.4, -1]), scores, snippets, faq)  # a choice is remembered
    assert not model._outranked(group([-1, 0.4, -1]), np.array([0.9, 0.6, 0.55]), snippets, faq)  # FAQ chosen
    near = unit([[0.3, np.sqrt(0.91), 0], [0.2, np.sqrt(0.96), 0], [0.3 + FAQ_OUTRANKS / 2, 0, 0.9]])
    memory = np.array([[-1, 0, -1, 0]] * 3, dtype=np.float32)
    close = Group(query, near, np.zeros(3), np.array([False, False, True]), key_memory=memory)
    assert not model._outranked(close, scores, snippets, faq)  # the FAQ is not enough closer
    assert not model._outranked(group([-1, 0.4, -1]), scores, snippets, None)  # the rule found no FAQ
    assert PipelineConfig().param("faq_outranks_memory", "cosine") == 0.7
    assert PipelineConfig.from_json({}).param("faq_outranks_memory", "cosine") is None  # models trained before it


def test_a_memory_of_another_question_does_not_keep_the_faq_from_outranking():
    """``PipelineConfig.memory_elsewhere``: "Do they offer room service?" remembered "Do they offer big rooms?", whose
    gold was a room-size review; the room-service FAQ's question is far closer to the turn than to that question."""
    from types import SimpleNamespace

    from clarion.data.dstc import Snippet
    from clarion.dstc.models.pipeline import DstcModel
    from clarion.rerank.snippet_memory import KeyMemory

    review = Snippet("hotel", 1, 8, 0, "review", "", "The room was large.", "")
    faq = Snippet("hotel", 1, 35, None, "faq", "room service", "No room service.", "")
    big_rooms, service_rooms = unit([[0.7, 0.714, 0]]), unit([[0.9, 0.1, 0.42]])  # two training questions
    questions = unit([[1, 0, 0]])  # the FAQ's question
    rule = FaqRule.gated(["room service"], questions, unit([[0, 0, 1]]), cosine=0.8, margin=0.1)
    turn = unit([[0.87, 0.49, 0]])[0]  # 0.87 from the FAQ's question, 0.96 from "big rooms"
    memory = KeyMemory(big_rooms, [(review.key,)])
    assert len(memory.remembered(turn, review.key, 0.7)) == 1
    assert len(memory.remembered(turn, review.key, 0.99)) == 0 and len(memory.remembered(turn, faq.key, 0.0)) == 0
    model = SimpleNamespace(
        config=PipelineConfig(), selector=SimpleNamespace(memory=memory)
    )  # memory_elsewhere 0.15, faq_fallback_memory 0.7
    elsewhere = DstcModel._memory_elsewhere
    assert elsewhere(model, [0], [review, faq], faq, rule, turn, turn)  # "big rooms" is 0.7 from the FAQ: elsewhere
    model.selector.memory = KeyMemory(np.vstack([big_rooms, service_rooms]), [(review.key,), (review.key,)])
    assert float(service_rooms[0] @ turn) >= 0.7 and float(service_rooms[0] @ questions[0]) >= 0.87 - 0.15
    assert not elsewhere(model, [0], [review, faq], faq, rule, turn, turn)  # a remembered question about it
    model.config.set_rule("faq_outranks_memory", None)
    assert not elsewhere(model, [0], [review, faq], faq, rule, turn, turn)  # off: every memory counts
    assert (
        PipelineConfig().param("faq_outranks_memory", "elsewhere") == 0.15
        and PipelineConfig.from_json({}).param("faq_outranks_memory", "elsewhere") is None
    )


def test_a_question_about_two_things_gets_the_faq_of_each(dense_model, tmp_path):
    """``PipelineConfig.coordinated_faqs``: "Do they have a pool and a gym?" had been answered from the pool FAQ alone;
    each part of the question now gets the place's closest FAQ; models trained before it leave the turn alone."""
    from dstc_synthetic import knowledge

    from clarion.detect.knowledge import coordinated_parts

    model, _ = dense_model
    kb = knowledge()
    kb["hotel"]["0"]["faqs"]["1"] = {"question": "Is there a pool at Alpha Lodge?", "answer": "There is no pool."}
    kb["hotel"]["0"]["faqs"]["2"] = {"question": "Is there a gym at Alpha Lodge?", "answer": "The gym opens at 6 am."}
    context = [{"speaker": "U", "text": "I want a hotel."}, {"speaker": "S", "text": "Alpha Lodge is a good choice."}]
    turns = ("Do they have a pool and a gym?", "Is there a gym?")
    logs = [context + [{"speaker": "U", "text": text}] for text in turns]
    data = _unlabelled(tmp_path / "two", logs, kb)
    faqs = {s.title: s.key for s in data.knowledge.entity_snippets("hotel", 0) if s.doc_type == "faq"}
    assert coordinated_parts("Do they have a pool and a gym?") == ["Do they have a pool", "Do they have a gym?"]
    both, gym = model.predict(data)
    model.config.set_rule("coordinated_faqs", None)
    try:
        before = model.predict(data)
    finally:
        model.config.set_rule("coordinated_faqs", {})
    pool_key, gym_key = faqs["Is there a pool at Alpha Lodge?"], faqs["Is there a gym at Alpha Lodge?"]
    assert set(both.knowledge) == {pool_key, gym_key}
    assert "The gym opens at 6 am." in both.response  # the part whose FAQ the selection lacked
    assert gym.knowledge == (gym_key,) and "pool" not in gym.response  # one thing asked: one FAQ
    assert len(before[0].knowledge) == 1 and before[1] == gym
    assert PipelineConfig().uses("coordinated_faqs") and not PipelineConfig.from_json({}).uses("coordinated_faqs")


def test_an_accessibility_faq_gives_way_to_the_places_faq_within_the_answering_floor():
    """``PipelineConfig.accessibility_apart``: "Do they have parking?" had been answered "Accessible parking is not
    available at Limehouse." though Limehouse's "What type of parking is available?" answers it."""
    from clarion.data.dstc import Snippet
    from clarion.detect.faq_rule import answering_faqs, asks_accessibility

    assert asks_accessibility("Is there a lift available for wheelchairs?")
    assert asks_accessibility("Do you have accessible parking?") and asks_accessibility("Any disabled access?")
    assert not asks_accessibility("Do they have parking?")
    titles = ["Is there accessible parking available?", "What type of parking is available?", "Is there a lift?"]
    questions = unit([[1, 0, 0], [0.9, 0.436, 0], [0, 0, 1]])
    rule = FaqRule.gated(titles, questions, unit([[0, 1, 0]]), cosine=0.8, margin=0.1)
    accessible, parking, lift = (
        Snippet("hotel", 25, d, None, "faq", t, "...", "LIMEHOUSE") for d, t in enumerate(titles)
    )
    review = Snippet("hotel", 25, 9, 0, "review", "", "Accessible rooms.", "LIMEHOUSE")
    turn = unit([[1, -0.1, 0]])[0]  # "Do they have parking?": 0.99 from the accessible question, 0.85 from the other
    every = [accessible, parking, lift, review]
    assert rule.best_faq(turn, every) is accessible  # the closest question
    choices = answering_faqs(rule, turn, every, "Do they have parking?")
    assert choices == [parking, lift, review] and rule.best_faq(turn, choices) is parking
    assert answering_faqs(rule, turn, every, "Is there accessible parking?") == every  # asked about it
    far = unit([[1, -0.8, 0]])[0]  # the other FAQ at 0.43, below the answering floor: the accessible one stays
    assert answering_faqs(rule, far, every, "Do they have parking?") == every
    assert PipelineConfig().uses("accessibility_apart") and not PipelineConfig.from_json({}).uses("accessibility_apart")


def test_an_faq_about_guests_age_gives_way_to_the_places_faq_within_the_answering_floor(dense_model):
    """``PipelineConfig.age_apart``: "Can I check in early?" at the Alexander Bed and Breakfast had got "You must be at
    least 18 years old to check into Alexander Bed and Breakfast."."""
    from clarion.data.dstc import Snippet
    from clarion.detect.faq_rule import answering_faqs, asks_accessibility, asks_age

    assert asks_age("What is the minimum age of entry to check in at the hotel?") and asks_age("How old must I be?")
    assert not asks_age("Can I check in early?") and not asks_age("What time is check-in?")
    titles = ["Is there a minimum age to check in?", "What time is check-in?"]
    questions = unit([[1, 0, 0], [0.8, 0.6, 0]])
    rule = FaqRule.gated(titles, questions, unit([[0, 0, 1]]), cosine=0.8, margin=0.1)
    age, time = (Snippet("hotel", 2, d, None, "faq", t, "...", "ALEXANDER") for d, t in enumerate(titles))
    turn = unit([[1, 0.2, 0]])[0]  # "Can I check in early?": 0.98 from the age question, 0.90 from the time one
    topics = (asks_accessibility, asks_age)
    assert rule.best_faq(turn, [age, time]) is age
    assert answering_faqs(rule, turn, [age, time], "Can I check in early?", topics) == [time]
    assert answering_faqs(rule, turn, [age, time], "How old must I be to check in?", topics) == [age, time]
    assert answering_faqs(rule, turn, [age, time], "Can I check in early?") == [age, time]  # accessibility alone
    model, _ = dense_model
    assert model.config.uses("age_apart") and asks_age in model._apart
    assert not PipelineConfig.from_json({}).uses("age_apart")  # models trained before it


def test_one_part_of_a_coordinated_question_near_an_faq_makes_the_turn_knowledge_seeking(
    dense_model, tmp_path, monkeypatch
):
    """``PipelineConfig.coordinated_detection``: "Can you tell me whether the Gonville Hotel has a gym and whether it
    has a pool?" was as a whole too far from either FAQ to be knowledge-seeking; each part is tried as a turn."""
    from dstc_synthetic import knowledge

    from clarion.detect import knowledge_turns

    model, _ = dense_model
    kb = knowledge()
    kb["hotel"]["0"]["faqs"]["1"] = {"question": "Is there a pool at Alpha Lodge?", "answer": "There is no pool."}
    context = [{"speaker": "U", "text": "I want a hotel."}, {"speaker": "S", "text": "Alpha Lodge is a good choice."}]
    texts = [
        "Can you tell me whether they have a pool and whether it has a gym?",
        "Can I get the phone number and the postcode?",
        "Can you tell me whether they have a pool?",  # one part: the whole turn decides, as before
    ]
    data = _unlabelled(tmp_path / "parts", [context + [{"speaker": "U", "text": t}] for t in texts], kb)
    prepared = model.prepare(data.knowledge)
    real = knowledge_turns.embed_queries
    asked = []

    def parts_on_the_faq(batch, dense):  # a part about the pool lands on the pool question itself
        asked.extend(batch)
        return real(["Is there a pool at Alpha Lodge?" if "pool" in t else t for t in batch], dense)

    monkeypatch.setattr(knowledge_turns, "embed_queries", parts_on_the_faq)
    found = model._coordinated_turns(data, prepared, texts, np.zeros(3, dtype=bool))
    assert found.tolist() == [True, False, False]
    assert len(asked) == 4  # the two parts of each coordinated turn, embedded once
    assert not model._coordinated_turns(data, prepared, texts, np.ones(3, dtype=bool)).any()  # known turns skipped
    assert PipelineConfig().uses("coordinated_detection") and not PipelineConfig.from_json({}).uses(
        "coordinated_detection"
    )


def _unit(*weights: float) -> np.ndarray:
    vector = np.zeros(384, dtype=np.float32)
    vector[: len(weights)] = weights
    return vector / np.linalg.norm(vector)


def test_an_unremembered_choice_of_reviews_yields_to_the_faq_the_turn_paraphrases(dense_model, monkeypatch):
    """``PipelineConfig.outrank_by_question``: "Is the front desk open all night?" at the Gonville Hotel chose views
    reviews (snippet cosine 0.53), though the turn is 0.71 from its FAQ question "What time does your front desk
    close?"; its snippet (question and answer) is 0.66 from the turn, not the outranking margin ahead."""
    from types import SimpleNamespace

    model, _ = dense_model
    review = Snippet("hotel", 0, 3, 1, "review", "", "The views are lovely.", "Alpha Lodge")
    faq = Snippet("hotel", 0, 18, None, "faq", "What time does your front desk close?", "It is open 24 hours.", "Alpha")
    view = _unit(1.0)
    question = _unit(0.7, 0.714)  # cosine 0.7 to the turn
    group = SimpleNamespace(
        query=view,
        snippets=np.stack([_unit(0.53, 0.848), _unit(0.6, 0.8)]),  # the FAQ's snippet is not 0.2 ahead
        key_memory=np.array([[0.3], [-1.0]], dtype=np.float32),  # no training question within 0.7 chose the review
    )
    rule = FaqRule(question[None, :], 0.8, np.zeros(1, dtype=np.float32), 0.1, {faq.title: 0})
    monkeypatch.setattr(model.selector, "choose", lambda scores, ranked=False: [0])
    scores = np.array([0.9, 0.1])
    args = (group, scores, [review, faq], faq, rule, view, view)
    monkeypatch.setitem(model.config.rules, "outrank_by_question", {})
    assert model._outranked(*args, "Is the front desk open all night?")
    assert not model._outranked(*args, "Is the front desk staff friendly at night?")  # an opinion: the reviews'
    group.key_memory[0, 0] = 0.75  # a training question this close chose the review: the memory stands
    assert not model._outranked(*args, "Is the front desk open all night?")
    group.key_memory[0, 0] = 0.3
    other = Snippet("hotel", 0, 5, None, "faq", "Is there a lift?", "There is a lift.", "Alpha Lodge")
    assert not model._outranked(group, scores, [other, faq], faq, rule, view, view, "Is the front desk open all night?")
    monkeypatch.delitem(model.config.rules, "outrank_by_question")
    assert not model._outranked(*args, "Is the front desk open all night?")
    assert not PipelineConfig.from_json({}).uses("outrank_by_question")  # models trained before it

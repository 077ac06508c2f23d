"""The FAQ-paraphrase rule (`clarion.detect.faq_rule`): its threshold, its gate and the FAQ it answers from."""

from __future__ import annotations

import numpy as np
import pytest

from clarion.data.dstc import load_dataset
from clarion.detect import faq_rule
from clarion.detect.faq_rule import FaqRule, best_cosines, faq_questions, youden_threshold


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


def test_faq_questions_are_distinct_titles(tiny, tmp_path):
    data = load_dataset(tiny.write_dir(tmp_path / "d9", "dstc9"), labels=False)
    titles = [s.title.strip() for s in data.knowledge.snippets() if s.title.strip()]
    assert faq_questions(data.knowledge) == sorted(set(titles)) and titles

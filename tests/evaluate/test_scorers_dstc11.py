"""DSTC11 Track 5 scoring pinned on hand-made examples (values worked out by hand in the comments)."""

from __future__ import annotations

import json
import math
import re
import shutil
from contextlib import contextmanager

import pytest

from clarion.dstc.evaluate import evaluate_predictions
from clarion.errors import ClarionError, DataError, InputError
from clarion.evaluate import dstc11
from clarion.evaluate.dstc11 import (
    _one_line,
    corpus_bleu,
    corpus_meteor,
    generation_scores,
    knowledge_key,
    meteor_statistic,
    score,
    selection_counts,
)


def review(doc, sent, entity=1):
    return {"domain": "hotel", "entity_id": entity, "doc_type": "review", "doc_id": doc, "sent_id": sent}


def faq(doc, entity=1, **extra):
    return {"domain": "hotel", "entity_id": entity, "doc_type": "faq", "doc_id": doc, **extra}


def test_keys_of_reviews_and_faqs():
    assert knowledge_key(review(0, 3)) == ("hotel", 1, 0, 3)
    assert knowledge_key(faq(0)) == ("hotel", 1, 0)
    assert knowledge_key(faq(0, sent_id=5)) == ("hotel", 1, 0)  # an FAQ's sent_id is ignored
    assert knowledge_key(review(0, 0)) != knowledge_key(faq(0))  # review 0 sentence 0 is not FAQ 0


REFS = [
    {"target": True, "knowledge": [review(0, 0), review(0, 1), faq(0)], "response": "free parking is available today"},
    {"target": True, "knowledge": [review(2, 0)], "response": "quiet rooms"},
    {"target": False},
    {"target": False},
    {"target": True, "knowledge": [faq(3)], "response": "bar noisy at night"},
]
HYPS = [
    # TP; {r00, f0, r02} vs gold {r00, r01, f0}: duplicates and the FAQ's stray sent_id collapse -> tp 2, fp 1, fn 1
    {
        "target": True,
        "knowledge": [review(0, 0), review(0, 0), faq(0, sent_id=5), review(0, 2)],
        "response": "free parking is available today",
    },
    {"target": False},  # FN: gold non-empty, nothing predicted -> fn 1
    {"target": False},  # both empty: the turn does not count for selection
    {"target": True, "knowledge": [review(2, 0)], "response": "x"},  # FP: fp 1
    {"target": True, "knowledge": [faq(3)], "response": "nothing here"},  # TP, exact selection match
]


def test_selection_is_micro_over_turns_with_knowledge():
    assert selection_counts(REFS, HYPS) == {"tp": 3, "fp": 2, "fn": 2, "exact": 1, "turns": 4}
    scores = score(REFS, HYPS, generation=False)
    # detection: TP 2, FP 1, FN 1 -> 2/3 each
    assert scores["detection"] == pytest.approx({"prec": 2 / 3, "rec": 2 / 3, "f1": 2 / 3})
    # selection is NOT weighted by detection: P = 3/5, R = 3/5, EM = 1/4
    assert scores["selection"] == pytest.approx({"prec": 0.6, "rec": 0.6, "f1": 0.6, "em_acc": 0.25})
    assert "generation" not in scores


def test_selection_reads_knowledge_lists_as_given():
    refs = [{"target": False}, {"target": True, "knowledge": [faq(1)], "response": "r"}]
    hyps = [{"target": False, "knowledge": [faq(1)]}, {"target": True, "knowledge": [faq(1)], "response": "r"}]
    assert selection_counts(refs, hyps) == {"tp": 1, "fp": 1, "fn": 0, "exact": 1, "turns": 2}
    assert score([{"target": False}], [{"target": False}], generation=False)["selection"]["em_acc"] == 0.0


def test_selection_counts_refuse_lists_of_different_lengths():
    # the official scorer would zip and drop the tail; here the lists must pair up
    with pytest.raises(ValueError):
        selection_counts(REFS, HYPS[:-1])


def test_low_scores_by_hand():
    """Detection TP 1 (turn 0), FN 2 (turns 1, 2), FP 2 (turns 3, 4): P = R = F1 = 1/3. Selection over the five
    turns: tp 1 (faq 0), fp 2 (faqs 3, 4), fn 2 (faqs 1, 2): P = R = F1 = 1/3, EM 1/5 (turn 0 only)."""
    refs = [{"target": True, "knowledge": [faq(d)], "response": "r"} for d in range(3)] + [{"target": False}] * 2
    hyps = [refs[0], {"target": False}, {"target": False}]
    hyps += [{"target": True, "knowledge": [faq(d)], "response": "r"} for d in (3, 4)]
    scores = score(refs, hyps, generation=False)
    assert scores["detection"] == pytest.approx({"prec": 1 / 3, "rec": 1 / 3, "f1": 1 / 3})
    assert scores["selection"] == pytest.approx({"prec": 1 / 3, "rec": 1 / 3, "f1": 1 / 3, "em_acc": 0.2})


def test_generation_on_true_positives_times_detection_f1():
    gen = score(REFS, HYPS, meteor=False)["generation"]
    assert "meteor" not in gen
    # TPs: turn 0 identical (5 tokens), turn 4 "nothing here" vs "bar noisy at night" (disjoint).
    # Corpus BLEU: matches 5/7, 4/5, 3/3, 2/2; BP = exp(1 - 9/7); times detection F1 2/3
    bleu = math.exp(1 - 9 / 7) * (5 / 7 * 4 / 5) ** 0.25
    assert gen["bleu"] == pytest.approx(bleu * 2 / 3)
    # ROUGE F averaged over the TPs: (1 + 0) / 2, times 2/3
    assert gen["rouge_1"] == pytest.approx(1 / 3)
    assert gen["rouge_2"] == pytest.approx(1 / 3)
    assert gen["rouge_l"] == pytest.approx(1 / 3)


def test_rouge_uses_the_porter_stemmer():
    # stems: room/room, were/wa, clean/clean -> 2 of 3 unigrams on each side
    assert dstc11.rouge_sums(["room was clean"], ["rooms were cleaned"])["rouge_1"] == pytest.approx(2 / 3)


def test_empty_and_mismatched_inputs():
    nothing = score([{"target": False}], [{"target": False}], meteor=False)
    assert nothing["detection"]["f1"] == 0.0 and nothing["generation"]["bleu"] == 0.0
    # no true positive: every score 0.0; METEOR is on by default, and needs no Java for zero turns
    zeros = {"prec": 0.0, "rec": 0.0, "f1": 0.0}
    nothing = score([{"target": False}], [{"target": False}])
    assert nothing["detection"] == zeros and nothing["selection"] == {**zeros, "em_acc": 0.0}
    assert nothing["generation"] == dict.fromkeys(("bleu", "meteor", "rouge_1", "rouge_2", "rouge_l"), 0.0)
    assert generation_scores([], []) == nothing["generation"]
    assert generation_scores([], [], meteor=False) == dict.fromkeys(("bleu", "rouge_1", "rouge_2", "rouge_l"), 0.0)
    assert corpus_meteor([], []) == 0.0
    sums = dstc11.rouge_sums([], [])
    assert sums == {"rouge_1": 0.0, "rouge_2": 0.0, "rouge_l": 0.0} and all(type(v) is float for v in sums.values())
    with pytest.raises(InputError, match="^1 hypotheses for 2 references; one reference per hypothesis is required$"):
        corpus_bleu(["a b"], ["a b", "c d"])
    with pytest.raises(InputError, match="1 predictions for 2 labelled turns"):
        score([{"target": False}] * 2, [{"target": False}])


def test_corpus_meteor_talks_to_the_jar_in_one_line_texts(monkeypatch):
    """The jar wrapper's contract, without Java: turn i goes in as {i: [text]} (references first, then hypotheses)
    made one-line, the corpus score comes back as a float, and an answer that is not a score is a ClarionError."""
    calls = []
    answer = {"score": 0.25}

    class Jar:
        def compute_score(self, gts, res):
            calls.append((gts, res))
            if isinstance(answer["score"], Exception):
                raise answer["score"]
            return answer["score"], [0.5, 0.0]

    @contextmanager
    def fake_jar():
        yield Jar()

    monkeypatch.setattr(dstc11, "_meteor_jar", fake_jar)
    assert corpus_meteor(["Yes.\nQuiet.", "b"], ["ref ||| one", "c"]) == 0.25
    assert calls == [({0: ["ref  one"], 1: ["c"]}, {0: ["Yes. Quiet."], 1: ["b"]})]
    answer["score"] = ValueError("could not convert string to float: '" + "x" * 100 + "'")
    # the jar's error is cut at 80 characters: the 36 of "could not convert string to float: '" and 44 x
    garbled = "the METEOR jar broke its line protocol: could not convert string to float: '" + "x" * 44
    with pytest.raises(ClarionError, match=f"^{re.escape(garbled)}$"):
        corpus_meteor(["a"], ["b"])
    answer["score"] = 0.5
    gen = score(REFS, HYPS)["generation"]  # METEOR on by default: the jar's score of the TPs, times detection F1 2/3
    assert gen["meteor"] == pytest.approx(0.5 * 2 / 3)
    assert calls[-1] == (
        {0: [REFS[0]["response"]], 1: [REFS[4]["response"]]},
        {0: [HYPS[0]["response"]], 1: [HYPS[4]["response"]]},
    )


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("java") is None, reason="needs Java for the METEOR 1.5 jar")
def test_meteor_jar_corpus_score():
    # one JVM run (slow: the jar loads its paraphrase table); the corpus score is the jar's frozen output for the
    # two true positives of REFS/HYPS (meteor-1.5.jar -l en -norm), then multiplied by detection F1 2/3
    gen = score(REFS, HYPS)["generation"]
    assert gen["meteor"] == pytest.approx(0.5803571428571428 * 2 / 3, abs=1e-9)


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("java") is None, reason="needs Java for the METEOR 1.5 jar")
def test_meteor_statistic_re_aggregates_resampled_turns():
    hyps = ["the rooms are clean and quiet", "staff were rude", "great breakfast, would you like to book?"]
    refs = ["guests say the rooms are clean", "the staff is friendly", "breakfast is great. want to book?"]
    with meteor_statistic(hyps, refs) as statistic:
        everything, first_twice, last = statistic(range(3)), statistic([0, 0]), statistic([2])
    assert everything == pytest.approx(corpus_meteor(hyps, refs), abs=1e-12)
    assert first_twice == pytest.approx(corpus_meteor(hyps[:1], refs[:1]), abs=1e-12)
    assert last == pytest.approx(corpus_meteor(hyps[2:], refs[2:]), abs=1e-12)


def test_gold_as_prediction_on_dstc11_val(dstc11_dir):
    scores = evaluate_predictions(dstc11_dir, dstc11_dir / "labels.json", generation=False)
    assert scores["detection"] == {"prec": 1.0, "rec": 1.0, "f1": 1.0}
    assert scores["selection"] == {"prec": 1.0, "rec": 1.0, "f1": 1.0, "em_acc": 1.0}


def test_evaluate_predictions_tiny(tmp_path, tiny):
    root = tiny.write_dir(tmp_path / "d", "dstc11")
    pred = tmp_path / "pred.json"
    pred.write_text(json.dumps([{"target": False}, {"target": True, "knowledge": [faq(0)], "response": "x"}]))
    scores = evaluate_predictions(root, pred, meteor=False)
    assert scores["detection"]["f1"] == 1.0
    assert scores["selection"] == pytest.approx({"prec": 1.0, "rec": 0.5, "f1": 2 / 3, "em_acc": 0.0})
    pred.write_text(json.dumps([{"target": False}, {"target": True, "knowledge": [review(0, 0)]}]))
    with pytest.raises(DataError, match="pred.json: entry 1: 'response' is a required property"):
        evaluate_predictions(root, pred)
    pred.write_text(json.dumps([{"target": False}] * 3))
    with pytest.raises(DataError, match="pred.json: has 3 entries but logs.json has 2 contexts"):
        evaluate_predictions(root, pred)


def test_texts_are_made_safe_for_the_jar_line_protocol():
    assert _one_line("Yes.\r\nIt is quiet ||| really.\n") == "Yes.  It is quiet  really. "


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("java") is None, reason="needs Java for the METEOR 1.5 jar")
def test_line_breaks_do_not_break_the_meteor_jar():
    """A carriage return used to desynchronise the jar's line protocol: a traceback, then a hang at exit."""
    broken = corpus_meteor(["Yes.\r\nIt is quiet."], ["The room\ris very quiet ||| at night."])
    assert broken == pytest.approx(corpus_meteor(["Yes. It is quiet."], ["The room is very quiet at night."]))


def test_bleu_statistic_is_corpus_bleu_of_any_resample():
    from clarion.evaluate.dstc11 import bleu_statistic, corpus_bleu

    hyps = ["the hotel has free parking", "yes they serve wine and beer", "the rooms are clean", "no"]
    refs = ["there is free parking at the hotel", "they serve beer and wine", "rooms are very clean", "no, sorry"]
    statistic = bleu_statistic(hyps, refs)
    for rows in ([0, 1, 2, 3], [1, 1, 2], [3, 0, 0, 2, 1]):
        assert statistic(rows) == pytest.approx(corpus_bleu([hyps[i] for i in rows], [refs[i] for i in rows]))
    with pytest.raises(InputError, match="one reference per hypothesis"):
        bleu_statistic(hyps, refs[:2])

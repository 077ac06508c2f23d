"""DSTC9/10 scoring pinned on hand-made examples (values worked out by hand in the comments)."""

from __future__ import annotations

import json
import math
import re
import sys
from pathlib import Path

import pytest

from clarion import wordnet as wordnet_source
from clarion.dstc.evaluate import evaluate_predictions
from clarion.errors import ClarionError, DataError, InputError
from clarion.evaluate import dstc9
from clarion.evaluate.dstc9 import bleu, normalize_text, recall_at_k, reciprocal_rank, score

needs_rouge = pytest.mark.skipif(
    __import__("importlib").util.find_spec("rouge") is None, reason="pip install rouge==1.0.1"
)
needs_wordnet = pytest.mark.skipif(
    not (Path("/usr/share/wordnet") / "data.noun").is_file(), reason="apt-get install wordnet-base"
)
needs_lexnames = pytest.mark.skipif(not wordnet_source._LEXNAMES_MAN.is_file(), reason="apt-get install wordnet-base")


class NoSynonyms:
    """A WordNet reader that knows no synonyms (nltk's METEOR only calls ``synsets``)."""

    def synsets(self, word, *args, **kwargs):
        return []


def k(entity, doc, domain="hotel"):
    return {"domain": domain, "entity_id": entity, "doc_id": doc}


def test_normalize_text():
    assert normalize_text("The check-in starts at 3:00, right?") == "check in starts at 3 00 right"
    assert normalize_text("An apple a day; THE end") == "apple day end"
    assert normalize_text("they're_here") == "they re here"  # apostrophe and underscore are punctuation
    assert normalize_text("theater another") == "theater another"  # articles only as whole words


def test_ranking_metrics():
    gold = [k(1, 3)]
    ranked = [k(1, 0), k(1, 3), k(2, 3)]
    assert reciprocal_rank(gold, ranked) == 0.5
    assert reciprocal_rank(gold, ranked, k=1) == 0.0
    assert recall_at_k(gold, ranked, 1) == 0.0 and recall_at_k(gold, ranked, 5) == 1.0
    assert reciprocal_rank(gold, [k(9, 9)] * 5 + [k(1, 3)]) == 0.0  # only the top 5 count
    assert reciprocal_rank(gold, [k("1", 3)]) == 0.0  # ids compared as JSON values: "1" != 1
    assert reciprocal_rank([k("*", 2, "taxi")], [k("*", 2, "taxi")]) == 1.0
    assert recall_at_k(gold, [k(9, 9)] * 4 + [k(1, 3)]) == 1.0  # k defaults to 5
    assert recall_at_k(gold, [k(9, 9)] * 5 + [k(1, 3)]) == 0.0


def test_bad_parameters_are_named():
    with pytest.raises(InputError, match="^a response must be a string, got int$"):
        normalize_text(5)
    with pytest.raises(InputError, match="^k must be a positive integer, got -1$"):
        reciprocal_rank([k(1, 3)], [k(1, 3)], k=-1)
    with pytest.raises(InputError, match="^n must be a positive integer, got 0$"):
        bleu("a b", "a b", n=0)


def test_sentence_bleu_by_hand():
    # ref "hotel has free parking" (4 tokens), hyp "hotel has parking" (3): p1 = 3/3, p2 = 1/2, BP = e^(1-4/3)
    bp = math.exp(1 - 4 / 3)
    assert bleu("The hotel has free parking.", "hotel has parking", 1) == pytest.approx(bp)
    assert bleu("The hotel has free parking.", "hotel has parking", 2) == pytest.approx(bp * math.sqrt(0.5))
    # no trigram match and no smoothing: nltk puts the smallest float for p3, so BLEU-3 is ~1e-103, not 0
    assert 0 < bleu("The hotel has free parking.", "hotel has parking", 3) < 1e-100
    assert bleu("same words here", "", 1) == 0.0
    # n defaults to 4: 4 identical tokens have BLEU-4 1 (BLEU-5 would be nltk's tiny float, no 5-gram)
    assert bleu("Free parking is available.", "free parking is available") == 1.0


def test_meteor_uses_the_given_wordnet():
    # without synonyms "auto" misses "car": 2 matches of 3 in one chunk -> (2/3) * (1 - 0.5 * (1/2)^3) = 0.625
    assert dstc9.meteor("The car is fast", "the auto is fast", wordnet=NoSynonyms()) == pytest.approx(0.625)


@needs_rouge
def test_rouge_is_pltrdy_rouge_on_normalised_text():
    # pltrdy's ROUGE-N counts distinct n-grams: hyp {parking} vs ref {parking, is, free} -> P 1, R 1/3, F 0.5
    # (rouge-score, counting repeats, would give 1/3)
    scores = dstc9.rouge("Parking is free.", "parking parking parking")
    assert scores["rouge_1"] == pytest.approx(0.5, abs=1e-7)
    assert dstc9.rouge("a b", "") == {"rouge_1": 0.0, "rouge_2": 0.0, "rouge_l": 0.0}
    assert dstc9.rouge("The Parking is free!", "parking is free")["rouge_l"] == pytest.approx(1.0, abs=1e-7)


@needs_wordnet
def test_meteor_uses_debian_wordnet():
    # identical 5 tokens: one chunk, frag 1/5, penalty 0.5 * (1/5)^3 = 0.004
    assert dstc9.meteor("free parking is available today", "free parking is available today") == pytest.approx(0.996)
    # "car" ~ "auto" only through WordNet synonyms: 3 matches in one chunk -> 1 - 0.5 * (1/3)^3
    assert dstc9.meteor("The car is fast", "the auto is fast") == pytest.approx(1 - 0.5 / 27)
    # nltk >= 3.6.6 quirk, kept: the synonym step looks up the *stemmed* leftovers ("automobil"), so
    # "automobile" misses "car": 2 matches of 3 in one chunk -> (2/3) * (1 - 0.5 * (1/2)^3) = 0.625
    assert dstc9.meteor("The car is fast", "the automobile is fast") == pytest.approx(0.625)
    assert dstc9.meteor("one two", "three four") == 0.0


REFS = [
    {"target": True, "knowledge": [k(1, 0)], "response": "Free parking is available today."},
    {"target": True, "knowledge": [k(1, 1)], "response": "Pets are welcome there."},
    {"target": True, "knowledge": [k(1, 2)], "response": "x"},
    {"target": True, "knowledge": [k(1, 3)], "response": "y"},
    {"target": False},
]
HYPS = [
    {"target": True, "knowledge": [k(1, 0)], "response": "free parking is available today"},  # TP, rank 1
    {"target": True, "knowledge": [k(9, 9), k(1, 1)], "response": "zzz qqq"},  # TP, rank 2, disjoint text
    {"target": False},  # FN
    {"target": False},  # FN
    {"target": True, "knowledge": [k(1, 0)], "response": "r"},  # FP
]


def test_detection_weighting_of_selection():
    # TP 2, FP 1, FN 2: a summed score s is reported as F(s/3, s/4)
    scores = score(REFS, HYPS, generation=False)
    assert scores["detection"] == pytest.approx({"prec": 2 / 3, "rec": 0.5, "f1": 4 / 7})
    assert "generation" not in scores
    # MRR@5 sum 1 + 1/2 = 1.5 -> F(0.5, 0.375) = 3/7; R@1 sum 1 -> F(1/3, 1/4) = 2/7; R@5 sum 2 -> 4/7
    assert scores["selection"] == pytest.approx({"mrr@5": 3 / 7, "r@1": 2 / 7, "r@5": 4 / 7})


@needs_rouge
@needs_wordnet
def test_detection_weighting_of_generation():
    gen = score(REFS, HYPS)["generation"]
    # turn 0 identical after normalisation (every score 1, METEOR 0.996), turn 1 disjoint (all 0): F(s/3, s/4)
    for name in ("bleu-1", "bleu-2", "bleu-3", "bleu-4", "rouge_1", "rouge_2", "rouge_l"):
        assert gen[name] == pytest.approx(2 / 7, abs=1e-7), name
    assert gen["meteor"] == pytest.approx(0.996 * 2 / 7)


@needs_rouge
def test_generation_of_one_true_positive_by_hand():
    """One TP and no FP or FN: F(s/1, s/1) = s, so each score is the turn's own. Normalised texts: ref 'car is
    fast', hyp 'auto is fast'."""
    refs = [{"target": True, "knowledge": [k(1, 0)], "response": "The car is fast."}]
    hyps = [{"target": True, "knowledge": [k(1, 0)], "response": "the auto is fast"}]
    gen = score(refs, hyps, wordnet=NoSynonyms())["generation"]
    # BLEU-n, each with its own n: equal lengths (BP 1), p1 = 2/3, p2 = 1/2 ("is fast"); no trigram or 4-gram
    # match, so BLEU-3/4 are nltk's tiny floats
    assert gen["bleu-1"] == pytest.approx(2 / 3)
    assert gen["bleu-2"] == pytest.approx(math.sqrt(2 / 3 * 1 / 2))
    assert 0 < gen["bleu-3"] < 1e-100 and 0 < gen["bleu-4"] < 1e-150
    # METEOR with the given reader (no synonyms): 0.625 as above; Debian's WordNet would match auto/car
    assert gen["meteor"] == pytest.approx(0.625)
    # pltrdy ROUGE: unigrams {car, is, fast} vs {auto, is, fast} F 2/3; bigrams 1 of 2, F 1/2; LCS "is fast", F 2/3
    assert gen["rouge_1"] == pytest.approx(2 / 3, abs=1e-7)
    assert gen["rouge_2"] == pytest.approx(1 / 2, abs=1e-7)
    assert gen["rouge_l"] == pytest.approx(2 / 3, abs=1e-7)
    # turn_scores computes generation by default
    assert set(dstc9.turn_scores(refs[0], hyps[0], NoSynonyms())) == set(dstc9.SELECTION + dstc9.GENERATION)


def test_generation_false_computes_no_generation_score(monkeypatch):
    """generation=False skips BLEU, METEOR and ROUGE altogether (no WordNet, no rouge package needed)."""

    def fail(*args, **kwargs):
        raise AssertionError("a generation score was computed")

    for name in ("bleu", "meteor", "rouge"):
        monkeypatch.setattr(dstc9, name, fail)
    assert score(REFS, HYPS, generation=False)["selection"] == pytest.approx(
        {"mrr@5": 3 / 7, "r@1": 2 / 7, "r@5": 4 / 7}
    )


def test_selection_counts_the_top_five_only():
    # the gold item at rank 5 (turn 0) and rank 6 (turn 1); two TPs, no FP or FN: F(s/2, s/2) = s/2
    # MRR@5 sum 1/5 -> 0.1; R@1 sum 0; R@5 sum 1 -> 0.5
    wrong = [k(9, d) for d in range(5)]
    refs = [{"target": True, "knowledge": [k(1, 0)], "response": "r"}] * 2
    hyps = [
        {"target": True, "knowledge": [*wrong[:4], k(1, 0)], "response": "r"},
        {"target": True, "knowledge": [*wrong, k(1, 0)], "response": "r"},
    ]
    assert score(refs, hyps, generation=False)["selection"] == pytest.approx({"mrr@5": 0.1, "r@1": 0.0, "r@5": 0.5})


def test_detection_counts_every_false_positive():
    # TP 1, FP 2, FN 0: P 1/3, R 1, F1 1/2; selection sum 1 (rank 1) is F(1/3, 1) = 1/2 as well
    refs = [{"target": True, "knowledge": [k(1, 0)], "response": "r"}, {"target": False}, {"target": False}]
    hyps = [{"target": True, "knowledge": [k(1, d)], "response": "r"} for d in range(3)]
    scores = score(refs, hyps, generation=False)
    assert scores["detection"] == pytest.approx({"prec": 1 / 3, "rec": 1.0, "f1": 0.5})
    assert scores["selection"] == pytest.approx({"mrr@5": 0.5, "r@1": 0.5, "r@5": 0.5})


def test_missing_rouge_package_is_named(monkeypatch):
    monkeypatch.setitem(sys.modules, "rouge", None)  # import rouge raises ImportError
    message = "DSTC9/10 scoring needs the `rouge` package (the official script's ROUGE): pip install rouge==1.0.1"
    with pytest.raises(ClarionError, match=f"^{re.escape(message)}$"):
        dstc9.rouge("a b", "a b")


@needs_lexnames
def test_lexnames_rebuilt_from_the_man_page():
    # WordNet 3.0's lexnames file: 45 rows "number<TAB>name<TAB>category" (1 noun, 2 verb, 3 adj, 4 adv)
    text = wordnet_source._lexnames()
    assert text.startswith("00\tadj.all\t3\n01\tadj.pert\t3\n02\tadv.all\t4\n03\tnoun.Tops\t1\n")
    assert text.endswith("\n43\tverb.weather\t2\n44\tadj.ppl\t3\n")
    lines = text.splitlines()
    assert len(lines) == 45 and lines[29] == "29\tverb.body\t2"


def test_lexnames_without_the_man_page(monkeypatch, tmp_path):
    monkeypatch.setattr(wordnet_source, "_LEXNAMES_MAN", tmp_path / "lexnames.5WN.gz")
    message = f"cannot read {tmp_path / 'lexnames.5WN.gz'}: apt-get install wordnet-base"
    with pytest.raises(ClarionError, match=f"^{re.escape(message)}$"):
        wordnet_source._lexnames()


def test_prf_and_empty_cases():
    assert dstc9.prf(0.0, 0, 0, 0) == (0.0, 0.0, 0.0)
    nothing = score([{"target": False}], [{"target": False}])
    assert nothing["detection"] == {"prec": 0.0, "rec": 0.0, "f1": 0.0}
    assert nothing["generation"]["bleu-4"] == 0.0
    with pytest.raises(InputError, match="2 predictions for 1 labelled turns"):
        score([{"target": False}], [{"target": False}] * 2)


def test_gold_as_prediction_on_dstc10_val(dstc9_dir):
    scores = evaluate_predictions(dstc9_dir, dstc9_dir / "labels.json", generation=False)
    assert scores["detection"] == {"prec": 1.0, "rec": 1.0, "f1": 1.0}
    assert scores["selection"] == {"mrr@5": 1.0, "r@1": 1.0, "r@5": 1.0}


def test_evaluate_predictions_tiny(tmp_path, tiny):
    root = tiny.write_dir(tmp_path / "d", "dstc9")
    pred = tmp_path / "pred.json"
    pred.write_text(json.dumps([{"target": True, "knowledge": [k(1, 1)], "response": "x"}, {"target": False}]))
    scores = evaluate_predictions(root, pred, generation=False)
    assert scores["detection"] == {"prec": 0.0, "rec": 0.0, "f1": 0.0}  # one FP, one FN
    pred.write_text(json.dumps([{"target": False}]))
    with pytest.raises(DataError, match="pred.json: has 1 entries but logs.json has 2 contexts"):
        evaluate_predictions(root, pred)
    pred.write_text(json.dumps([{"target": False}, {"target": True, "knowledge": [k(7, 0)], "response": ""}]))
    with pytest.raises(DataError, match=r"pred.json: entry 1, field knowledge\[0\]: no snippet \('hotel', 7, 0\)"):
        evaluate_predictions(root, pred)
    with pytest.raises(DataError, match="missing.json: no such file"):
        evaluate_predictions(root, tmp_path / "missing.json")
    pred.write_text(json.dumps([{"target": False}, {"target": False}]))
    with pytest.raises(InputError, match="option 'stemmer' does not apply to dstc9 data .*wordnet, generation, meteor"):
        evaluate_predictions(root, pred, stemmer=False)
    # meteor=False leaves METEOR out (as on DSTC11), every other generation score stays
    with_meteor, without = (evaluate_predictions(root, pred, meteor=m)["generation"] for m in (True, False))
    assert set(with_meteor) - set(without) == {"meteor"} and without == {n: with_meteor[n] for n in without}

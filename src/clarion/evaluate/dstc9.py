"""DSTC9 Track 1 / DSTC10 Track 2 scoring, reproducing the tracks' ``scripts/scores.py``.

Source: ``scripts/scores.py`` of github.com/alexa/alexa-with-dstc9-track1-dataset (reused unchanged by DSTC10
Track 2). Over the turns of ``labels.json`` and a system's output, in order:

- **detection**: TP/FP/FN of ``target``; precision, recall, F1.
- **selection** (on detection true positives only): MRR@5, R@1, R@5 of the predicted ``knowledge`` ranking, a
  predicted item matching a gold one when ``domain``, ``entity_id`` and ``doc_id`` are equal (``==`` on the JSON
  values, so ``"5"`` does not match ``5``).
- **generation** (on detection true positives only): BLEU-1..4 (``nltk`` ``sentence_bleu``, one reference,
  uniform weights, no smoothing), METEOR (``nltk`` ``single_meteor_score``), ROUGE-1/2/L F (the ``rouge`` package
  of pltrdy, ``Rouge().get_scores``; an empty hypothesis scores 0), every text first normalised: lower-cased,
  punctuation replaced by spaces, ``a``/``an``/``the`` removed, whitespace collapsed.
- Selection and generation sums are reported as the F-measure of ``sum / (TP + FP)`` and ``sum / (TP + FN)``,
  so a system is penalised for both missed and spurious knowledge-seeking turns.

WordNet for METEOR comes from Debian's ``wordnet-base``/``wordnet-sense-index`` files, else from nltk's data path
(:func:`clarion.wordnet.load_wordnet`); nothing is downloaded. Assumptions are listed in ``docs/scoring.md``.
"""

from __future__ import annotations

import re
import warnings
from collections.abc import Sequence
from typing import Any

from clarion.data.dstc_schema import Format, check_labels
from clarion.errors import ClarionError, InputError
from clarion.wordnet import load_wordnet

RE_ART = re.compile(r"\b(a|an|the)\b")
RE_PUNC = re.compile(r"[!\"#$%&()*+,-./:;<=>?@\[\]\\^`{|}~_\']")
"""The official script's article and punctuation patterns."""


def normalize_text(text: str) -> str:
    """The official normalisation: lower-case, punctuation -> space, articles removed, whitespace collapsed.

    >>> normalize_text("The check-in starts at 3:00, right?")
    'check in starts at 3 00 right'
    """
    if not isinstance(text, str):
        raise InputError(f"a response must be a string, got {type(text).__name__}")
    result = text.lower()
    result = RE_PUNC.sub(" ", result)
    result = RE_ART.sub(" ", result)
    return " ".join(result.split())


# ---------------------------------------------------------------------------------------------- selection


def _match(ref_knowledge: Sequence[dict], pred_knowledge: Sequence[dict]) -> list[bool]:
    """For each predicted item, whether some gold item has the same domain, entity_id and doc_id."""
    fields = ("domain", "entity_id", "doc_id")
    return [any(all(p[f] == r[f] for f in fields) for r in ref_knowledge) for p in pred_knowledge]


def _check_k(k: int, name: str = "k") -> None:
    if type(k) is not int or k < 1:
        raise InputError(f"{name} must be a positive integer, got {k!r}")


def reciprocal_rank(ref_knowledge: Sequence[dict], pred_knowledge: Sequence[dict], k: int = 5) -> float:
    """1/rank of the first correct item among the top ``k`` predictions, 0 if none."""
    _check_k(k)
    relevance = _match(ref_knowledge, pred_knowledge)[:k]
    return 1.0 / (relevance.index(True) + 1) if True in relevance else 0.0


def recall_at_k(ref_knowledge: Sequence[dict], pred_knowledge: Sequence[dict], k: int = 5) -> float:
    """1 if a correct item is among the top ``k`` predictions, else 0 (the official "recall")."""
    _check_k(k)
    return 1.0 if True in _match(ref_knowledge, pred_knowledge)[:k] else 0.0


# --------------------------------------------------------------------------------------------- generation


def bleu(ref_response: str, hyp_response: str, n: int = 4) -> float:
    """BLEU-n of one hypothesis against one reference (nltk ``sentence_bleu``, uniform weights, no smoothing)."""
    from nltk.translate.bleu_score import sentence_bleu

    _check_k(n, "n")
    ref_tokens = normalize_text(ref_response).split()
    hyp_tokens = normalize_text(hyp_response).split()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # nltk warns when an n-gram order has no match; the score is 0 then
        return float(sentence_bleu([ref_tokens], hyp_tokens, [1.0 / n] * n))


def meteor(ref_response: str, hyp_response: str, wordnet: Any = None) -> float:
    """nltk ``single_meteor_score`` on the normalised, whitespace-tokenised texts."""
    from nltk.translate.meteor_score import single_meteor_score

    wordnet = wordnet if wordnet is not None else load_wordnet()
    ref_tokens = normalize_text(ref_response).split()
    hyp_tokens = normalize_text(hyp_response).split()
    return float(single_meteor_score(ref_tokens, hyp_tokens, wordnet=wordnet))


def rouge(ref_response: str, hyp_response: str) -> dict[str, float]:
    """ROUGE-1/2/L F of the normalised texts with pltrdy's ``rouge`` (0 for an empty hypothesis)."""
    ref, hyp = normalize_text(ref_response), normalize_text(hyp_response)
    if not hyp.strip() or not ref.strip():
        return {"rouge_1": 0.0, "rouge_2": 0.0, "rouge_l": 0.0}
    try:
        from rouge import Rouge
    except ImportError:
        raise ClarionError(
            "DSTC9/10 scoring needs the `rouge` package (the official script's ROUGE): pip install rouge==1.0.1"
        ) from None
    scores = Rouge().get_scores(hyp, ref)[0]
    return {"rouge_1": scores["rouge-1"]["f"], "rouge_2": scores["rouge-2"]["f"], "rouge_l": scores["rouge-l"]["f"]}


# ----------------------------------------------------------------------------------------------- scoring

GENERATION = ("bleu-1", "bleu-2", "bleu-3", "bleu-4", "meteor", "rouge_1", "rouge_2", "rouge_l")
SELECTION = ("mrr@5", "r@1", "r@5")


def turn_scores(
    ref: dict[str, Any], hyp: dict[str, Any], wordnet: Any = None, generation: bool = True, meteor_too: bool = True
) -> dict[str, float]:
    """Selection (and generation) scores of one detection true positive; ``meteor_too=False`` skips METEOR."""
    ref_k, hyp_k = ref.get("knowledge", []), hyp.get("knowledge", [])
    scores = {
        "mrr@5": reciprocal_rank(ref_k, hyp_k, 5),
        "r@1": recall_at_k(ref_k, hyp_k, 1),
        "r@5": recall_at_k(ref_k, hyp_k, 5),
    }
    if not generation:
        return scores
    for n in (1, 2, 3, 4):
        scores[f"bleu-{n}"] = bleu(ref["response"], hyp["response"], n)
    if meteor_too:
        scores["meteor"] = meteor(ref["response"], hyp["response"], wordnet)
    scores.update(rouge(ref["response"], hyp["response"]))
    return scores


def prf(score_sum: float, tp: float, fp: float, fn: float) -> tuple[float, float, float]:
    """The official ``_compute``: (sum/(TP+FP), sum/(TP+FN), their harmonic mean), 0 on empty denominators."""
    p = score_sum / (tp + fp) if tp + fp > 0 else 0.0
    r = score_sum / (tp + fn) if tp + fn > 0 else 0.0
    f = 2 * p * r / (p + r) if p + r > 0 else 0.0
    return p, r, f


def score(
    refs: Sequence[dict[str, Any]],
    hyps: Sequence[dict[str, Any]],
    *,
    wordnet: Any = None,
    generation: bool = True,
    meteor: bool = True,
) -> dict:
    """Official DSTC9/10 scores of ``hyps`` (system output objects) against ``refs`` (``labels.json`` objects).

    Returns the official JSON shape: ``{"detection": {prec, rec, f1}, "selection": {mrr@5, r@1, r@5},
    "generation": {bleu-1..4, meteor, rouge_1, rouge_2, rouge_l}}``; ``generation=False`` leaves out the
    generation block (fast), ``meteor=False`` the ``meteor`` entry. ``wordnet`` overrides :func:`load_wordnet`.
    Lists of different lengths, and entries the labels schema refuses (:class:`~clarion.errors.DataError` naming the
    entry and field), are refused.
    """
    refs, hyps = check_labels(refs, Format.DSTC9, "refs"), check_labels(hyps, Format.DSTC9, "hyps")
    if len(refs) != len(hyps):
        raise InputError(f"{len(hyps)} predictions for {len(refs)} labelled turns; one per turn is required")
    tp = fp = fn = 0
    sums = dict.fromkeys(SELECTION + GENERATION, 0.0)
    for ref, hyp in zip(refs, hyps, strict=True):
        if ref["target"] is True and hyp["target"] is True:
            tp += 1
            for name, value in turn_scores(ref, hyp, wordnet, generation, meteor).items():
                sums[name] += value
        elif ref["target"] is True:
            fn += 1
        elif hyp["target"] is True:
            fp += 1
    p, r, f = prf(tp, tp, fp, fn)
    scores = {
        "detection": {"prec": p, "rec": r, "f1": f},
        "selection": {name: prf(sums[name], tp, fp, fn)[2] for name in SELECTION},
    }
    if generation:
        names = GENERATION if meteor else tuple(n for n in GENERATION if n != "meteor")
        scores["generation"] = {name: prf(sums[name], tp, fp, fn)[2] for name in names}
    return scores

"""DSTC11 Track 5 scoring (subjective-knowledge dialogue), reproducing the track's ``scripts/scores.py``.

Source: ``scripts/scores.py`` of github.com/alexa/dstc11-track5 (Zhao et al., "What do others think?":
Task-Oriented Conversational Modeling with Subjective Knowledge, SIGDIAL 2023). Over the turns, in order:

- **detection**: TP/FP/FN of ``target``; precision, recall, F1.
- **selection**: micro precision/recall/F1 over snippets, on every turn where the gold or the predicted list
  is non-empty, *not* weighted by detection. A review snippet is ``(domain, entity_id, doc_id, sent_id)``, an
  FAQ ``(domain, entity_id, doc_id)``; predictions are de-duplicated (a set per turn); the ``knowledge`` lists
  are read as given, whatever ``target`` says (gold labels only carry one when ``target`` is true).
  ``em_acc``: the share of those turns whose predicted set equals the gold set.
- **generation** (on detection true positives only): corpus BLEU (``sacrebleu.corpus_bleu`` defaults, /100),
  METEOR (the ``meteor-1.5.jar`` shipped in the ``pycocoevalcap`` wheel, ``-l en -norm``, corpus score over the
  turns), ROUGE-1/2/L F-measure (``rouge-score``, stemmer on) averaged over the turns; each multiplied by the
  detection F1.

The official scorer zips predictions with labels and silently drops a longer list's tail; here lists of different
lengths are refused. Assumptions are listed in ``docs/scoring.md``.
"""

from __future__ import annotations

import shutil
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from clarion.data.dstc_schema import Format, check_labels
from clarion.errors import ClarionError, InputError


def knowledge_key(item: dict[str, Any]) -> tuple:
    """``(domain, entity_id, doc_id, sent_id)`` for a review sentence, ``(domain, entity_id, doc_id)`` for an FAQ."""
    base = (item["domain"], item["entity_id"], item["doc_id"])
    return (*base, item["sent_id"]) if item.get("doc_type") == "review" else base


def selected_keys(obj: dict[str, Any]) -> set[tuple]:
    """The scorer's snippet keys of one labels.json object (deduplicated; empty when it selects none)."""
    return {knowledge_key(k) for k in obj.get("knowledge") or []}


def selection_counts(refs: Sequence[dict[str, Any]], hyps: Sequence[dict[str, Any]]) -> dict[str, int]:
    """Micro counts over the turns where the gold or the predicted snippet set is non-empty."""
    counts = {"tp": 0, "fp": 0, "fn": 0, "exact": 0, "turns": 0}
    for ref, hyp in zip(refs, hyps, strict=True):
        gold, pred = selected_keys(ref), selected_keys(hyp)
        if not gold and not pred:
            continue
        counts["tp"] += len(gold & pred)
        counts["fp"] += len(pred - gold)
        counts["fn"] += len(gold - pred)
        counts["exact"] += int(gold == pred)
        counts["turns"] += 1
    return counts


def _prf(tp: float, fp: float, fn: float) -> tuple[float, float, float]:
    p = tp / (tp + fp) if tp + fp > 0 else 0.0
    r = tp / (tp + fn) if tp + fn > 0 else 0.0
    f = 2 * p * r / (p + r) if p + r > 0 else 0.0
    return p, r, f


def _same_length(hyps: Sequence[str], refs: Sequence[str]) -> None:
    if len(hyps) != len(refs):
        raise InputError(f"{len(hyps)} hypotheses for {len(refs)} references; one reference per hypothesis is required")


def corpus_bleu(hyps: Sequence[str], refs: Sequence[str]) -> float:
    """sacrebleu's corpus BLEU with its default settings, on a 0-1 scale."""
    import sacrebleu

    _same_length(hyps, refs)
    return sacrebleu.corpus_bleu(list(hyps), [list(refs)]).score / 100.0


def bleu_statistic(hyps: Sequence[str], refs: Sequence[str]) -> Callable[[Sequence[int]], float]:
    """:func:`corpus_bleu` of any resample of the turns, for :func:`~clarion.evaluate.result.bootstrap`: the
    per-turn n-gram counts are extracted once and summed per resample (sacrebleu's corpus score is computed from
    those sums), so a thousand resamples cost one BLEU run and a thousand sums."""
    import numpy as np
    from sacrebleu.metrics import BLEU

    _same_length(hyps, refs)
    bleu = BLEU()
    stats = np.asarray(bleu._extract_corpus_statistics(list(hyps), [list(refs)]), dtype=np.int64)

    def statistic(rows: Sequence[int]) -> float:
        return bleu._compute_score_from_stats(stats[np.asarray(rows)].sum(axis=0).tolist()).score / 100.0

    return statistic


def corpus_meteor(hyps: Sequence[str], refs: Sequence[str]) -> float:
    """METEOR 1.5 (``java -jar meteor-1.5.jar - - -stdio -l en -norm``, pycocoevalcap's wrapper), corpus score.

    Line breaks inside a text would break the jar's line protocol; they are replaced by spaces (``_one_line``).
    """
    _same_length(hyps, refs)
    if not hyps:
        return 0.0
    with _meteor_jar() as scorer:
        gts = {i: [_one_line(r)] for i, r in enumerate(refs)}
        res = {i: [_one_line(h)] for i, h in enumerate(hyps)}
        try:
            corpus, _ = scorer.compute_score(gts, res)
        except ValueError as err:  # the jar answered something that is not a score
            raise ClarionError(f"the METEOR jar broke its line protocol: {str(err)[:80]}") from None
    return float(corpus)


@contextmanager
def meteor_statistic(hyps: Sequence[str], refs: Sequence[str]) -> Iterator[Callable[[Sequence[int]], float]]:
    """Yield ``statistic(rows)``: the corpus METEOR of the turns at positions ``rows`` (repeats allowed), for
    :func:`clarion.evaluate.result.bootstrap`. The jar aligns each turn once; a resample only re-aggregates
    the turns' statistics (its ``EVAL`` command), so ``statistic(range(n))`` equals :func:`corpus_meteor`."""
    with _meteor_jar() as scorer:
        stats = [scorer._stat(_one_line(h), [_one_line(r)]) for h, r in zip(hyps, refs, strict=True)]

        def statistic(rows: Sequence[int]) -> float:
            scorer.meteor_p.stdin.write(("EVAL ||| " + " ||| ".join(stats[i] for i in rows) + "\n").encode())
            scorer.meteor_p.stdin.flush()
            for _ in rows:  # the per-turn scores, then the corpus score
                scorer.meteor_p.stdout.readline()
            return float(scorer.meteor_p.stdout.readline().strip())

        yield statistic


def _one_line(text: str) -> str:
    """A text the jar's line protocol can carry: line breaks (Java reads ``\\r`` as one too) become spaces and
    the field separator ``|||`` is removed (pycocoevalcap removes it from hypotheses only)."""
    return text.replace("\r", " ").replace("\n", " ").replace("|||", "")


JAVA_MISSING = (
    "DSTC11 METEOR needs `java` on PATH for pycocoevalcap's meteor-1.5 jar: apt-get install default-jre-headless "
    "on Debian/Ubuntu (elsewhere any Java 8+ runtime), or pass --no-meteor to score without METEOR"
)


@contextmanager
def _meteor_jar():
    """pycocoevalcap's METEOR 1.5 process, shut down on exit."""
    if shutil.which("java") is None:
        raise ClarionError(JAVA_MISSING)
    from pycocoevalcap.meteor.meteor import Meteor

    scorer = Meteor()
    try:
        yield scorer
    finally:
        if scorer.lock.locked():  # compute_score failed half-way; Meteor.__del__ would wait on it forever
            scorer.lock.release()
        scorer.meteor_p.stdin.close()
        scorer.meteor_p.kill()
        scorer.meteor_p.wait()
        scorer.meteor_p.stdout.close()
        scorer.meteor_p.stderr.close()


def rouge_turns(hyps: Sequence[str], refs: Sequence[str]) -> dict[str, list[float]]:
    """ROUGE-1/2/L F-measure (``rouge_score``, Porter stemmer) of each turn."""
    from rouge_score import rouge_scorer

    _same_length(hyps, refs)
    scorer = rouge_scorer.RougeScorer(["rouge1", "rouge2", "rougeL"], use_stemmer=True)
    turns: dict[str, list[float]] = {"rouge_1": [], "rouge_2": [], "rouge_l": []}
    for hyp, ref in zip(hyps, refs, strict=True):
        scores = scorer.score(ref, hyp)
        turns["rouge_1"].append(scores["rouge1"].fmeasure)
        turns["rouge_2"].append(scores["rouge2"].fmeasure)
        turns["rouge_l"].append(scores["rougeL"].fmeasure)
    return turns


def rouge_sums(hyps: Sequence[str], refs: Sequence[str]) -> dict[str, float]:
    """ROUGE-1/2/L F-measure summed over the turns."""
    return {key: sum(values, 0.0) for key, values in rouge_turns(hyps, refs).items()}


def generation_scores(hyps: Sequence[str], refs: Sequence[str], meteor: bool = True) -> dict[str, float]:
    """Unweighted generation scores of the detection true positives (BLEU, METEOR, mean ROUGE F)."""
    n = len(hyps)
    scores = {"bleu": corpus_bleu(hyps, refs) if n else 0.0}
    if meteor:
        scores["meteor"] = corpus_meteor(hyps, refs)
    scores.update({k: (v / n if n else 0.0) for k, v in rouge_sums(hyps, refs).items()})
    return scores


def score(
    refs: Sequence[dict[str, Any]],
    hyps: Sequence[dict[str, Any]],
    *,
    meteor: bool = True,
    generation: bool = True,
) -> dict:
    """Official DSTC11 Track 5 scores of ``hyps`` (system output objects) against ``refs`` (``labels.json``).

    Returns ``{"detection": {prec, rec, f1}, "selection": {prec, rec, f1, em_acc},
    "generation": {bleu, meteor, rouge_1, rouge_2, rouge_l}}``. ``meteor=False`` skips the Java run (and the
    ``meteor`` entry); ``generation=False`` leaves out the generation block. Lists of different lengths, and
    entries the labels schema refuses (:class:`~clarion.errors.DataError` naming the entry and field), are refused.
    """
    refs, hyps = check_labels(refs, Format.DSTC11, "refs"), check_labels(hyps, Format.DSTC11, "hyps")
    if len(refs) != len(hyps):
        raise InputError(f"{len(hyps)} predictions for {len(refs)} labelled turns; one per turn is required")
    tp = fp = fn = 0
    gen_refs: list[str] = []
    gen_hyps: list[str] = []
    for ref, hyp in zip(refs, hyps, strict=True):
        if ref["target"] is True and hyp["target"] is True:
            tp += 1
            gen_refs.append(ref["response"])
            gen_hyps.append(hyp["response"])
        elif ref["target"] is True:
            fn += 1
        elif hyp["target"] is True:
            fp += 1
    det_p, det_r, det_f = _prf(tp, fp, fn)
    sel = selection_counts(refs, hyps)
    sel_p, sel_r, sel_f = _prf(sel["tp"], sel["fp"], sel["fn"])
    scores = {
        "detection": {"prec": det_p, "rec": det_r, "f1": det_f},
        "selection": {
            "prec": sel_p,
            "rec": sel_r,
            "f1": sel_f,
            "em_acc": sel["exact"] / sel["turns"] if sel["turns"] else 0.0,
        },
    }
    if generation:
        gen = generation_scores(gen_hyps, gen_refs, meteor=meteor)
        scores["generation"] = {name: value * det_f for name, value in gen.items()}
    return scores

"""Train cross-validation of the DSTC pipeline: every train-split turn predicted by a model that never saw its dialogue.

The dstc11_track5 train split's dialogues go into ``--folds`` folds (``clarion.data.dstc_split.dialogue_folds``, as in
``benchmarks/dstc_generate.py --part oof``); each fold is predicted (detection, entity, snippets, response) by a model
trained on the other folds with the default configuration and the ``--config`` overrides. The out-of-fold
predictions are written to ``--out`` (the track's labels format, one object per train-split turn) and scored with the
official DSTC11 scorer against the train labels. No dev data is read: this is where a change is chosen.

``--compare BASE.json`` pairs the predictions with an earlier run's: how many turns changed their detection, their
snippets and their response, and per metric the paired difference with its bootstrap 95% interval over the turns
(ROUGE per turn; BLEU and selection F1 recomputed per resample).

``--pred FILE`` scores (and with ``--compare`` pairs) an earlier run's predictions without training anything;
``--closings`` adds where BLEU's words are (the closing questions' share and precision against the bodies').

Run: ``python benchmarks/dstc_cv.py --out oof_base.json`` (about 7 minutes on 2 cores), then e.g.
``python benchmarks/dstc_cv.py --config '{"consensus_k": 20}' --out oof_k20.json --compare oof_base.json``.
``--config`` takes a JSON object of ``PipelineConfig`` fields; ``detect``, ``select`` and ``lm`` take objects of
their own fields, merged into the defaults.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time

import numpy as np


def merged(config, overrides: dict, option: str = "--config"):
    """A new ``PipelineConfig``: ``config`` with ``overrides`` merged in (``detect``, ``select`` and ``lm`` take
    objects of their own fields; :func:`clarion.dstc.models.options.with_overrides`) and checked as any configuration
    is; a bad field or value is a one-line exit naming ``option``."""
    from clarion.dstc.models.options import with_overrides
    from clarion.errors import InputError

    try:
        return with_overrides(config, overrides, option)
    except InputError as err:
        raise SystemExit(str(err)) from None


def configured(overrides: dict):
    """The default pipeline configuration with ``overrides`` merged in (:func:`merged`)."""
    from clarion.dstc.models.default import default_config

    return merged(default_config(), overrides)


def out_of_fold(data, config, folds: int, only: list[int] | None = None) -> list:
    """One prediction per context of ``data``, each from the model trained on the other folds (``only``: the
    contexts of those folds alone, in order)."""
    from clarion.data.dstc_split import dialogue_folds
    from clarion.dstc.models.train import train

    fold = np.array(dialogue_folds(data.contexts, folds))
    predictions: list = [None] * len(data.contexts)
    for k in range(folds) if only is None else only:
        start = time.perf_counter()
        held_out = np.flatnonzero(fold == k)
        model, _ = train(data.subset(np.flatnonzero(fold != k)), config)
        for i, label in zip(held_out, model.predict(data.subset(held_out)), strict=True):
            predictions[i] = label
        print(f"  fold {k + 1}/{folds}: {len(held_out)} turns, {time.perf_counter() - start:.0f} s", file=sys.stderr)
    return predictions if only is None else [predictions[i] for i in in_folds(data, folds, only)]


def in_folds(data, folds: int, only: list[int]) -> list[int]:
    """The indices of ``data``'s contexts in the folds ``only`` (of ``folds`` dialogue folds), in order."""
    from clarion.data.dstc_split import dialogue_folds

    fold = np.array(dialogue_folds(data.contexts, folds))
    return [int(i) for i in np.flatnonzero(np.isin(fold, only))]


def add_fold_option(parser: argparse.ArgumentParser) -> None:
    """``--folds N`` (5) and ``--fold K ...``: held-out folds measured alone."""
    parser.add_argument("--folds", type=int, default=5)
    parser.add_argument(
        "--fold",
        type=int,
        nargs="+",
        default=None,
        metavar="K",
        help="only these held-out folds (0-based): their models alone are trained and their turns alone scored",
    )


def used_folds(parser: argparse.ArgumentParser, args) -> list[int]:
    """The held-out folds ``--fold`` names (every fold without it), checked."""
    used = list(range(args.folds)) if args.fold is None else sorted(set(args.fold))
    if args.folds < 2 or not all(0 <= k < args.folds for k in used):
        parser.error(f"--folds must be at least 2 and each --fold in 0..{args.folds - 1}")
    return used


def print_scores(refs: list[dict], hyps: list[dict], meteor: bool) -> dict:
    from clarion.evaluate.dstc11 import score

    scores = score(refs, hyps, meteor=meteor)
    for block, values in scores.items():
        print(f"{block}: " + ", ".join(f"{k} {v:.4f}" for k, v in values.items()))
    return scores


def compare(
    refs: list[dict], hyps: list[dict], base: list[dict], resamples: int, turns: list[str], show: int, meteor=False
) -> None:
    """Changed turns (the first ``show`` printed: the user's turn, the base's and this run's response, the gold) and
    paired bootstrap differences (variant - base) over the turns (with ``meteor``, METEOR's too)."""
    from clarion.evaluate.dstc11 import bleu_statistic, rouge_turns, selected_keys
    from clarion.evaluate.result import bootstrap

    if len(base) != len(hyps):
        raise SystemExit(f"--compare: {len(base)} predictions, this run has {len(hyps)}")
    det = sum(h["target"] != b["target"] for h, b in zip(hyps, base, strict=True))
    sel = sum(selected_keys(h) != selected_keys(b) for h, b in zip(hyps, base, strict=True))
    both = [
        i
        for i, (r, h, b) in enumerate(zip(refs, hyps, base, strict=True))
        if r["target"] and h["target"] and b["target"]
    ]
    said = sum(hyps[i].get("response") != base[i].get("response") for i in both)
    print(f"changed: detection {det}, snippets {sel}, responses {said} (of {len(both)} turns both detect)")
    changed = [i for i in range(len(hyps)) if hyps[i] != base[i]]
    for i in changed[:show]:
        print(f"  [{i}] {turns[i]!r}\n    base: {base[i].get('response')}\n    this: {hyps[i].get('response')}")
        print(f"    gold: {refs[i].get('response')}")
    if not both:
        return
    gold = [refs[i]["response"] for i in both]
    new, old = [hyps[i]["response"] for i in both], [base[i]["response"] for i in both]
    n = len(both)
    bleu_new, bleu_old = bleu_statistic(new, gold), bleu_statistic(old, gold)
    out = [("bleu", bootstrap(n, lambda r: bleu_new(r) - bleu_old(r), resamples))]
    a, b = rouge_turns(new, gold), rouge_turns(old, gold)
    for key in a:
        d = np.asarray(a[key]) - np.asarray(b[key])
        out.append((key, bootstrap(n, lambda r, d=d: d[r].mean(axis=-1), resamples, vectorised=True)))
    if meteor:
        out.append(("meteor", paired_meteor(new, old, gold, resamples)))
    for key, interval in out:
        print(f"  {key}: {interval.value:+.4f} (95% {interval.low:+.4f} to {interval.high:+.4f})")

    def f1(rows, preds):
        tp = fp = fn = 0
        for i in rows:
            g, p = selected_keys(refs[i]), selected_keys(preds[i])
            tp, fp, fn = tp + len(g & p), fp + len(p - g), fn + len(g - p)
        return 2 * tp / (2 * tp + fp + fn) if tp else 0.0

    turns = [
        i for i, (r, h, b) in enumerate(zip(refs, hyps, base, strict=True)) if r["target"] or h["target"] or b["target"]
    ]
    interval = bootstrap(
        len(turns), lambda r: f1([turns[i] for i in r], hyps) - f1([turns[i] for i in r], base), resamples
    )
    print(f"  selection f1: {interval.value:+.4f} (95% {interval.low:+.4f} to {interval.high:+.4f})")


def closing_report(refs: list[dict], hyps: list[dict]) -> None:
    """Where BLEU's words are: how many references and responses close with a question, the closing questions'
    share of the responses' words, and the n-gram precision of the bodies and of the closing questions (the closings'
    matches are the whole responses' less the bodies'), on the turns both detect."""
    import sacrebleu

    from clarion.respond.follow_up import split_follow_up

    both = [i for i, (r, h) in enumerate(zip(refs, hyps, strict=True)) if r["target"] and h["target"]]
    if not both:
        return
    gold, said = [refs[i]["response"] for i in both], [hyps[i]["response"] for i in both]
    parts = [split_follow_up(text) for text in said]
    bodies = [body for body, _ in parts]
    whole, part = sacrebleu.corpus_bleu(said, [gold]), sacrebleu.corpus_bleu(bodies, [gold])
    closing = [
        (w - b) / max(tw - tb, 1)
        for w, b, tw, tb in zip(whole.counts, part.counts, whole.totals, part.totals, strict=True)
    ]
    asks = [
        sum(split_follow_up(text)[1] is not None for text in gold) / len(gold),
        sum(question is not None for _, question in parts) / len(parts),
    ]
    print(
        f"closing questions: references {asks[0]:.0%}, responses {asks[1]:.0%}; "
        f"{1 - part.sys_len / max(whole.sys_len, 1):.0%} of the responses' words"
    )
    print(
        "  n-gram precision, bodies: "
        + " / ".join(f"{100 * c / max(t, 1):.1f}" for c, t in zip(part.counts, part.totals, strict=True))
    )
    print("  n-gram precision, closing questions: " + " / ".join(f"{100 * c:.1f}" for c in closing))
    print(f"  BLEU of the bodies alone {part.score / 100:.4f} (brevity penalty {part.bp:.3f})")


def paired_meteor(new: list[str], old: list[str], gold: list[str], resamples: int):
    """The paired bootstrap interval of corpus METEOR, ``new`` - ``old`` against ``gold``: one jar aligns every turn
    of both once; each resample re-aggregates the same turns of each
    (:func:`~clarion.evaluate.dstc11.meteor_statistic`)."""
    from clarion.evaluate.dstc11 import meteor_statistic
    from clarion.evaluate.result import bootstrap

    n = len(new)
    with meteor_statistic(new + old, gold + gold) as statistic:
        return bootstrap(n, lambda rows: statistic(list(rows)) - statistic([i + n for i in rows]), resamples)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--config", default="{}", help="JSON object of PipelineConfig overrides")
    add_fold_option(parser)
    parser.add_argument("--out", help="where to write the out-of-fold predictions (JSON)")
    parser.add_argument("--pred", help="score these out-of-fold predictions (an earlier --out) instead of running")
    parser.add_argument("--compare", default=None, help="an earlier run's --out to pair with")
    parser.add_argument(
        "--meteor",
        action="store_true",
        help="also METEOR 1.5 (Java); with --compare, paired",
    )
    parser.add_argument("--resamples", type=int, default=1000, help="--compare: bootstrap resamples")
    parser.add_argument(
        "--closings", action="store_true", help="also where BLEU's words are: bodies, closing questions"
    )
    parser.add_argument("--show", type=int, default=0, metavar="N", help="--compare: print the first N changed turns")
    args = parser.parse_args()
    used_folds(parser, args)
    if (args.out is None) == (args.pred is None):
        parser.error("give one of --out (run the cross-validation) and --pred (score an earlier run)")
    if args.compare is not None and not os.path.isfile(args.compare):  # before the minutes of training, not after
        parser.error(f"--compare {args.compare}: no such file")
    try:
        overrides = json.loads(args.config)
    except json.JSONDecodeError as err:
        parser.error(f"--config is not JSON: {err}")
    if not isinstance(overrides, dict):
        parser.error("--config must be a JSON object")

    from threadpoolctl import threadpool_limits

    from clarion.data.dstc import Format, load_dataset, predictions_to_json, write_predictions
    from clarion.data.dstc_split import split_dataset
    from clarion.data.location import dataset_dir

    data = split_dataset(load_dataset(dataset_dir("dstc11_track5")), "train")
    scored = data if args.fold is None else data.subset(in_folds(data, args.folds, args.fold))
    refs = predictions_to_json(scored.labels, Format.DSTC11)
    if args.pred:
        with open(args.pred, encoding="utf-8") as handle:
            hyps = json.load(handle)
        if len(hyps) != len(refs):
            raise SystemExit(f"{args.pred}: {len(hyps)} predictions for {len(refs)} train-split turns")
    else:
        config = configured(overrides)
        held = "" if args.fold is None else f", held-out folds {args.fold} only ({len(refs)} turns)"
        print(f"train CV: {len(data.contexts)} train-split turns, {args.folds} folds{held}, config {overrides}")
        with threadpool_limits(2):
            predictions = out_of_fold(data, config, args.folds, args.fold)
        write_predictions(args.out, predictions, data.format, n_contexts=len(refs), knowledge=data.knowledge)
        hyps = predictions_to_json(predictions, data.format)
    print_scores(refs, hyps, args.meteor)
    if args.closings:
        closing_report(refs, hyps)
    if args.compare:
        with open(args.compare, encoding="utf-8") as handle:
            base = json.load(handle)
        compare(refs, hyps, base, args.resamples, [c.last_user_text for c in scored.contexts], args.show, args.meteor)


if __name__ == "__main__":
    main()

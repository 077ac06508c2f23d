"""What each named rule is worth: train cross-validation with the rule switched off, one rule at a time.

The dstc11_track5 train split's dialogues go into ``--folds`` folds (``clarion.data.dstc_split.dialogue_folds``, as in
``benchmarks/dstc_cv.py``). Each fold's model is trained once, on the other folds, with the default configuration;
the held-out fold is then predicted by that model as it is (the base) and once per rule of ``--rules`` with that rule
switched off. A prediction-time rule acts only when the model predicts, so this equals retraining without the rule, at
the cost of one prediction per rule; a rule that training reads (``Rule.training``) gets its own fold models, trained
with the rule switched off.

Per rule it prints, against the base, the paired difference of each metric with its bootstrap 95% interval over the
turns: detection F1, selection F1, BLEU-4 and ROUGE-L of the responses (``dstc_cv.py --compare``'s statistics), and
the turns whose detection, snippets or response changed. ``--out DIR`` keeps the fold predictions per variant
(``folds<N>.json``: resumed when the script is run again; ``--rules`` may then name the finished rules only) and the
out-of-fold predictions per variant (``base.json``, ``no_<rule>.json``, the track's labels format; ``dstc_cv.py
--pred`` scores them).

Run: ``python benchmarks/dstc_rules_cv.py --out rules_cv`` (every rule), or ``--rules ask_entity``.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))


def variants(rules: list[str]) -> dict[str, dict]:
    """``{"base": {}, "no_<rule>": {rule: None}, ...}``: rule overrides per variant."""
    return {"base": {}, **{f"no_{rule}": {rule: None} for rule in rules}}


def fold_models(data, config, fold: np.ndarray, used: list[int]) -> list:
    """Per used fold ``k``: the model trained on the other folds, its held-out turns and their prepared knowledge."""
    from clarion.dstc.models.train import train

    out = []
    for k in used:
        start = time.perf_counter()
        model, _ = train(data.subset(np.flatnonzero(fold != k)), config)
        part = data.subset(np.flatnonzero(fold == k))
        out.append((model, part, model.prepare(part.knowledge)))
        print(f"  fold {k} trained: {time.perf_counter() - start:.0f} s", file=sys.stderr, flush=True)
    return out


def counts(refs: list[dict], hyps: list[dict]) -> np.ndarray:
    """Per turn, (tp, fp, fn) of detection and of selection: a (n, 6) array whose column sums give both F1s."""
    from clarion.evaluate.dstc11 import selected_keys

    rows = []
    for ref, hyp in zip(refs, hyps, strict=True):
        r, h = bool(ref["target"]), bool(hyp["target"])
        g, p = selected_keys(ref), selected_keys(hyp)
        rows.append((r and h, h and not r, r and not h, len(g & p), len(p - g), len(g - p)))
    return np.asarray(rows, dtype=float)


def f1s(sums: np.ndarray) -> np.ndarray:
    """Detection and selection F1 from summed counts (``(..., 6)`` -> ``(..., 2)``)."""
    tp, fp, fn = sums[..., [0, 3]], sums[..., [1, 4]], sums[..., [2, 5]]
    return np.where(tp > 0, 2 * tp / np.maximum(2 * tp + fp + fn, 1), 0.0)


def paired(refs: list[dict], hyps: list[dict], base: list[dict], resamples: int) -> dict:
    """Variant - base per metric, each a bootstrap interval over the turns (responses: the turns all three detect)."""
    from clarion.evaluate.dstc11 import bleu_statistic, rouge_turns
    from clarion.evaluate.result import bootstrap

    n = len(refs)
    new, old = counts(refs, hyps), counts(refs, base)

    def delta(column: int):
        return lambda r: f1s(new[r].sum(axis=-2))[..., column] - f1s(old[r].sum(axis=-2))[..., column]

    out = {
        "detection_f1": bootstrap(n, delta(0), resamples, vectorised=True),
        "selection_f1": bootstrap(n, delta(1), resamples, vectorised=True),
    }
    both = [i for i in range(n) if refs[i]["target"] and hyps[i]["target"] and base[i]["target"]]
    if both:
        gold = [refs[i]["response"] for i in both]
        said, was = [hyps[i]["response"] for i in both], [base[i]["response"] for i in both]
        bleu_new, bleu_old = bleu_statistic(said, gold), bleu_statistic(was, gold)
        out["bleu"] = bootstrap(len(both), lambda r: bleu_new(r) - bleu_old(r), resamples)
        d = np.asarray(rouge_turns(said, gold)["rouge_l"]) - np.asarray(rouge_turns(was, gold)["rouge_l"])
        out["rouge_l"] = bootstrap(len(both), lambda r: d[r].mean(axis=-1), resamples, vectorised=True)
    return out


def changed(hyps: list[dict], base: list[dict]) -> str:
    from clarion.evaluate.dstc11 import selected_keys

    det = sum(h["target"] != b["target"] for h, b in zip(hyps, base, strict=True))
    sel = sum(selected_keys(h) != selected_keys(b) for h, b in zip(hyps, base, strict=True))
    said = sum(h.get("response") != b.get("response") for h, b in zip(hyps, base, strict=True))
    return f"{det}/{sel}/{said}"


def predict_variants(data, config, fold: np.ndarray, used: list[int], wanted: dict, path: Path) -> dict:
    """``{variant: {fold: labels}}`` for every variant and used fold, resumed from ``path`` (rewritten after each)."""
    from clarion.rules import RULES

    saved = json.loads(path.read_text()) if path.exists() else {}
    todo = [name for name in wanted if any(str(k) not in saved.get(name, {}) for k in used)]
    shared = [n for n in todo if not any(RULES[r].training for r in wanted[n])]
    models = fold_models(data, config, fold, used) if shared else []
    todo = shared + [n for n in todo if n not in shared]  # the variants that retrain go last
    for name in todo:  # one variant at a time over every fold: each finished variant is usable at once
        start = time.perf_counter()
        own = name not in shared  # a training rule switched off: train this variant's own fold models
        variant = config.with_rules(**wanted[name])
        for k, (model, part, prepared) in zip(
            used, fold_models(data, variant, fold, used) if own else models, strict=True
        ):
            if str(k) in saved.get(name, {}):
                continue
            model.config = variant
            labels = [label.to_json(part.format) for label in model.predict(part, prepared=prepared)]
            saved.setdefault(name, {})[str(k)] = labels
            path.write_text(json.dumps(saved))
        print(f"  {name}: {time.perf_counter() - start:.0f} s", file=sys.stderr, flush=True)
    return saved


def report(refs: list[dict], merged: dict[str, list], resamples: int) -> None:
    """The table: per rule, the turns it changed and each metric's paired change against the base."""
    base = merged["base"]
    print("| rule | changed det/sel/resp | detection F1 | selection F1 | BLEU | ROUGE-L |")
    print("|---|---|---|---|---|---|")
    for name, hyps in merged.items():
        if name == "base":
            continue
        diffs = paired(refs, hyps, base, resamples)
        cells = [
            f"{iv.value:+.4f} ({iv.low:+.4f}, {iv.high:+.4f})" if (iv := diffs.get(m)) else "-"
            for m in ("detection_f1", "selection_f1", "bleu", "rouge_l")
        ]
        print(f"| {name[3:]} | {changed(hyps, base)} | " + " | ".join(cells) + " |", flush=True)


def main() -> None:
    from dstc_cv import add_fold_option, used_folds

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rules", nargs="*", default=None, help="rule names (default: every rule the default uses)")
    add_fold_option(parser)
    parser.add_argument("--out", required=True, help="directory for the fold and out-of-fold predictions")
    parser.add_argument("--resamples", type=int, default=1000)
    args = parser.parse_args()
    from dstc_cv import configured

    from clarion.data.dstc import Format, load_dataset, predictions_to_json
    from clarion.data.dstc_split import dialogue_folds, split_dataset
    from clarion.data.location import dataset_dir

    config = configured({})
    rules = args.rules if args.rules is not None else list(config.rules)
    bad = [r for r in rules if r not in config.rules]
    if bad:
        parser.error(f"--rules: {bad[0]!r} is not a rule the default configuration uses")
    used = used_folds(parser, args)
    data = split_dataset(load_dataset(dataset_dir("dstc11_track5")), "train")
    fold = np.array(dialogue_folds(data.contexts, args.folds))
    scored = np.flatnonzero(np.isin(fold, used))  # the turns of the used folds, in order
    refs = predictions_to_json(data.subset(scored).labels, Format.DSTC11)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    wanted = variants(rules)
    saved = predict_variants(data, config, fold, used, wanted, out / f"folds{args.folds}.json")
    at = {int(i): n for n, i in enumerate(scored)}
    merged: dict[str, list] = {}
    for name in wanted:
        merged[name] = [None] * len(refs)
        for k in used:
            for i, label in zip(np.flatnonzero(fold == k), saved[name][str(k)], strict=True):
                merged[name][at[int(i)]] = label
        (out / f"{name}.json").write_text(json.dumps(merged[name]))
    d, s = f1s(counts(refs, merged["base"]).sum(axis=0))
    print(f"base: detection F1 {d:.4f}, selection F1 {s:.4f} ({len(refs)} turns, folds {used} of {args.folds})")
    report(refs, merged, args.resamples)


if __name__ == "__main__":
    main()

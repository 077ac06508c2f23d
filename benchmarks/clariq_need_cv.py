"""Clarification-need model selection: repeated stratified CV over train+dev, and dev scored train-only.

    python benchmarks/clariq_need_cv.py [--repeats 5] [--splits 5] [--quick]

Prints markdown tables:

1. classifiers (default feature groups): CV weighted F1 mean +- std over train+dev (237 topics, repeated
   stratified K-fold, official scorer), and dev P/R/F1 of the same configuration trained on train only;
2. feature-group ablation: the default groups, each hand-crafted one left out, the embedding view left
   out, each group alone, and the question-set embedding as the second view;
3. the default model's dev confusion matrix (trained on train only) and the bootstrap standard error of its dev F1
   over the dev topics.

Features are label-free and computed once per request (the pool of known requests is train+dev+test), so
every configuration sees identical inputs; only the classifier is refitted per fold.
"""

from __future__ import annotations

import argparse
import sys
import time
from dataclasses import replace

import numpy as np

from clarion.clariq.need import HAND_GROUPS, NeedConfig, feature_space, labelled
from clarion.data.clariq import ClariQ
from clarion.detect.classify import decide
from clarion.detect.cv import fit_decide, repeated_cv
from clarion.detect.features import ALL_GROUPS, GROUP_FEATURES, FeatureGroup, feature_names
from clarion.evaluate.clariq_official import clarification_need
from clarion.evaluate.result import bootstrap
from clarion.store import cpu_model


def columns(groups: tuple[str, ...]) -> list[int]:
    """Column indices of ``groups`` in the all-groups matrix."""
    out, offset = [], 0
    for group in ALL_GROUPS:
        width = len(GROUP_FEATURES[group])
        if group.value in groups:
            out.extend(range(offset, offset + width))
        offset += width
    return out


def dev_scores(config: NeedConfig, X: np.ndarray, y: np.ndarray, is_dev: np.ndarray):
    """Dev P/R/F1 (official scorer) of ``config`` trained on the train rows only, and the predictions."""
    cols = columns(config.groups)
    model, weights = fit_decide(config.make(), X[~is_dev][:, cols], y[~is_dev], config.tune_decision)
    pred = decide(model.predict_proba(X[is_dev][:, cols]), weights)
    gold = {str(i): int(v) for i, v in enumerate(y[is_dev])}
    means = clarification_need(gold, {str(i): int(v) for i, v in enumerate(pred)}).means
    return means, pred


def evaluate(config: NeedConfig, X, y, is_dev, args) -> str:
    cols = columns(config.groups)
    start = time.perf_counter()
    cv = repeated_cv(config.make(), X[:, cols], y, args.splits, args.repeats, tune_decision=config.tune_decision)
    dev, _ = dev_scores(config, X, y, is_dev)
    seconds = time.perf_counter() - start
    return (
        f"{cv.mean:.4f} ± {cv.std:.4f} | {dev['Precision']:.4f} | {dev['Recall']:.4f} | {dev['F1']:.4f} | "
        f"{len(cols)} | {seconds:.1f}"
    )


def confusion(gold: np.ndarray, pred: np.ndarray) -> str:
    rows = ["| gold \\ predicted | 1 | 2 | 3 | 4 |", "|---|---|---|---|---|"]
    for g in (1, 2, 3, 4):
        counts = [int(((gold == g) & (pred == p)).sum()) for p in (1, 2, 3, 4)]
        rows.append(f"| {g} | " + " | ".join(map(str, counts)) + " |")
    return "\n".join(rows)


def paired(a: NeedConfig, b: NeedConfig, X, y, args) -> str:
    """Fold-by-fold comparison of two configurations on the same CV folds (Wilcoxon signed-rank)."""
    from scipy.stats import wilcoxon

    sa, sb = (
        np.array(repeated_cv(c.make(), X[:, columns(c.groups)], y, args.splits, args.repeats).scores) for c in (a, b)
    )
    p = wilcoxon(sa, sb).pvalue if np.any(sa != sb) else 1.0
    return (
        f"mean difference {np.mean(sa - sb):+.4f}, wins {(sa > sb).sum()}, losses {(sa < sb).sum()} "
        f"of {len(sa)} folds, Wilcoxon p = {p:.3f}"
    )


def ablation(base: NeedConfig, hand: NeedConfig) -> list[tuple[str, NeedConfig]]:
    """Feature-group variants: the default, each hand-crafted group left out (views classifier), no
    embedding view, each group alone and the question-set embedding as the second view (logreg)."""
    out = [("default", base)]
    for group in HAND_GROUPS:
        kept = tuple(g for g in base.groups if g != group)
        out.append((f"without {group}", replace(base, groups=kept)))
    out.append(("without request-emb (logreg)", hand))
    out += [(f"only {g} (logreg)", replace(hand, groups=(g,))) for g in HAND_GROUPS]
    out.append(("only request-emb (logreg, C=0.03)", replace(hand, groups=("request-emb",), C=0.03)))
    out.append(("set-emb as the second view", replace(base, groups=(*HAND_GROUPS, "set-emb"))))
    return out


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--splits", type=int, default=5)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--quick", action="store_true", help="only the default configuration")
    args = parser.parse_args(argv)
    import torch

    torch.set_num_threads(1)
    data = ClariQ.load()
    start = time.perf_counter()
    requests, y = labelled(data, ("train", "dev"))
    is_dev = np.arange(len(y)) >= len(data.labels("train").need)
    X = feature_space(data).features(NeedConfig().read(requests), ALL_GROUPS)
    print(
        f"# ClariQ clarification need — {len(y)} train+dev topics, {X.shape[1]} features "
        f"({time.perf_counter() - start:.1f} s), {args.repeats}x{args.splits}-fold CV; "
        f"{cpu_model()}, 2-core CPU\n",
        file=sys.stdout,
    )
    header = "| {} | CV F1 mean ± std | dev P | dev R | dev F1 | features | seconds |\n|---|---|---|---|---|---|---|"
    base = NeedConfig()
    hand = replace(base, classifier="logreg", groups=HAND_GROUPS)
    print(header.format("classifier"))
    label = f"**default: {base.classifier} (C={base.C}), {'+'.join(base.groups)}**"
    print(f"| {label} | {evaluate(base, X, y, is_dev, args)} |", flush=True)
    if args.quick:
        variants = []
    else:
        variants = [("views, tuned decision", replace(base, tune_decision=True))]
        for name in ("logreg", "ordinal", "lgbm", "blend"):
            variants.append((f"{name}, hand-crafted groups", replace(hand, classifier=name)))
        variants.append(("logreg, hand-crafted groups, tuned decision", replace(hand, tune_decision=True)))
        variants += [(f"logreg C={C}, hand-crafted groups", replace(hand, C=C)) for C in (0.03, 0.3, 1.0)]
        variants.append(("logreg, one model on hand-crafted + request-emb", replace(base, classifier="logreg")))
    for label, config in variants:
        print(f"| {label} | {evaluate(config, X, y, is_dev, args)} |", flush=True)
    if not args.quick:
        print(f"\nPaired, default vs logreg on hand-crafted groups: {paired(base, hand, X, y, args)}")
        print("\n" + header.format("feature groups"))
        for label, config in ablation(base, hand):
            print(f"| {label} | {evaluate(config, X, y, is_dev, args)} |", flush=True)
    _, pred = dev_scores(base, X, y, is_dev)
    print("\nDefault model, dev (trained on train only), confusion matrix:\n")
    print(confusion(y[is_dev], pred))
    gold = y[is_dev]

    def f1(rows: np.ndarray) -> float:
        keyed = {str(j): int(gold[i]) for j, i in enumerate(rows)}
        return clarification_need(keyed, {str(j): int(pred[i]) for j, i in enumerate(rows)}).means["F1"]

    b = bootstrap(len(gold), f1, resamples=2_000)
    print(
        f"\nDefault model, dev F1 {b.value:.4f}: bootstrap SE over the {len(gold)} dev topics {b.se:.4f}, "
        f"95% interval {b.low:.4f}-{b.high:.4f} (2,000 resamples)"
    )
    print(f"\nhand-crafted features: {', '.join(feature_names([FeatureGroup(g) for g in HAND_GROUPS]))}")


if __name__ == "__main__":
    main()

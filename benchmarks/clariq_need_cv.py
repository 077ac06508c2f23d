"""Clarification-need model selection: repeated stratified CV over train+dev, and dev scored train-only.

    python benchmarks/clariq_need_cv.py [--repeats 5] [--splits 5] [--quick]

Prints markdown tables:

1. classifiers (default feature groups): CV weighted F1 mean +- std over train+dev (237 topics, repeated
   stratified K-fold, official scorer), and dev P/R/F1 of the same configuration trained on train only;
2. feature-group ablation (default classifier): the default groups, each one left out, each one alone, and
   the embedding groups added;
3. the default model's dev confusion matrix (trained on train only).

Features are label-free and computed once per request (the pool of known requests is train+dev+test), so
every configuration sees identical inputs; only the classifier is refitted per fold.
"""

from __future__ import annotations

import argparse
import platform
import sys
import time
from dataclasses import replace

import numpy as np

from clarion.clariq.need import DEFAULT_GROUPS, NeedConfig, feature_space, labelled
from clarion.data.clariq import ClariQ
from clarion.detect.classify import CLASSIFIERS, decide
from clarion.detect.cv import fit_decide, repeated_cv
from clarion.detect.features import ALL_GROUPS, GROUP_FEATURES, FeatureGroup, feature_names
from clarion.evaluate.clariq_official import clarification_need


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
    X = feature_space(data).features(requests, ALL_GROUPS)
    print(
        f"# ClariQ clarification need — {len(y)} train+dev topics, {X.shape[1]} features "
        f"({time.perf_counter() - start:.1f} s), {args.repeats}x{args.splits}-fold CV; "
        f"{platform.processor() or platform.machine()}, 2-core CPU\n",
        file=sys.stdout,
    )
    header = "| {} | CV F1 mean ± std | dev P | dev R | dev F1 | features | seconds |\n|---|---|---|---|---|---|---|"
    base = NeedConfig()
    print(header.format("classifier (default groups)"))
    label = f"**default: {base.classifier}, C={base.C}, tune={base.tune_decision}**"
    print(f"| {label} | {evaluate(base, X, y, is_dev, args)} |")
    if not args.quick:
        for name in CLASSIFIERS:
            for tune in (False, True):
                config = replace(base, classifier=name, tune_decision=tune)
                if config != base:
                    print(f"| {name}, tune={tune} | {evaluate(config, X, y, is_dev, args)} |", flush=True)
        for C in (0.03, 0.1, 1.0):
            config = replace(base, C=C)
            print(f"| {base.classifier}, C={C} | {evaluate(config, X, y, is_dev, args)} |", flush=True)
        print("\n" + header.format("feature groups (default classifier)"))
        variants = [("default: " + "+".join(DEFAULT_GROUPS), DEFAULT_GROUPS)]
        variants += [(f"without {g}", tuple(x for x in DEFAULT_GROUPS if x != g)) for g in DEFAULT_GROUPS]
        variants += [(f"only {g}", (g,)) for g in DEFAULT_GROUPS]
        variants += [
            (f"with {g.value}", (*DEFAULT_GROUPS, g.value)) for g in (FeatureGroup.REQUEST_EMB, FeatureGroup.SET_EMB)
        ]
        variants += [("only request-emb", ("request-emb",))]
        for label, groups in variants:
            config = replace(base, groups=groups)
            print(f"| {label} | {evaluate(config, X, y, is_dev, args)} |", flush=True)
    _, pred = dev_scores(base, X, y, is_dev)
    print("\nDefault model, dev (trained on train only), confusion matrix:\n")
    print(confusion(y[is_dev], pred))
    print(f"\nfeature names: {', '.join(feature_names([FeatureGroup(g) for g in DEFAULT_GROUPS]))}")


if __name__ == "__main__":
    main()

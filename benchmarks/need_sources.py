"""Leave-one-source-out cross-validation of the P(unclear) model (:mod:`clarion.detect.unclear`).

    python benchmarks/need_sources.py [--sources clariq ambignq everyday] [--ablate] [--within] [--C 0.03 0.1 0.3]
        [--class-balance 0 0.5 0.75 1]

Sources: ClariQ train+dev need labels (1 clear, 2-4 unclear), AmbigNQ train (ambiguous or not) and clarion's
everyday requests (ask or not). For each configuration, each source is left out in turn: the model is trained on the
others and scored on it (area under the ROC curve, balanced accuracy of asking at P >= 0.5); ``within`` also scores
each source by 5-fold cross-validation with the other sources always in training. ``--ablate`` drops one feature
group at a time. The feature groups and source weights were chosen by the best mean left-out AUC; class_balance by
the mean of AUC and balanced accuracy over the left-out and within cells (docs/clarify.md).
"""

from __future__ import annotations

import argparse
import time
from dataclasses import replace

import numpy as np


def load_sources(names, data_dir=None) -> dict[str, tuple[list[str], np.ndarray]]:
    """Requests and labels (1 = unclear) of each named source, as the model for any request trains on them."""
    from clarion.dialogue.any_request import sources

    rows = sources(data_dir)
    return {n: ([r.request for r in rows[n]], np.asarray([r.ask for r in rows[n]], dtype=int)) for n in names}


def balanced_accuracy(y, p, threshold=0.5) -> float:
    ask = p >= threshold
    return 0.5 * (ask[y == 1].mean() + (~ask[y == 0]).mean())


def evaluate(inputs, sources, config, within=False, seed=0) -> dict:
    """Left-out (and, with ``within``, 5-fold within-source) AUC and balanced accuracy per source."""
    from sklearn.metrics import roc_auc_score
    from sklearn.model_selection import StratifiedGroupKFold

    from clarion.detect.unclear import Inputs, UnclearModel

    out = {}
    for held in sources:
        rest = [s for s in sources if s != held]
        train = Inputs.join([inputs[s] for s in rest])
        yt = np.concatenate([sources[s][1] for s in rest])
        st = [s for s in rest for _ in range(len(sources[s][1]))]
        p, y = UnclearModel.fit(train, yt, st, config).probability(inputs[held]), sources[held][1]
        row = {"auc": roc_auc_score(y, p), "bacc": balanced_accuracy(y, p)}
        if within:
            pw = np.zeros(len(y))
            blocks = np.arange(len(y)) // 10  # neighbours stay together: the everyday set's twins are adjacent
            for tr, te in StratifiedGroupKFold(5, shuffle=True, random_state=seed).split(y, y, blocks):
                both = Inputs.join([train, inputs[held].take(tr)])
                m = UnclearModel.fit(both, np.concatenate([yt, y[tr]]), st + [held] * len(tr), config)
                pw[te] = m.probability(inputs[held].take(te))
            row |= {"within_auc": roc_auc_score(y, pw), "within_bacc": balanced_accuracy(y, pw)}
        out[held] = row
    return out


def inputs_of(sources) -> dict:
    """What the model reads of each source's requests (embeddings cached on disk)."""
    from clarion.detect.unclear import Inputs
    from clarion.retrieve.dense import encode_cached

    out = {}
    for name, (requests, y) in sources.items():
        start = time.perf_counter()
        out[name] = Inputs.of(requests, encode_cached(requests, name=f"need-{name}"))
        print(
            f"{name}: {len(requests)} requests, {y.mean():.2f} unclear, read in {time.perf_counter() - start:.0f} s",
            flush=True,
        )
    return out


def report(label, result) -> float:
    aucs = [r["auc"] for r in result.values()]
    cells = "  ".join(
        f"{s} {r['auc']:.3f}/{r['bacc']:.3f}"
        + (f" (within {r['within_auc']:.3f}/{r['within_bacc']:.3f})" if "within_auc" in r else "")
        for s, r in result.items()
    )
    print(f"{label:<28} mean AUC {np.mean(aucs):.3f}  {cells}", flush=True)
    return float(np.mean(aucs))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sources", nargs="+", default=["clariq", "ambignq", "everyday"])
    parser.add_argument("--C", nargs="+", type=float, default=[0.3])
    parser.add_argument("--ablate", action="store_true")
    parser.add_argument("--groups", nargs="+", help="the groups of the base configuration (default: all)")
    parser.add_argument("--balance", type=float, default=0.5, help="source_balance (1: sources weigh the same)")
    parser.add_argument("--within", action="store_true")
    parser.add_argument("--class-balance", nargs="+", type=float, default=[0.75], help="class_balance values to try")
    parser.add_argument("--data-dir")
    args = parser.parse_args()

    from clarion.detect.unclear import DEFAULT_GROUPS, GROUPS, UnclearConfig

    sources = load_sources(args.sources, args.data_dir)
    inputs = inputs_of(sources)
    print("left-out AUC / balanced accuracy per source", flush=True)
    for C in args.C:
        for classes in args.class_balance:
            base = UnclearConfig(
                groups=args.groups or DEFAULT_GROUPS, C=C, source_balance=args.balance, class_balance=classes
            )
            label = f"{'+'.join(base.groups)} C={C:g} balance={args.balance:g} classes={classes:g}"
            report(label, evaluate(inputs, sources, base, args.within))
        if not args.ablate:
            continue
        variants = {f"  without {g}": replace(base, groups=[x for x in base.groups if x != g]) for g in base.groups}
        variants |= {f"  with {g}": replace(base, groups=[*base.groups, g]) for g in GROUPS if g not in base.groups}
        variants["  only embedding"] = replace(base, groups=["embedding"])
        variants["  sources weigh by their size"] = replace(base, source_balance=0.0)
        variants["  every source weighs the same"] = replace(base, source_balance=1.0)
        for label, config in variants.items():
            report(label, evaluate(inputs, sources, config, args.within))


if __name__ == "__main__":
    main()

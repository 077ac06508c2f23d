"""Leave-one-source-out reply ranking: every method trained on all sources but one, scored on the one left out.

    python benchmarks/replies_sources.py [--methods random cosine quality ...] [--parts train dev]
        [--unweighted] [--balance no yes] [--versus cosine] [--out F.json]
        [--drop fit specificity engagement genericness] [--add shared_content]

The sources (``clarion.data.replies_convert.fine_sources``) are GRADE's convai2, dailydialog and
empatheticdialogues contexts (replies of real dialogue systems, rated 1-5 by people) and DailyDialog++ (people's
replies against constructed negatives). Only the contexts of the ``--parts`` of clarion's split are read (default
train and dev: the test part stays unread, as for every choice). Prints mean NDCG x 100,000 per left-out source and
the mean over sources, the figure a default is chosen by (``clarion.replies.sources``). ``--balance no yes`` trains
the methods that can weigh sources equally (``balanced``) both ways; ``--unweighted`` also trains every trained
method without the annotators' confidence and prints the paired bootstrap (over the left-out contexts) of
weighted minus unweighted, per source and over all left-out contexts. ``--versus cosine``: each method minus
cosine, the same bootstrap. ``--drop GROUP ...``: the default method (``quality-ensemble``) trained without each
group of features (``clarion.replies.quality.FEATURE_GROUPS``), the ablation; ``--add NAME ...``: trained with each
feature the default leaves out (``clarion.replies.quality.DEFAULT_FEATURES``) added back; ``--ablate METHOD``:
another method over these features instead.
"""

from __future__ import annotations

import argparse
import json
import time
from dataclasses import fields
from pathlib import Path

METHODS = ["random", "cosine", "matching", "lambdamart", "quality", "quality-trees", "quality-ensemble"]


def variants(name: str, args) -> list[tuple[bool, dict]]:
    """(weighted, options) to train ``name`` with."""
    from clarion.replies.methods import method_class

    kind = method_class(name)
    if not kind.trained:
        return [(True, {})]
    balanced = "balanced" in {f.name for f in fields(kind)}
    balances = [{"balanced": b == "yes"} for b in args.balance] if balanced else [{}]
    return [(w, o) for o in balances for w in ([True, False] if args.unweighted else [True])]


def bootstrap_rows(weighted: dict, unweighted: dict) -> dict:
    """The first run minus the second (e.g. weighted minus unweighted), NDCG x 100,000, with its paired bootstrap
    interval over the left-out contexts, per source and pooled."""
    from clarion.evaluate.result import Evaluation, paired_difference

    pooled = tuple({c: v for s in run.values() for c, v in s.items()} for run in (weighted, unweighted))
    out = {}
    for name, (a, b) in {**{s: (weighted[s], unweighted[s]) for s in weighted}, "all": pooled}.items():
        d = paired_difference(Evaluation({}, {"ndcg": b}), Evaluation({}, {"ndcg": a}), "ndcg", seed=13)
        out[name] = {k: round(100_000 * getattr(d, k)) for k in ("value", "low", "high")}
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--methods", nargs="+", default=METHODS)
    parser.add_argument("--parts", nargs="+", default=["train", "dev"], choices=["train", "dev", "test"])
    parser.add_argument("--balance", nargs="+", default=["no", "yes"], choices=["no", "yes"])
    parser.add_argument("--unweighted", action="store_true", help="also train without confidence weights")
    parser.add_argument("--versus", help="also print each method (its first variant) minus this method")
    parser.add_argument("--drop", nargs="+", default=[], help="also train without each feature group")
    parser.add_argument("--add", nargs="+", default=[], help="also train with each left-out feature added")
    parser.add_argument("--ablate", default=None, help="the method --drop and --add train (default: the default)")
    parser.add_argument("--seed", type=int, default=13)
    parser.add_argument("--data-dir", type=Path)
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()

    import torch

    torch.set_num_threads(1)
    from clarion.data.location import dataset_dir
    from clarion.data.replies_convert import fine_sources, split_of
    from clarion.replies.sources import leave_one_source_out, table

    rows = {
        name: [r for r in rows if split_of(r.context[2], args.seed) in args.parts]
        for name, rows in fine_sources(dataset_dir("replies", args.data_dir), args.seed).items()
    }
    print("contexts:", {name: len({r.context_id for r in rs}) for name, rs in rows.items()}, flush=True)
    results, first = [], {}
    for method in args.methods:
        runs = {}
        for weighted, options in variants(method, args):
            start = time.time()
            runs[weighted] = leave_one_source_out(rows, method, weighted, options)
            first.setdefault(method, runs[weighted])
            row = {"method": method, "weighted": weighted, **options, **table(runs[weighted])}
            results.append({**row, "seconds": round(time.time() - start, 1)})
            print(json.dumps(results[-1]), flush=True)
            if not weighted:
                difference = {"method": method, **options, "weighted_minus_unweighted": bootstrap_rows(*runs.values())}
                results.append(difference)
                print(json.dumps(difference), flush=True)
    for method in [m for m in first if args.versus in first and m != args.versus]:
        results.append({"method": method, f"minus_{args.versus}": bootstrap_rows(first[method], first[args.versus])})
        print(json.dumps(results[-1]), flush=True)
    from clarion.replies.methods import DEFAULT_METHOD
    from clarion.replies.quality import DEFAULT_FEATURES, FEATURE_GROUPS

    ablated = args.ablate or DEFAULT_METHOD

    changes = [("without", g, tuple(n for n in DEFAULT_FEATURES if n not in FEATURE_GROUPS[g])) for g in args.drop]
    changes += [("with", name, (*DEFAULT_FEATURES, name)) for name in args.add]
    for how, what, kept in changes:
        results.append(
            {"method": ablated, how: what, **table(leave_one_source_out(rows, ablated, options={"features": kept}))}
        )
        print(json.dumps(results[-1]), flush=True)
    if args.out:
        args.out.write_text(json.dumps(results, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()

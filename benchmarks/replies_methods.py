"""Held-out scores of every reply-ranking method (mean NDCG x 100,000), with and without confidence weighting.

    python benchmarks/replies_methods.py --data DIR [--methods random cosine quality ...]
        [--parts dev] [--unweighted] [--out results.json]

DIR holds the files of `clarion replies convert --out DIR`. Each method is trained on DIR/train.tsv (weighted by
confidence; with --unweighted also without weights, the ablation) and scored on each part (`dev`: for choosing
models; `test`: read only for the final table), overall, per source (GRADE's convai2, dailydialog and
empatheticdialogues, DailyDialog++) and as the mean over sources. The leave-one-source-out table, which chose the
default: benchmarks/replies_sources.py (both print through clarion.replies.sources).
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

METHODS = ["random", "cosine", "matching", "lambdamart", "quality", "quality-trees", "quality-ensemble", "bilstm"]


def scores_by_source(ranker, rows, source_of) -> dict:
    """Mean NDCG x 100,000 over all contexts, per source (``clarion.replies.sources.table``) and the mean over the
    sources."""
    from clarion.evaluate.replies import SCALE
    from clarion.replies.sources import by_source, per_context, table

    values = per_context(ranker, rows)
    return {"all": round(SCALE * sum(values.values()) / len(values)), **table(by_source(values, source_of))}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, required=True)
    parser.add_argument("--methods", nargs="+", default=METHODS)
    parser.add_argument("--parts", nargs="+", default=["dev"])
    parser.add_argument("--unweighted", action="store_true", help="also train each trained method without weights")
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()

    import torch

    torch.set_num_threads(1)
    from clarion.data.replies import read_replies
    from clarion.replies.methods import method_class
    from clarion.replies.ranker import ReplyRanker, groups_of
    from clarion.replies.training import default_sources

    source_of = default_sources()
    _, train = groups_of(read_replies(args.data / "train.tsv"), source_of)
    parts = {p: read_replies(args.data / f"{p}.tsv") for p in args.parts}
    results = []
    for name in args.methods:
        variants = [True, False] if args.unweighted and method_class(name).trained else [True]
        for weighted in variants:
            start = time.time()
            ranker = ReplyRanker.train(train, name, weighted)
            row = {"method": name, "weighted": weighted, "train_seconds": round(time.time() - start, 1)}
            for part, rows in parts.items():
                row[part] = scores_by_source(ranker, rows, source_of)
            results.append(row)
            print(json.dumps(row), flush=True)
    if args.out:
        args.out.write_text(json.dumps(results, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()

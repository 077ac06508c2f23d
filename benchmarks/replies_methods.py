"""Held-out scores of every reply-ranking method (mean NDCG x 100,000), with and without confidence weighting.

    python benchmarks/replies_methods.py --data DIR [--methods random cosine matching lambdamart bilstm]
        [--parts dev dev_grade dev_dailydialog] [--out results.json]

DIR holds the files of `clarion replies convert --out DIR`. Each method is trained on DIR/train.tsv (weighted by
confidence, and without weighting for the trained methods) and scored on each part; `dev*` parts are for choosing
models, `test*` parts are read only for the final table.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, required=True)
    parser.add_argument("--methods", nargs="+", default=["random", "cosine", "matching", "lambdamart", "bilstm"])
    parser.add_argument("--parts", nargs="+", default=["dev", "dev_grade", "dev_dailydialog"])
    parser.add_argument("--unweighted", action="store_true", help="also train each trained method without weights")
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()

    import torch

    torch.set_num_threads(1)
    from clarion.data.replies import read_replies
    from clarion.respond.replies.methods import method_class
    from clarion.respond.replies.ranker import ReplyRanker, groups_of
    from clarion.respond.replies.training import evaluate_rows

    _, train = groups_of(read_replies(args.data / "train.tsv"))
    parts = {p: read_replies(args.data / f"{p}.tsv") for p in args.parts}
    results = []
    for name in args.methods:
        variants = [True, False] if args.unweighted and method_class(name).trained else [True]
        for weighted in variants:
            start = time.time()
            ranker = ReplyRanker.train(train, name, weighted)
            trained = time.time() - start
            scores = {p: round(evaluate_rows(ranker, rows)["ndcg"]) for p, rows in parts.items()}
            row = {"method": name, "weighted": weighted, "train_seconds": round(trained, 1), **scores}
            results.append(row)
            print(json.dumps(row), flush=True)
    if args.out:
        args.out.write_text(json.dumps(results, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()

"""Held-out scores of every reply-ranking method (mean NDCG x 100,000), with and without confidence weighting.

    python benchmarks/replies_methods.py --data DIR [--methods random cosine matching lambdamart bilstm]
        [--parts dev] [--unweighted] [--out results.json]

DIR holds the files of `clarion replies convert --out DIR`. Each method is trained on DIR/train.tsv (weighted by
confidence; with --unweighted also without weights, the ablation) and scored on each part (`dev`: for choosing
models; `test`: read only for the final table), overall and per source (GRADE, DailyDialog++).
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path


def scores_by_source(ranker, rows) -> dict[str, float]:
    """Mean NDCG x 100,000 over all contexts and over each source's."""
    from clarion.data.replies_convert import source_of
    from clarion.evaluate.replies import SCALE, per_context
    from clarion.replies.ranker import groups_of, ranked_ids

    ids, groups = groups_of(rows)
    scores = ranker.score_groups(groups, cached=True)
    reply_ids: dict[str, list[str]] = {}
    labels: dict[str, dict[str, int]] = {}
    for row in rows:
        reply_ids.setdefault(row.context_id, []).append(row.reply_id)
        labels.setdefault(row.context_id, {})[row.reply_id] = row.relevance
    ranking = {c: ranked_ids(reply_ids[c], s) for c, s in zip(ids, scores, strict=True)}
    values = per_context(labels, ranking)
    out = {"all": SCALE * sum(values.values()) / len(values)}
    for source in ("grade", "dailydialog"):
        mine = [v for c, v in values.items() if source_of(c) == source]
        out[source] = SCALE * sum(mine) / len(mine) if mine else float("nan")
    return {k: round(v) for k, v in out.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, required=True)
    parser.add_argument("--methods", nargs="+", default=["random", "cosine", "matching", "lambdamart", "bilstm"])
    parser.add_argument("--parts", nargs="+", default=["dev"])
    parser.add_argument("--unweighted", action="store_true", help="also train each trained method without weights")
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()

    import torch

    torch.set_num_threads(1)
    from clarion.data.replies import read_replies
    from clarion.replies.methods import method_class
    from clarion.replies.ranker import ReplyRanker, groups_of

    _, train = groups_of(read_replies(args.data / "train.tsv"))
    parts = {p: read_replies(args.data / f"{p}.tsv") for p in args.parts}
    results = []
    for name in args.methods:
        variants = [True, False] if args.unweighted and method_class(name).trained else [True]
        for weighted in variants:
            start = time.time()
            ranker = ReplyRanker.train(train, name, weighted)
            row = {"method": name, "weighted": weighted, "train_seconds": round(time.time() - start, 1)}
            for part, rows in parts.items():
                row[part] = scores_by_source(ranker, rows)
            results.append(row)
            print(json.dumps(row), flush=True)
    if args.out:
        args.out.write_text(json.dumps(results, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()

"""Leave-one-source-out reply ranking: every method trained on all sources but one, scored on the one left out.

    python benchmarks/replies_sources.py [--methods cosine matching lambdamart] [--parts train dev] [--out F.json]

The sources (``clarion.data.replies_convert.fine_sources``) are GRADE's convai2, dailydialog and
empatheticdialogues contexts (replies of real dialogue systems, rated 1-5 by people) and DailyDialog++ (people's
replies against constructed negatives). Only the contexts of the ``--parts`` of clarion's split are read (default
train and dev: the test part stays unread, as for every choice). Prints mean NDCG x 100,000 per left-out source and
the mean over sources, the figure a default is chosen by.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path


def mean_ndcg(ranker, rows) -> float:
    """Mean NDCG x 100,000 of ``ranker`` over the contexts of ``rows``."""
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
    return SCALE * sum(values.values()) / len(values)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--methods", nargs="+", default=["random", "cosine", "matching", "lambdamart"])
    parser.add_argument("--parts", nargs="+", default=["train", "dev"], choices=["train", "dev", "test"])
    parser.add_argument("--seed", type=int, default=13)
    parser.add_argument("--data-dir", type=Path)
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()

    import torch

    torch.set_num_threads(1)
    from clarion.data.location import dataset_dir
    from clarion.data.replies_convert import fine_sources, split_of
    from clarion.replies.ranker import ReplyRanker, groups_of

    rows = {
        name: [r for r in rows if split_of(r.context[2], args.seed) in args.parts]
        for name, rows in fine_sources(dataset_dir("replies", args.data_dir), args.seed).items()
    }
    print("contexts:", {name: len({r.context_id for r in rs}) for name, rs in rows.items()}, flush=True)
    results = []
    for method in args.methods:
        row: dict = {"method": method}
        start = time.time()
        for left_out in rows:
            train = [r for name, rs in rows.items() if name != left_out for r in rs]
            ranker = ReplyRanker.train(groups_of(train)[1], method)
            row[left_out] = round(mean_ndcg(ranker, rows[left_out]))
        row["mean"] = round(sum(row[s] for s in rows) / len(rows))
        row["seconds"] = round(time.time() - start, 1)
        results.append(row)
        print(json.dumps(row), flush=True)
    if args.out:
        args.out.write_text(json.dumps(results, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()

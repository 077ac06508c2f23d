"""Speed of reply ranking: N contexts x up to 6 replies ranked by one ``ReplyRanker`` (default 1,000 contexts).

The contexts are the converted contexts of every part that hold 6 replies (DailyDialog++), cycled to N (each text is
still encoded at ranking time: the ranker keeps no cache between calls). The model is loaded (trained when absent)
and warmed up on a few contexts before the clock starts; the time covers embedding, features and scoring of every
context, in batches of ``--batch`` contexts (``score_groups``), and separately one context at a time through ``rank``.

    python benchmarks/replies_speed.py [--contexts 1000] [--threads 2] [--model DIR] [--one-by-one 100]
"""

from __future__ import annotations

import argparse
import os
import time

from clarion.store import cpu_model


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--contexts", type=int, default=1000)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--batch", type=int, default=1000, help="contexts per score_groups call")
    parser.add_argument("--model", default=None, help="model directory (default: the default model)")
    parser.add_argument("--one-by-one", type=int, default=0, help="also time this many single rank() calls")
    args = parser.parse_args()
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    import torch

    from clarion.data.location import dataset_dir
    from clarion.data.replies_convert import convert
    from clarion.replies import ReplyRanker
    from clarion.replies.ranker import groups_of

    torch.set_num_threads(args.threads)
    converted = convert(dataset_dir("replies"))
    _, groups = groups_of([r for part in ("test", "dev", "train") for r in converted.split(part)])
    groups = [g for g in groups if len(g.replies) == 6]  # the benchmark's shape: 6 replies per context
    groups = [groups[i % len(groups)] for i in range(args.contexts)]
    ranker = ReplyRanker.load(args.model)
    ranker.score_groups(groups[:8])  # loads MiniLM and LightGBM
    start, cpu = time.perf_counter(), time.process_time()
    for at in range(0, len(groups), args.batch):
        ranker.score_groups(groups[at : at + args.batch])
    took, cpu = time.perf_counter() - start, time.process_time() - cpu
    replies = sum(len(g.replies) for g in groups)
    print(
        f"{len(groups)} contexts, {replies} replies ranked in {took:.1f} s wall, {cpu:.1f} s CPU "
        f"({torch.get_num_threads()} torch threads; {cpu_model()}; load average {os.getloadavg()[0]:.1f})"
    )
    if args.one_by_one:
        start = time.perf_counter()
        for g in groups[: args.one_by_one]:
            ranker.rank(list(g.context), list(g.replies))
        each = (time.perf_counter() - start) / args.one_by_one
        print(f"one context at a time: {1000 * each:.1f} ms per context over {args.one_by_one}")


if __name__ == "__main__":
    main()

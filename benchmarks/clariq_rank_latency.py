"""Speed and cost of the ClariQ question ranker on this machine.

Prints: median latency of one request against the full 3,940-question bank after warm-up (with the
shortlist size) on each route of ``QuestionRanker.rank``: a known request through the pipeline, a rewording of
one (ranked as that request: one more encoding, see ``clarion.clariq.ranker_route.SNAP``) and a new request (the whole
bank by similarity); throughput for a batch of 1,000 rewordings, and the training time and peak memory of the
train+dev model (from its meta.json; ``--train`` retrains it here, in this process, first, with torch's default
threads as ``clarion clariq train`` does; ``--threads`` applies to the requests).

    python benchmarks/clariq_rank_latency.py [--train] [--model-dir DIR] [--threads 1]
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import time

from clarion.errors import ModelError
from clarion.store import cpu_model


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--train", action="store_true", help="retrain the train+dev model first (timed)")
    parser.add_argument("--model-dir", default=None, help="a trained model directory (default: train+dev)")
    parser.add_argument("--threads", type=int, default=1, help="torch threads (1 is fastest for one request)")
    parser.add_argument("--repeats", type=int, default=50, help="single requests timed")
    args = parser.parse_args()
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    import torch

    from clarion.clariq.clarifier import Clarifier
    from clarion.clariq.ranker_route import SNAP
    from clarion.clariq.train import DEFAULT_SPLITS, default_model_dir, train_models
    from clarion.data.clariq import ClariQ
    from clarion.store import read_meta

    data = ClariQ.load()
    if args.train:
        start = time.perf_counter()
        directory = train_models(data, DEFAULT_SPLITS)
        seconds = time.perf_counter() - start
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        print(f"training on train+dev: {seconds:.0f} s, peak memory (ru_maxrss) {peak:.0f} MB")
    torch.set_num_threads(args.threads)
    directory = args.model_dir or default_model_dir(data, DEFAULT_SPLITS)
    try:
        bot = Clarifier.load(directory)
    except ModelError as error:
        raise SystemExit(f"error: {error} (run with --train, or `clarion clariq train --splits train,dev`)") from None
    metrics = read_meta(directory)["metrics"]
    requests = [t.request for t in data.known_requests(("test", "dev", "train"))]
    novel = [f"{r} near me" for r in requests]
    for request in novel[:5]:  # warm-up: model load, embeddings, tokenizers
        bot.rank(request)

    def median_ms(texts: list[str], snap) -> tuple[float, float]:
        times = []
        for request in texts[5 : 5 + args.repeats]:
            start = time.perf_counter()
            bot.ranker.rank([request], k=30, snap=snap)
            times.append(1000 * (time.perf_counter() - start))
        return statistics.median(times), sorted(times)[int(0.9 * len(times))]

    routes = (
        ("a known request, through the pipeline", median_ms(requests, SNAP)),
        ("a rewording, snapped to the known request", median_ms(novel, SNAP)),  # "X near me" snaps to X
        ("a new request, the whole bank by similarity", median_ms(novel, None)),  # the same texts, not snapped
    )
    batch = (novel * 4)[:1000]
    start = time.perf_counter()
    bot.ranker.rank(batch, k=30)
    batch_seconds = time.perf_counter() - start
    print(f"machine: {cpu_model()}, {os.cpu_count()} CPUs, torch threads {args.threads}")
    print(f"bank: {len(bot.ranker.context.bank_ids)} questions; shortlist {bot.ranker.config.shortlist}")
    for name, (median, p90) in routes:
        print(f"one request ({name}), median of {args.repeats}: {median:.1f} ms (p90 {p90:.1f} ms)")
    print(f"batch of 1,000 rewordings: {batch_seconds:.1f} s, {1000 / batch_seconds:.0f} requests/s")
    print(f"training (meta.json): {metrics.get('training_seconds')} s, peak memory {metrics.get('peak_memory_mb')} MB")


if __name__ == "__main__":
    main()

"""Time one conversation turn of the engine with the ClariQ models loaded (median and 90th percentile).

    python benchmarks/converse_latency.py [--n 100] [--splits train]

Each timed call is :meth:`clarion.dialogue.Assistant.reply` on a conversation it has not seen (its per-request
memo of need and proposals is emptied before every call), alternately a first turn (a ClariQ test request) and a
turn answering a clarifying question (the request, the engine's question, a recorded-style answer). One torch
thread, as ``clarion converse`` and ``clarion chat`` run.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time

os.environ.setdefault("OMP_NUM_THREADS", "1")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=100, help="Timed turns.")
    parser.add_argument("--splits", default="train,dev", help="Splits the models were trained on.")
    args = parser.parse_args()

    import torch

    torch.set_num_threads(1)
    from clarion.data.clariq import ClariQ
    from clarion.dialogue.loading import load_for_splits
    from clarion.store import cpu_model

    engine = load_for_splits(tuple(args.splits.split(",")))
    requests = [t.request for t in ClariQ.load().topics("test")]
    conversations = []
    for request in requests:
        first = [{"role": "user", "text": request}]
        decision = engine.reply(first)  # warm-up, and the question the second turn answers
        conversations.append(first)
        if decision.action == "clarify":
            conversations.append([*first, {"role": "system", "text": decision.text}, {"role": "user", "text": "no"}])
    times = {"first turn": [], "after an answer": []}
    cpu = []
    for i in range(args.n):
        turns = conversations[i % len(conversations)]
        engine._memo.clear()
        start, start_cpu = time.perf_counter(), time.process_time()
        engine.reply(turns)
        cpu.append(time.process_time() - start_cpu)
        times["first turn" if len(turns) == 1 else "after an answer"].append(time.perf_counter() - start)
    every = [t for ts in times.values() for t in ts]
    print(f"machine: {cpu_model()}, {os.cpu_count()} cores; one torch thread; models: {args.splits}")
    for name, ts in {"all turns": every, **times}.items():
        if ts:
            p90 = statistics.quantiles(ts, n=10)[-1] if len(ts) > 1 else ts[0]
            print(f"{name}: n={len(ts)}, median {1000 * statistics.median(ts):.1f} ms, p90 {1000 * p90:.1f} ms")
    print(f"CPU time per turn (this process only): median {1000 * statistics.median(cpu):.1f} ms")
    print(f"load average over the last minute: {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()

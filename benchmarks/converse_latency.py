"""Time one conversation turn of the engine with the ClariQ models loaded (median and 90th percentile).

    python benchmarks/converse_latency.py [--n 100] [--splits train] [--requests clariq|everyday]

Each timed call is :meth:`clarion.dialogue.Assistant.reply` on a conversation it has not seen (its per-request
memo of need and proposals is emptied before every call), alternately a first turn (a ClariQ test request) and a
turn answering a clarifying question (the request, the engine's question, a recorded-style answer). One torch
thread, as ``clarion converse`` and ``clarion chat`` run. With ``--requests everyday`` the requests are clarion's
everyday requests (not ClariQ's): the engine has the model for any request, and its questions are written for them
(the turn includes the need estimate and writing the question).
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
    parser.add_argument("--requests", choices=["clariq", "everyday"], default="clariq")
    args = parser.parse_args()

    import torch

    torch.set_num_threads(1)
    from clarion.data.clariq import ClariQ
    from clarion.dialogue.loading import load_for_splits
    from clarion.store import cpu_model

    engine = load_for_splits(tuple(args.splits.split(",")))
    if args.requests == "everyday":
        from clarion.data.ambiguous import read_everyday
        from clarion.dialogue.any_request import load_or_train

        engine.any_request = load_or_train()
        requests = [r.request for r in read_everyday()]
    else:
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
    if args.requests == "everyday":
        written = sum(bool(engine.reply(c).scores.get("question_source", "bank") != "bank") for c in conversations)
        print(f"questions written: {written} of {len(conversations)} turns")
    every = [t for ts in times.values() for t in ts]
    machine = f"machine: {cpu_model()}, {os.cpu_count()} cores; one torch thread"
    print(f"{machine}; models: {args.splits}; requests: {args.requests}")
    for name, ts in {"all turns": every, **times}.items():
        if ts:
            p90 = statistics.quantiles(ts, n=10)[-1] if len(ts) > 1 else ts[0]
            print(f"{name}: n={len(ts)}, median {1000 * statistics.median(ts):.1f} ms, p90 {1000 * p90:.1f} ms")
    print(f"CPU time per turn (this process only): median {1000 * statistics.median(cpu):.1f} ms")
    print(f"load average over the last minute: {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()

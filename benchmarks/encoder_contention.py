"""The sentence encoder beside other Python threads: eager against traced (what ``clarion serve`` runs).

Encodes clarion's everyday requests in batches of ``--batch`` (default 4, a service's batch under load) with the
packaged MiniLM on one torch thread, eagerly and as a traced graph (:mod:`clarion.retrieve.traced`), in three
settings: alone; beside a thread busy in Python (as the event loop and a second batch's feature code are); and in two
threads at once (two service lanes). Prints the milliseconds per batch of each, and how many rounds the busy thread
got through per second (its share of the interpreter lock).

    python benchmarks/encoder_contention.py [--batch 4] [--batches 80]
"""

from __future__ import annotations

import argparse
import os
import threading
import time

from clarion.store import cpu_model


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--batch", type=int, default=4)
    parser.add_argument("--batches", type=int, default=80)
    args = parser.parse_args()
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    import torch

    from clarion.data.ambiguous import read_everyday
    from clarion.retrieve import traced
    from clarion.retrieve.dense import load_encoder, tokenize_all

    torch.set_num_threads(1)
    transformer = load_encoder()[0]
    texts = [r.request for r in read_everyday()][: args.batch * args.batches]
    batches = [
        dict(tokenize_all(transformer, texts[i : i + args.batch]))
        for i in range(0, len(texts) - args.batch + 1, args.batch)
    ]

    def run(part: list[dict]) -> None:
        with torch.inference_mode():
            for batch in part:
                traced.forward(transformer, batch, tokenize_all)

    print(f"{len(batches)} batches of {args.batch} everyday requests, one torch thread; {cpu_model()}")
    for name, on in (("eager", False), ("traced", True)):
        traced.trace_encoders(on)
        run(batches[:2])  # traced on first use, warmed up
        for setting in ("alone", "beside a busy thread", "two threads"):
            ms, rounds = timed(run, batches, setting)
            extra = f", busy thread {rounds:,.0f} rounds/s" if rounds is not None else ""
            print(f"  {name:<6} {setting:<21} {ms:7.1f} ms per batch{extra}")
    traced.trace_encoders(False)


def timed(run, batches: list[dict], setting: str) -> tuple[float, float | None]:
    """Milliseconds per batch of ``run`` over ``batches`` in ``setting``, and the busy thread's rounds per second."""
    stop, counter = threading.Event(), [0]

    def busy() -> None:
        while not stop.is_set():
            sum(i * i for i in range(2000))
            counter[0] += 1

    helper = threading.Thread(target=busy) if setting == "beside a busy thread" else None
    if helper is not None:
        helper.start()
    began = time.perf_counter()
    lanes = 2 if setting == "two threads" else 1
    threads = [threading.Thread(target=run, args=(batches[k::lanes],)) for k in range(lanes)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    elapsed = time.perf_counter() - began
    stop.set()
    if helper is not None:
        helper.join()
    return 1000 * elapsed / len(batches), (counter[0] / elapsed if helper is not None else None)


if __name__ == "__main__":
    main()

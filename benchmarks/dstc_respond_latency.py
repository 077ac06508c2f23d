"""Latency of the assistant API (``Grounder.respond``): one dialogue at a time, on this machine.

Loads the default DSTC model (training it when absent) over dstc11_track5's knowledge base, warms up on a few
dev dialogues (MiniLM load, snippet embeddings), then times ``respond`` on the next dev dialogues one by one and
prints the median and 90th percentile, for knowledge-seeking replies and the others separately. The first call
for an entity encodes its snippets (cached on disk and in the Grounder afterwards); ``--cold`` reports those
first calls too instead of warming every entity up first.

    python benchmarks/dstc_respond_latency.py [--dialogues 100] [--threads 1] [--model DIR] [--cold]
"""

from __future__ import annotations

import argparse
import os
import statistics
import time

from clarion.store import cpu_model


def summary(times: list[float]) -> str:
    if not times:
        return "none"
    ordered = sorted(times)
    p90 = ordered[min(len(ordered) - 1, int(0.9 * len(ordered)))]
    return f"median {statistics.median(times):.1f} ms, p90 {p90:.1f} ms over {len(times)}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dialogues", type=int, default=100, help="dev dialogues timed")
    parser.add_argument("--threads", type=int, default=1, help="torch threads (1 is fastest for one dialogue)")
    parser.add_argument("--model", default=None, help="model directory (default: the default model)")
    parser.add_argument("--cold", action="store_true", help="do not encode every entity's snippets beforehand")
    args = parser.parse_args()
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    import torch

    from clarion.data.dstc import load_dataset
    from clarion.data.dstc_split import split_dataset
    from clarion.data.location import dataset_dir
    from clarion.dstc.assistant import Grounder
    from clarion.dstc.models.default import DEFAULT_DATASET

    torch.set_num_threads(args.threads)
    dev = split_dataset(load_dataset(dataset_dir(DEFAULT_DATASET), labels=False), "dev")
    grounder = Grounder.load(args.model, dev.knowledge)
    dialogues = [list(c.turns) for c in dev.contexts]
    for dialogue in dialogues[:5]:  # warm-up: MiniLM, tokenizer, BLAS
        grounder.respond(dialogue)
    if not args.cold:
        index = grounder.prepared.index
        index.prepare(index.entities())
    seeking, other = [], []
    for dialogue in dialogues[5 : 5 + args.dialogues]:
        start = time.perf_counter()
        reply = grounder.respond(dialogue)
        (seeking if reply.knowledge_seeking else other).append(1000 * (time.perf_counter() - start))
    print(f"machine: {cpu_model()}, {os.cpu_count()} CPUs, torch threads {args.threads}")
    print(f"model: {grounder.directory} (generator {grounder.model.config.generator.value})")
    print(f"Grounder.respond, knowledge-seeking replies: {summary(seeking)}")
    print(f"Grounder.respond, other turns: {summary(other)}")
    print(f"Grounder.respond, all: {summary(seeking + other)}")


if __name__ == "__main__":
    main()

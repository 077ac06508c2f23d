"""Latency of the pipe protocol: one ``clarion`` process kept open, one request per line (``-``), on this machine.

Starts ``clarion clariq clarify - --json`` (the 50 ClariQ dev requests, repeated as needed) and ``clarion dstc
respond - --json`` (dstc11_track5 dev contexts, each sent as a JSON array of its turns); times the first answer (the
process's cold start: imports, model and knowledge loading, then one answer) and each later request's round trip
(write a line, read its answer); prints the median and 90th percentile. The models must be trained already (the
commands train them when absent, which this script would time as cold start).

    python benchmarks/pipe_latency.py [--requests 100]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time

from clarion.store import cpu_model


def summary(times: list[float]) -> str:
    ordered = sorted(times)
    p90 = ordered[min(len(ordered) - 1, int(0.9 * len(ordered)))]
    return f"median {statistics.median(times):.1f} ms, p90 {p90:.1f} ms over {len(times)}"


def time_pipe(command: list[str], lines: list[str]) -> tuple[float, list[float]]:
    """Seconds to the first answer, then the round trip in ms of every later line."""
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", "TOKENIZERS_PARALLELISM": "false"}
    start = time.perf_counter()
    process = subprocess.Popen(
        [sys.executable, "-m", "clarion", *command],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        bufsize=1,
        env=env,
    )
    rounds = []
    try:
        for n, line in enumerate(lines):
            sent = time.perf_counter()
            process.stdin.write(line + "\n")
            process.stdin.flush()
            answer = json.loads(process.stdout.readline())
            if "error" in answer:
                raise SystemExit(f"{command[:2]}: line {answer['line']}: {answer['error']}")
            if n == 0:
                cold = time.perf_counter() - start
            else:
                rounds.append(1000 * (time.perf_counter() - sent))
    finally:
        process.stdin.close()
        process.wait()
    return cold, rounds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=100, help="requests timed after the first")
    args = parser.parse_args()
    from clarion.data.clariq import ClariQ
    from clarion.data.dstc import load_dataset
    from clarion.data.dstc_split import split_dataset
    from clarion.data.location import dataset_dir
    from clarion.dstc.models.default import DEFAULT_DATASET

    n = args.requests + 1
    requests = [t.request for t in ClariQ.load().topics("dev")]
    requests = (requests * (n // len(requests) + 1))[:n]
    dev = split_dataset(load_dataset(dataset_dir(DEFAULT_DATASET), labels=False), "dev")
    dialogues = [json.dumps([t.text for t in c.turns]) for c in dev.contexts[:n]]
    print(f"machine: {cpu_model()}, {os.cpu_count()} CPUs")
    for name, command, lines in (
        ("clariq clarify -", ["clariq", "clarify", "--json", "-"], requests),
        ("dstc respond -", ["dstc", "respond", "--json", "-"], dialogues),
    ):
        cold, rounds = time_pipe(command, lines)
        print(f"{name}: first answer after {cold:.1f} s (start-up included); then {summary(rounds)}")


if __name__ == "__main__":
    main()

"""Throughput of a batch command in one process and on a local Ray cluster of 1 and 2 workers.

    python benchmarks/scale.py [--command converse|dstc] [--n 3000] [--workers 1,2]

``converse`` (default): the requests are the first N AmbigNQ training questions (distinct, so no run answers a
request twice from the engine's memo), one single-turn conversation each. ``dstc``: ``clarion dstc predict`` on
the first N contexts of dstc11_track5's logs.json, with the default model. Each configuration runs the real
command in a child process and is timed end to end (model loading and cluster start included); the outputs must
be byte-identical to the one-process run. Start-up overhead: a 2-input run on the cluster minus the same run in
one process; the throughput after start-up divides the inputs by the time less that 2-input run's. Memory per
worker: the peak resident set of each worker process (``ray::_Holder``), read from /proc while the run goes. The
models must be in the cache already (the command trains them on first use; that is not timed).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path


def write_requests(path: Path, n: int) -> None:
    from clarion.data.location import dataset_dir

    questions = json.loads((dataset_dir("ambignq") / "train_light.json").read_text())
    with path.open("w") as handle:
        for record in questions[:n]:
            turns = [{"role": "user", "text": record["question"]}]
            handle.write(json.dumps({"id": record["id"], "turns": turns}) + "\n")


class PeakMemory(threading.Thread):
    """The peak RSS (MiB) of each process whose command line starts with ``prefix``, sampled every 0.5 s."""

    def __init__(self, prefix: str):
        super().__init__(daemon=True)
        self.prefix, self.peaks, self.done = prefix, {}, threading.Event()

    def run(self) -> None:
        while not self.done.wait(0.5):
            for pid in filter(str.isdigit, os.listdir("/proc")):
                try:
                    command = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")[0].decode()
                    if command.startswith(self.prefix):
                        status = Path(f"/proc/{pid}/status").read_text()
                        rss = next(int(x.split()[1]) for x in status.splitlines() if x.startswith("VmRSS"))
                        self.peaks[pid] = max(self.peaks.get(pid, 0), rss / 1024)
                except (OSError, StopIteration, ValueError):
                    continue


def write_contexts(path: Path, n: int) -> None:
    from clarion.data.location import dataset_dir

    source = dataset_dir("dstc11_track5")
    path.mkdir()
    (path / "logs.json").write_text(json.dumps(json.loads((source / "logs.json").read_text())[:n]))
    (path / "knowledge.json").symlink_to(source / "knowledge.json")


COMMAND = "converse"


def _steady(n: int, total: float, start_up: float) -> str:
    """Throughput once started: the inputs over the run's time less its start-up (a 2-input run's time)."""
    return f"start-up {start_up:.1f} s, then {n / max(total - start_up, 1e-9):.1f} inputs/s"


def converse(requests: Path, out: Path, *options: str) -> float:
    start = time.perf_counter()
    command = [sys.executable, "-m", "clarion", "converse", "--conversations", str(requests), "--out", str(out)]
    if COMMAND == "dstc":
        command = [sys.executable, "-m", "clarion", "dstc", "predict", "--data", str(requests), "--out", str(out)]
    done = subprocess.run([*command, *options], capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(command + list(options))} failed:\n{done.stderr[-3000:]}")
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=3000, help="Requests (conversations).")
    parser.add_argument("--workers", default="1,2", help="Cluster sizes to time, comma-separated.")
    parser.add_argument("--command", choices=["converse", "dstc"], default="converse", help="The command timed.")
    args = parser.parse_args()
    global COMMAND
    COMMAND = args.command
    write = write_requests if COMMAND == "converse" else write_contexts
    os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
    from clarion.store import cpu_model

    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        write(work / "in.jsonl", args.n)
        write(work / "two.jsonl", 2)
        print(f"clarion {COMMAND}, {args.n} inputs; machine: {cpu_model()}, {os.cpu_count()} cores")
        print(f"load average before: {os.getloadavg()[0]:.1f}")
        fixed = {None: converse(work / "two.jsonl", work / "s.jsonl")}  # start-up: a 2-input run
        alone = converse(work / "in.jsonl", work / "one.jsonl")
        times = {None: alone}
        print(f"one process: {alone:.1f} s, {args.n / alone:.1f} inputs/s; {_steady(args.n, alone, fixed[None])}")
        for workers in [int(w) for w in args.workers.split(",")]:
            fixed[workers] = converse(work / "two.jsonl", work / "s.jsonl", "--workers", str(workers))
            memory = PeakMemory("ray::_Holder")
            memory.start()
            times[workers] = converse(work / "in.jsonl", work / f"w{workers}.jsonl", "--workers", str(workers))
            memory.done.set()
            memory.join()
            same = (work / f"w{workers}.jsonl").read_bytes() == (work / "one.jsonl").read_bytes()
            peaks = ", ".join(f"{m:.0f}" for m in sorted(memory.peaks.values()))
            print(
                f"--workers {workers}: {times[workers]:.1f} s, {args.n / times[workers]:.1f} inputs/s; "
                f"{_steady(args.n, times[workers], fixed[workers])}; output {'identical' if same else 'DIFFERENT'}; "
                f"peak RSS per worker (MiB): {peaks or 'not seen'}"
            )
            print(f"  start-up overhead over one process: {fixed[workers] - fixed[None]:.1f} s")
        if 1 in times and 2 in times:
            ratio = (times[1] - fixed[1]) / (times[2] - fixed[2])
            print(f"2 workers over 1: {times[1] / times[2]:.2f}x end to end, {ratio:.2f}x after start-up")
        print(f"load average after: {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()

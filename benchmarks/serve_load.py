"""Load test of ``clarion serve`` on 127.0.0.1: latency, throughput, errors and memory, bounded and self-stopping.

Starts ``clarion serve`` (ClariQ train+dev models by default, ``--model DIR`` for another; they must be trained
already, or their training is timed as the start), waits for ``/health``, then sends ``--requests`` conversations
(default 300) to ``--endpoint`` (default ``/v1/converse``) with ``--concurrency`` (default 8) requests in flight,
and prints the median (p50), 95th percentile, throughput, error count, CPU milliseconds per request (the server's
processes and this client's, over the load) and the server's resident memory (VmRSS after the load, VmHWM its peak),
with the machine, the load average before and after, and the model. Then it sends oversized, malformed and empty
bodies (each must get a 4xx) and checks that ``/health`` still answers. The server is stopped at the end; the run
stops by itself (``--deadline`` seconds at most for the load).

Conversations, all distinct, from ClariQ (``--mix``): ``topics`` (default): the 61 test requests alone (unseen by
the models), then dev topics' rows as two-turn dialogues (request, one of its clarifying questions, the facet's
answer), so a dev topic's request comes back in several dialogues (111 distinct requests in 300), as it does in the
later turns of a real conversation; ``distinct``: no request twice (the test requests, then one dialogue per dev and
train topic; 298 conversations), so nothing the server remembers per request is used twice; ``everyday``: clarion's
everyday requests, one turn each, none twice (not ClariQ's: the model for any request decides). ``--batch`` and
``--threads`` are passed to ``clarion serve`` (``--batch 1``: one request per model call).

    python benchmarks/serve_load.py [--requests 300] [--concurrency 8] [--endpoint converse] [--mix topics]
        [--batch 16] [--threads 1] [--workers 2] [--processes 1] [--model DIR] [--json out.json]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path


def conversations(n: int, mix: str = "topics") -> list[dict]:
    """``n`` distinct conversations (see the module docstring), each ``{"kind", "turns"}``. ``topics``: the test
    requests, then two-turn dialogues from the dev topics in turn (so every topic is in the mix; a topic's request
    comes back in several of them); ``distinct``: no request twice (the test requests, then one two-turn dialogue
    per dev topic, then per train topic), so nothing a server remembers per request is used twice."""
    from itertools import zip_longest

    from clarion.data.clariq import ClariQ, read_topics

    if mix == "everyday":  # requests that are not ClariQ's: the model for any request decides and writes questions
        from clarion.data.ambiguous import read_everyday

        return [{"kind": "one turn", "turns": [{"role": "user", "text": r.request}]} for r in read_everyday()][:n]

    data = ClariQ.load()
    tests = read_topics(data.path("test.tsv"))
    out = [{"kind": "one turn", "turns": [{"role": "user", "text": t.request}]} for t in tests]
    per_topic = two_turn_dialogues(data, "dev")
    if mix == "distinct":
        per_topic |= two_turn_dialogues(data, "train")
        rows = [dialogues[:1] for dialogues in per_topic.values()]
    else:
        rows = list(zip_longest(*per_topic.values()))
    seen = {json.dumps(c["turns"]) for c in out}
    requests = {c["turns"][0]["text"] for c in out}
    for row in rows:
        for turns in filter(None, row):
            if json.dumps(turns) not in seen and (mix != "distinct" or turns[0]["text"] not in requests):
                seen.add(json.dumps(turns))
                requests.add(turns[0]["text"])
                out.append({"kind": "two turns", "turns": turns})
    return out[:n]


def two_turn_dialogues(data, split: str) -> dict[str, list[list[dict]]]:
    """Per topic of ``split``, its rows as dialogues: the request, one of its clarifying questions, the facet's
    answer to it."""
    labels = data.labels(split)
    topic_of = {facet: topic for topic, facets in labels.facets.items() for facet in facets}
    per_topic: dict[str, list[list[dict]]] = {}
    for (facet, question), answer in labels.answers.items():
        text = labels.question_text.get(question, "")
        if text.strip() and answer.strip():
            turns = [
                {"role": "user", "text": labels.requests[topic_of[facet]]},
                {"role": "system", "text": text},
                {"role": "user", "text": answer},
            ]
            per_topic.setdefault(f"{split}:{topic_of[facet]}", []).append(turns)
    return per_topic


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def memory_mb(pid: int) -> dict[str, float]:
    """VmRSS (now) and VmHWM (peak) of process ``pid``, in MB."""
    fields = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        key, _, value = line.partition(":")
        if key in ("VmRSS", "VmHWM"):
            fields[key] = int(value.split()[0]) / 1024
    return fields


def cpu_seconds(pid: int) -> float:
    """User and system CPU seconds of process ``pid`` and its live descendants (``--processes``' workers)."""
    tick = os.sysconf("SC_CLK_TCK")
    stats = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                fields = (entry / "stat").read_text().rpartition(")")[2].split()
            except OSError:  # gone meanwhile
                continue
            stats[int(entry.name)] = (int(fields[1]), (int(fields[11]) + int(fields[12])) / tick)
    tree = {pid}
    for _ in range(4):  # the server, uvicorn's supervisor's children and theirs
        tree |= {p for p, (parent, _) in stats.items() if parent in tree}
    return sum(stats[p][1] for p in tree if p in stats)


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


async def load(base: str, endpoint: str, bodies: list[dict], concurrency: int, deadline: float) -> dict:
    import httpx

    gate = asyncio.Semaphore(concurrency)
    results: list[tuple[str, float, int]] = []
    failures: list[str] = []

    async def one(client, body):
        async with gate:
            began = time.perf_counter()
            try:
                response = await client.post(f"{base}{endpoint}", json=body["payload"])
                status = response.status_code
                if status != 200:
                    failures.append(f"{status}: {response.text[:200]}")
            except httpx.HTTPError as err:
                status = -1
                failures.append(f"{type(err).__name__}: {err}")
            results.append((body["kind"], (time.perf_counter() - began) * 1000, status))

    async with httpx.AsyncClient(timeout=60) as client:
        began = time.perf_counter()
        tasks = [asyncio.create_task(one(client, b)) for b in bodies]
        done, pending = await asyncio.wait(tasks, timeout=deadline)
        for task in pending:
            task.cancel()
        elapsed = time.perf_counter() - began
    return {"results": results, "elapsed": elapsed, "unfinished": len(pending), "failures": failures[:5]}


def bad_bodies(base: str) -> dict[str, int]:
    """The status of each kind of bad body (each must be a 4xx)."""
    import httpx

    from clarion.serve.config import MAX_BODY_BYTES

    json_type = {"content-type": "application/json"}
    cases = {
        "oversized (over the body limit)": {"json": {"turns": [{"role": "user", "text": "a" * MAX_BODY_BYTES}]}},
        "malformed JSON": {"content": b'{"turns": [', "headers": json_type},
        "empty body": {"content": b"", "headers": json_type},
        "empty conversation": {"json": {"turns": []}},
        "ends with the system": {"json": {"turns": [{"role": "system", "text": "Hello"}]}},
    }
    with httpx.Client(timeout=30) as client:
        return {name: client.post(f"{base}/v1/converse", **kwargs).status_code for name, kwargs in cases.items()}


def start_server(port: int, db: Path, features: list[str], extra: list[str] = ()) -> subprocess.Popen:
    """``clarion serve`` in a child process; its stderr goes to ``server.log`` beside ``db`` (read if it fails)."""
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", "TOKENIZERS_PARALLELISM": "false"}
    command = [sys.executable, "-m", "clarion", "serve", "--port", str(port), "--db", str(db)]
    command += list(extra)
    for feature in features:
        command += ["--feature", feature]
    log = open(db.parent / "server.log", "w")  # noqa: SIM115 - a file, not a pipe nobody reads while the load runs
    return subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL, stderr=log, text=True)


def stop_server(process: subprocess.Popen, timeout: float = 60) -> str:
    """SIGTERM, then SIGKILL when the server has not exited ``timeout`` seconds later; says which it took."""
    began = time.perf_counter()
    process.terminate()
    try:
        process.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()
        return f"killed: still running {timeout:.0f} s after SIGTERM"
    return f"exited {time.perf_counter() - began:.1f} s after SIGTERM"


def wait_healthy(base: str, process: subprocess.Popen, timeout: float) -> float:
    import httpx

    began = time.perf_counter()
    while time.perf_counter() - began < timeout:
        if process.poll() is not None:
            said = Path(process.args[process.args.index("--db") + 1]).parent / "server.log"
            raise SystemExit(f"the server exited ({process.returncode}): {said.read_text()[-2000:]}")
        try:
            if httpx.get(f"{base}/health", timeout=2).status_code == 200:
                return time.perf_counter() - began
        except httpx.HTTPError:
            pass
        time.sleep(0.5)
    raise SystemExit(f"the server did not answer /health within {timeout:.0f} s")


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--requests", type=int, default=300)
    parser.add_argument("--concurrency", type=int, default=8)
    parser.add_argument("--endpoint", choices=["converse", "clarify"], default="converse")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--processes", type=int, default=1, help="clarion serve --processes (each loads the models).")
    parser.add_argument("--batch", type=int, default=16, help="clarion serve --batch (1: no batching).")
    parser.add_argument("--threads", type=int, default=1, help="clarion serve --threads (torch threads per call).")
    mixes = ["topics", "distinct", "everyday"]
    parser.add_argument("--mix", choices=mixes, default="topics", help="See conversations().")
    parser.add_argument("--deadline", type=float, default=600, help="Seconds at most for the load.")
    parser.add_argument("--start-timeout", type=float, default=1800)
    parser.add_argument("--json", type=Path, help="Also write the figures here.")
    parser.add_argument("--model", type=Path, help="ClariQ pipeline directory (default: the train+dev model).")
    return parser.parse_args()


def main() -> None:
    args = parse_args()

    chats = conversations(args.requests, args.mix)
    random.Random(0).shuffle(chats)  # first turns and answers mixed, in a fixed order
    if args.endpoint == "converse":
        bodies = [{"kind": c["kind"], "payload": {"turns": c["turns"]}} for c in chats]
    else:
        bodies = [{"kind": "request", "payload": {"request": c["turns"][0]["text"]}} for c in chats]
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    with tempfile.TemporaryDirectory() as tmp:
        extra = [
            "--workers",
            str(args.workers),
            "--processes",
            str(args.processes),
            "--batch",
            str(args.batch),
            "--threads",
            str(args.threads),
        ]
        extra += ["--model", str(args.model)] if args.model else []
        process = start_server(port, Path(tmp) / "eval.sqlite", [args.endpoint], extra)
        try:
            started = wait_healthy(base, process, args.start_timeout)
            loaded = memory_mb(process.pid)
            busy_before = os.getloadavg()[0]
            cpu_before, client_before = cpu_seconds(process.pid), time.process_time()
            run = asyncio.run(load(base, f"/v1/{args.endpoint}", bodies, args.concurrency, args.deadline))
            client = time.process_time() - client_before
            run["cpu"] = {"server": cpu_seconds(process.pid) - cpu_before, "client": client}
            after = memory_mb(process.pid)
            refused = bad_bodies(base)
            import httpx

            alive = httpx.get(f"{base}/health", timeout=5).status_code == 200
        finally:
            stopped = stop_server(process)
    server = {"started": started, "loaded": loaded, "after": after, "refused": refused, "alive": alive}
    figures = summary(args, chats, len(bodies), busy_before, run, server | {"stopped": stopped})
    print(json.dumps(figures, indent=2))
    if args.json:
        args.json.write_text(json.dumps(figures, indent=2) + "\n")


def summary(args, chats: list[dict], requests: int, busy_before: float, run: dict, server: dict) -> dict:
    """The figures of one load run: latency, throughput, errors, memory, the server's answers to bad bodies."""
    from clarion.store import cpu_model

    times = [ms for _, ms, status in run["results"] if status == 200]
    errors = sum(status != 200 for _, _, status in run["results"]) + run["unfinished"]
    return {
        "endpoint": f"/v1/{args.endpoint}",
        "machine": f"{cpu_model()}, {os.cpu_count()} cores",
        "load_average_1min": [round(busy_before, 1), round(os.getloadavg()[0], 1)],
        "requests": requests,
        "concurrency": args.concurrency,
        "workers": args.workers,
        "processes": args.processes,
        "batch": args.batch,
        "threads": args.threads,
        "mix": args.mix,
        "distinct_requests": len({c["turns"][0]["text"] for c in chats}),
        "model": str(args.model) if args.model else "train+dev (default)",
        "start_seconds": round(server["started"], 1),
        "p50_ms": round(statistics.median(times), 1) if times else None,
        "p95_ms": round(percentile(times, 0.95), 1) if times else None,
        "max_ms": round(max(times), 1) if times else None,
        "throughput_rps": round(len(times) / run["elapsed"], 1),
        "cpu_ms_per_request": {who: round(1000 * s / max(1, requests), 1) for who, s in run["cpu"].items()},
        "errors": errors,
        "failures": run["failures"],
        "statuses": dict(Counter(str(status) for _, _, status in run["results"])),
        "by_kind_p50_ms": {
            kind: round(statistics.median([ms for k, ms, s in run["results"] if k == kind and s == 200]), 1)
            for kind in sorted({k for k, _, s in run["results"] if s == 200})
        },
        "rss_mb_loaded": round(server["loaded"]["VmRSS"], 1),
        "rss_mb_after": round(server["after"]["VmRSS"], 1),
        "rss_mb_peak": round(server["after"]["VmHWM"], 1),
        "bad_bodies": server["refused"],
        "healthy_after": server["alive"],
        "stopped": server["stopped"],
    }


if __name__ == "__main__":
    main()

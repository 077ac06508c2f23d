"""How long a first conversation takes to start: ``clarion chat`` until its prompt, or ``clarion converse`` until its
first decision, with the cache as it is (``$CLARION_CACHE_DIR``).

    CLARION_CACHE_DIR=/tmp/empty python benchmarks/first_conversation.py chat       # from an empty cache
    python benchmarks/first_conversation.py chat converse                          # with the models cached
                                              # (after the README's command 1: benchmark, then chat --prepare)

Prints, per command, the wall time, the CPU time of the command (its process and threads: comparable when other
jobs share the machine, which wall time is not) and the load average before and after. The command's stderr
(what it trains, its progress) goes to ``<command>.log`` beside ``--logs``.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

CONVERSATION = {"id": "c1", "turns": [{"role": "user", "text": "Tell me about dinosaurs."}]}


def command(name: str, scratch: Path) -> list[str]:
    clarion = shutil.which("clarion") or sys.exit("clarion is not on PATH")
    if name == "chat":
        return [clarion, "chat"]
    conversations = scratch / "conversations.jsonl"
    conversations.write_text(json.dumps(CONVERSATION) + "\n", encoding="utf-8")
    return [clarion, "converse", "--conversations", str(conversations), "--out", str(scratch / "decisions.jsonl")]


def timed(name: str, logs: Path) -> dict:
    with tempfile.TemporaryDirectory() as scratch:
        before, load = resource.getrusage(resource.RUSAGE_CHILDREN), os.getloadavg()
        start = time.monotonic()
        with open(logs / f"{name}.log", "w", encoding="utf-8") as log:
            # chat reads "/quit" once its prompt is shown: it returns right after reaching it
            subprocess.run(command(name, Path(scratch)), input="/quit\n", text=True, stdout=log, stderr=log, check=True)
        wall = time.monotonic() - start
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return {
        "command": name,
        "wall_s": round(wall, 1),
        "cpu_s": round(cpu, 1),
        "load_before": load,
        "load_after": os.getloadavg(),
        "cache": os.environ.get("CLARION_CACHE_DIR", "(default)"),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("commands", nargs="+", choices=["chat", "converse"])
    parser.add_argument("--logs", type=Path, default=Path("."))
    args = parser.parse_args()
    args.logs.mkdir(parents=True, exist_ok=True)
    for name in args.commands:
        row = timed(name, args.logs)
        loads = "/".join(f"{x:.1f}" for x in row["load_before"]), "/".join(f"{x:.1f}" for x in row["load_after"])
        print(
            f"{name}: wall {row['wall_s']} s, CPU {row['cpu_s']} s, load average {loads[0]} -> {loads[1]}", flush=True
        )


if __name__ == "__main__":
    main()

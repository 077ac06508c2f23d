"""A thread that runs a model sets torch's thread count itself: else its first matrix product starts MKL's team of one
OpenMP thread per core, whose threads then spin between products (:mod:`clarion.retrieve.threads`)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.skipif(not Path("/proc/self/task").is_dir(), reason="counts threads in /proc")

SCRIPT = """
import os, sys
from concurrent.futures import ThreadPoolExecutor
import torch
from clarion.retrieve.threads import use_threads

torch.set_num_threads(1)
x, w = torch.rand(64, 384), torch.rand(1536, 384)

def first_a_matrix_product(_):
    for _ in range(20):
        torch.nn.functional.linear(x, w)
    return len(os.listdir("/proc/self/task"))

settings = {"initializer": use_threads, "initargs": (1,)} if sys.argv[1] == "set" else {}
before = len(os.listdir("/proc/self/task"))
with ThreadPoolExecutor(1, **settings) as pool:
    print(pool.submit(first_a_matrix_product, 0).result() - before - 1)  # besides the pool's own thread
"""


def _threads_added(mode: str) -> int:
    env = {**os.environ, "OMP_NUM_THREADS": "", "MKL_NUM_THREADS": ""}
    env = {k: v for k, v in env.items() if v}
    out = subprocess.run([sys.executable, "-c", SCRIPT, mode], capture_output=True, text=True, env=env, check=True)
    return int(out.stdout.strip().splitlines()[-1])


def test_a_pool_thread_that_sets_the_count_starts_no_openmp_team():
    assert _threads_added("set") == 0


@pytest.mark.skipif((os.cpu_count() or 1) < 2, reason="one core: MKL starts no team either way")
def test_without_it_the_first_product_starts_a_team():
    """The case :func:`~clarion.retrieve.threads.use_threads` exists for (torch's lazy per-thread setting)."""
    assert _threads_added("unset") > 0

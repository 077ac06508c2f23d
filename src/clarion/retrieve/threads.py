"""torch's thread count, set in the thread that runs the model.

``torch.set_num_threads(n)`` sets a process-wide count, but two of the settings behind it belong to the calling thread:
OpenMP's and MKL's (``mkl_set_num_threads_local``). A thread started later takes the count over lazily, at its first
parallel loop (a layer norm, say); if its first operation is a matrix product, MKL runs it, and every product after it,
with its default of one OpenMP thread per core, whatever the count. Those OpenMP threads then spin between products:
in ``clarion serve``, whose pool threads run the encoders, they took about a quarter of the server's CPU time
(``benchmarks/serve_load.py``). So every thread clarion starts to run a model sets the count itself
(:func:`use_threads`), first.
"""

from __future__ import annotations

import sys


def use_threads(threads: int) -> None:
    """torch's thread count for the calling thread (OpenMP's and MKL's included) and the process; nothing when torch is
    not loaded (a thread that loads it later starts with the process's count)."""
    torch = sys.modules.get("torch")
    if torch is not None:
        torch.set_num_threads(threads)

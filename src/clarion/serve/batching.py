"""Gathering concurrent requests to one model into batches: one encoder pass for many requests.

Most of a ``/v1/converse`` turn is the need model's sentence encoder reading the request, and a transformer reads
eight short texts in little more time than one. A :class:`Batcher` gives every caller its own result but calls the
model with lists: a request that finds the model idle runs at once, alone (no waiting for company when the server
is quiet); requests arriving while a batch runs queue, and the next batch takes all of them (up to ``size``). So
under load the batches grow by themselves and the model's throughput with them, and at low load nothing is added
to a request's latency.

With several lanes, a lane that comes free while another batch runs waits :data:`GATHER` seconds for company before
it starts a batch smaller than ``size``: the clients whose answers it just sent come back a moment later, and without
the wait the first of them would run alone. Under ``benchmarks/serve_load.py``'s load (8 clients, ClariQ's distinct
two-turn conversations, two lanes), three batches in five held one request without the wait, each reading all of the
encoder's weights for one text; with it the batches hold 3.2 requests on average and the server spends about a tenth
less CPU time per request.

A batch that fails is run again one request at a time, so that a bad request gets its own error and the others
their results.
"""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

BATCH = 16
"""Most requests one model call takes (the default of ``clarion serve --batch``)."""

GATHER = 0.01
"""Seconds a free lane waits for more requests while another lane's batch runs (the server is busy); never when no
batch runs."""


class Batcher:
    """Calls ``fn(items) -> results`` (one result per item, in order) on batches of concurrent :meth:`submit` calls.

    ``run(fn, items)`` is awaited to call ``fn`` off the event loop (:meth:`clarion.serve.services.Pool.run`).
    ``lanes`` batches may run at once (one by default: the next batch gathers while one runs); a lane that comes free
    while another runs waits ``gather`` seconds for a fuller batch. Use it from one event loop.
    """

    def __init__(
        self,
        fn: Callable[[list], Sequence],
        run: Callable[..., Awaitable[Any]],
        size: int = BATCH,
        lanes: int = 1,
        gather: float = GATHER,
    ):
        if size < 1 or lanes < 1 or gather < 0:
            raise ValueError(
                f"a batch holds at least one request, one lane runs at least and a wait is not negative, "
                f"got {size}, {lanes}, {gather}"
            )
        self.fn = fn
        self.run = run
        self.size = size
        self.lanes = lanes
        self.gather = gather
        self._waiting: asyncio.TimerHandle | None = None
        self.batches: deque[int] = deque(maxlen=1024)
        """The sizes of the last 1,024 batches run (bounded: a long-running server's memory stays flat)."""
        self._queue: list[tuple[Any, asyncio.Future]] = []
        self._running = 0
        self._tasks: set[asyncio.Task] = set()

    async def submit(self, item: Any) -> Any:
        """``fn``'s result for ``item`` (or its error, raised here), computed in a batch with concurrent items."""
        future = asyncio.get_running_loop().create_future()
        self._queue.append((item, future))
        self._start()
        return await future

    def _start(self, gathered: bool = False) -> None:
        while self._running < self.lanes and self._queue:
            if self._running and not gathered and len(self._queue) < self.size and self.gather > 0:
                if self._waiting is None:  # another batch runs: wait a moment for company
                    self._waiting = asyncio.get_running_loop().call_later(self.gather, self._gathered)
                return
            if self._waiting is not None:
                self._waiting.cancel()
                self._waiting = None
            gathered = False
            batch, self._queue = self._queue[: self.size], self._queue[self.size :]
            self._running += 1
            task = asyncio.ensure_future(self._flush(batch))
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)

    def _gathered(self) -> None:
        self._waiting = None
        self._start(gathered=True)

    async def _flush(self, batch: list[tuple[Any, asyncio.Future]]) -> None:
        try:
            live = [(item, future) for item, future in batch if not future.done()]  # a caller gone: skipped
            if live:
                self.batches.append(len(live))
                for future, outcome in zip((f for _, f in live), await self._outcomes(live), strict=True):
                    if not future.done():
                        _settle(future, outcome)
        finally:
            self._running -= 1
            self._start()

    async def _outcomes(self, batch: list[tuple[Any, asyncio.Future]]) -> list[tuple[bool, Any]]:
        """``(ok, result or error)`` per item: the batch at once, or one by one when the batch fails."""
        items = [item for item, _ in batch]
        try:
            return [(True, r) for r in _checked(await self.run(self.fn, items), len(items))]
        except Exception as err:
            if len(items) == 1:
                return [(False, err)]
        out = []
        for item in items:
            try:
                out.append((True, _checked(await self.run(self.fn, [item]), 1)[0]))
            except Exception as err:
                out.append((False, err))
        return out


def _checked(results: Sequence, n: int) -> list:
    results = list(results)
    if len(results) != n:
        raise RuntimeError(f"a batch of {n} requests got {len(results)} results")
    return results


def _settle(future: asyncio.Future, outcome: tuple[bool, Any]) -> None:
    ok, value = outcome
    if ok:
        future.set_result(value)
    else:
        future.set_exception(value)

"""Concurrent requests gathered into batches: each caller gets its own result, a bad request fails alone, and the
service's concurrent replies are the ones it gives one at a time."""

from __future__ import annotations

import asyncio
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import pytest

from clarion.serve.batching import Batcher


async def _in_thread(fn, *args):
    return await asyncio.to_thread(fn, *args)


def _slow_double(calls: list):
    def fn(items):
        calls.append(list(items))
        time.sleep(0.02)  # long enough for the other callers to queue behind the running batch
        if any(item < 0 for item in items):
            raise ValueError(f"negative: {[i for i in items if i < 0]}")
        return [2 * item for item in items]

    return fn


def test_each_caller_gets_its_own_result_and_batches_form_under_load():
    calls: list[list[int]] = []
    batcher = Batcher(_slow_double(calls), _in_thread, size=8)

    async def main():
        return await asyncio.gather(*(batcher.submit(i) for i in range(40)))

    assert asyncio.run(main()) == [2 * i for i in range(40)]
    assert sorted(i for call in calls for i in call) == list(range(40))  # every item computed once
    assert max(batcher.batches) > 1 and max(batcher.batches) <= 8 and sum(batcher.batches) == 40


def test_a_lone_request_runs_at_once_alone():
    calls: list[list[int]] = []
    batcher = Batcher(_slow_double(calls), _in_thread, size=8)
    began = time.perf_counter()
    assert asyncio.run(batcher.submit(5)) == 10
    assert calls == [[5]] and time.perf_counter() - began < 1.0


def test_a_lone_request_runs_at_once_even_with_a_wait_for_company():
    calls: list[list[int]] = []
    batcher = Batcher(_slow_double(calls), _in_thread, size=8, lanes=2, gather=5.0)
    began = time.perf_counter()
    assert asyncio.run(batcher.submit(5)) == 10
    assert calls == [[5]] and time.perf_counter() - began < 2.0  # no batch ran: nothing to wait for


@pytest.mark.parametrize(("gather", "batches"), [(0.0, [1, 1, 1]), (0.3, [1, 2])])
def test_a_free_lane_waits_for_company_while_another_batch_runs(gather, batches):
    def fn(items):
        time.sleep(0.6)
        return items

    async def main():
        batcher = Batcher(fn, _in_thread, size=8, lanes=2, gather=gather)
        first = asyncio.ensure_future(batcher.submit(0))  # the server is idle: runs at once, alone
        await asyncio.sleep(0.05)
        second = asyncio.ensure_future(batcher.submit(1))  # a lane is free, but a batch runs: waits for company
        await asyncio.sleep(0.05)
        third = asyncio.ensure_future(batcher.submit(2))
        return await asyncio.gather(first, second, third), list(batcher.batches)

    results, sizes = asyncio.run(main())
    assert results == [0, 1, 2] and sizes == batches


def test_one_bad_request_fails_alone():
    calls: list[list[int]] = []
    batcher = Batcher(_slow_double(calls), _in_thread, size=16)
    items = [3, -1, 4, 1, -5, 9, 2, 6]

    async def main():
        return await asyncio.gather(*(batcher.submit(i) for i in items), return_exceptions=True)

    results = asyncio.run(main())
    for item, result in zip(items, results, strict=True):
        if item < 0:
            assert isinstance(result, ValueError) and str(result) == f"negative: [{item}]"
        else:
            assert result == 2 * item
    assert any(len(call) > 1 for call in calls)  # the batch was tried whole first, then one by one


def test_a_wrong_number_of_results_is_an_error_not_a_shifted_answer():
    batcher = Batcher(lambda items: [0] * (len(items) + 1), _in_thread)
    with pytest.raises(RuntimeError, match="got 2 results"):
        asyncio.run(batcher.submit(1))


def test_lanes_run_batches_side_by_side():
    running, most = [0], [0]
    lock = threading.Lock()

    def fn(items):
        with lock:
            running[0] += 1
            most[0] = max(most[0], running[0])
        time.sleep(0.05)
        with lock:
            running[0] -= 1
        return items

    batcher = Batcher(fn, _in_thread, size=2, lanes=2)

    async def main():
        return await asyncio.gather(*(batcher.submit(i) for i in range(8)))

    assert asyncio.run(main()) == list(range(8))
    assert most[0] == 2 and max(batcher.batches) == 2


def test_bad_sizes_are_refused():
    with pytest.raises(ValueError):
        Batcher(lambda items: items, _in_thread, size=0)


CONVERSATIONS = [
    [{"role": "user", "text": text}]
    for text in (
        "Tell me about hip roofs.",
        "What is the capital of France?",
        "I want pictures of roofs",
        "How do I build a hip roof?",
        "Tell me about the history of roofs",
        "thanks, that's all",
    )
] + [
    [
        {"role": "user", "text": "Tell me about hip roofs."},
        {"role": "system", "text": "Would you like to see pictures of hip roofs?"},
        {"role": "user", "text": answer},
    ]
    for answer in ("yes, pictures please", "no, how to build one", "no")
]


def test_concurrent_converse_replies_equal_sequential_ones(make_client, services, monkeypatch):
    from clarion.serve.config import Feature

    client = make_client()
    sequential = [client.post("/v1/converse", json={"turns": turns}).json() for turns in CONVERSATIONS]
    assistant = services.models[Feature.converse]
    original = assistant.reply_many
    sizes: list[int] = []

    def slow_reply_many(conversations):  # slow enough that concurrent requests queue into one batch
        sizes.append(len(conversations))
        time.sleep(0.05)
        return original(conversations)

    monkeypatch.setattr(assistant, "reply_many", slow_reply_many)
    bodies = CONVERSATIONS * 3
    with ThreadPoolExecutor(8) as pool:
        responses = list(pool.map(lambda turns: client.post("/v1/converse", json={"turns": turns}), bodies))
    assert [r.status_code for r in responses] == [200] * len(bodies)
    assert [r.json() for r in responses] == sequential * 3
    assert max(sizes) > 1 and sum(sizes) == len(bodies)


def test_concurrent_clarify_requests_get_their_own_answers(client):
    requests = ["Tell me about hip roofs.", "What is the capital of France?", "how to build a hip roof"] * 4
    sequential = {r: client.post("/v1/clarify", json={"request": r, "k": 3}).json() for r in set(requests)}
    with ThreadPoolExecutor(8) as pool:
        responses = list(pool.map(lambda r: client.post("/v1/clarify", json={"request": r, "k": 3}), requests))
    assert [r.json() for r in responses] == [sequential[r] for r in requests]

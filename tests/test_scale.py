"""clarion.scale: ordered blocks over Ray actors on a two-node loopback cluster (tests/ray_cluster.py)."""

from __future__ import annotations

import os
import sys
import time
from functools import partial

import pytest

from clarion.errors import InputError
from clarion.scale import Cluster, block_size, cluster_of, map_blocks


def _load(offset: int) -> dict:
    return {"offset": offset, "pid": os.getpid()}


def _shift(model: dict, block: list) -> list:
    time.sleep(0.01 * (len(block) - block[0] % 3))  # blocks finish out of order
    return [(x + model["offset"], model["pid"]) for x in block]


def _die_once(marker: str, model: dict, block: list) -> list:
    """The worker process exits (as if killed) on the first block holding 13; its retry succeeds."""
    if 13 in block and not os.path.exists(marker):
        open(marker, "w").close()
        os._exit(1)
    with open(f"{marker}.seen", "a") as log:
        log.write("".join(f"{x}\n" for x in block))
    return [x * 2 for x in block]


def _refuse(model: dict, block: list) -> list:
    if 5 in block:
        raise InputError("line 5: bad")
    return block


def test_options_name_a_cluster_or_none():
    assert cluster_of(None, None) is None
    assert cluster_of(2, None) == Cluster(2) and cluster_of(None, "auto") == Cluster(None, "auto")
    with pytest.raises(InputError, match="--workers"):
        cluster_of(0, None)
    with pytest.raises(InputError, match="--ray-address"):
        cluster_of(None, " ")
    assert block_size(3000, 2) == 32 and block_size(40, 2) == 3 and block_size(1, 4) == 1


def test_blocks_come_back_in_input_order_from_both_nodes(ray_cluster, by_value):
    by_value(sys.modules[__name__])
    items = list(range(97))
    seen: list[int] = []
    out = map_blocks(partial(_load, 1000), _shift, items, Cluster(None, ray_cluster), size=4, progress=seen.append)
    assert [x for x, _ in out] == [x + 1000 for x in items]
    assert len({pid for _, pid in out}) == 2  # one actor per CPU: one on each node
    assert sum(seen) == len(items) and len(seen) == 25


@pytest.mark.slow  # a worker's restart takes 10-20 s
def test_a_dead_worker_is_restarted_and_no_item_is_lost_or_doubled(ray_cluster, by_value, tmp_path):
    by_value(sys.modules[__name__])
    marker = str(tmp_path / "died")
    items = list(range(40))
    out = map_blocks(partial(_load, 0), partial(_die_once, marker), items, Cluster(None, ray_cluster), size=5)
    assert os.path.exists(marker)  # a worker did die
    assert out == [x * 2 for x in items]
    assert sorted(int(x) for x in open(f"{marker}.seen").read().split()) == items  # each block done exactly once


@pytest.mark.slow
def test_an_input_error_in_a_worker_is_raised_as_it_is(ray_cluster, by_value):
    by_value(sys.modules[__name__])
    with pytest.raises(InputError, match="line 5: bad"):
        map_blocks(partial(_load, 0), _refuse, list(range(10)), Cluster(None, ray_cluster), size=2)


def test_no_items_start_no_cluster():
    assert map_blocks(partial(_load, 0), _shift, [], Cluster(2)) == []

"""Tiny-config training of the whole ClariQ pipeline into a versioned model directory (slow tier).

With CLARION_TINY=1 (CI) the ranker uses the tiny config (3 folds, 20 rounds, shortlist 40) on a 30-topic
subset of train; without it the same subset is trained with the full config.
"""

from __future__ import annotations

import os

import pytest

from clarion.clariq.clarifier import Clarifier
from clarion.clariq.train import train_models
from clarion.data.clariq import ClariQ
from clarion.store import read_meta

from .test_ranker import _Subset

TINY = os.environ.get("CLARION_TINY") == "1"


@pytest.mark.slow
def test_train_models_writes_a_loadable_pipeline(data_root, tmp_path):
    data = _Subset(ClariQ.load(data_root).root)
    directory = train_models(data, ("train",), out_dir=tmp_path / "model", tiny=TINY)
    meta = read_meta(directory)
    assert meta["config"]["splits"] == ["train"] and meta["config"]["tiny"] == TINY
    assert 0 <= meta["metrics"]["ranker"]["no_question_at"] <= 30
    assert meta["metrics"]["peak_memory_mb"] > 0
    bot = Clarifier.load(directory)
    candidates = bot.rank("Tell me about Obama family tree.", k=30)
    assert len({c.id for c in candidates}) == 30
    assert all(a.score > b.score for a, b in zip(candidates, candidates[1:], strict=False))


@pytest.mark.slow
def test_retraining_is_reproducible(data_root, tmp_path):
    data = _Subset(ClariQ.load(data_root).root)
    first = train_models(data, ("train",), out_dir=tmp_path / "a", tiny=True)
    second = train_models(data, ("train",), out_dir=tmp_path / "b", tiny=True)
    assert read_meta(first)["metrics"]["ranker"] == read_meta(second)["metrics"]["ranker"]
    assert (first / "ranker" / "lambdamart1.txt").read_text() == (second / "ranker" / "lambdamart1.txt").read_text()

"""Shared fixtures of the ClariQ tests: a tiny question ranker trained once per session.

A tiny ranker (3 folds, 10 boosting rounds, shortlist 35, the packaged MiniLM alone) is trained on 30 train topics;
it is about the contract, not about quality.
"""

from __future__ import annotations

import pytest

from clarion.clariq.ranker import QuestionRanker
from clarion.clariq.ranker_config import RankerConfig
from clarion.clariq.ranker_training import fit_ranker
from clarion.data.clariq_constants import MIN_DEPTH


@pytest.fixture(scope="session")
def tiny_ranker(train_subset, tmp_path_factory):
    data = train_subset(30)
    config = RankerConfig(
        shortlist=MIN_DEPTH + 5, folds=3, rounds=10, min_data_in_leaf=5, stages=2, finetune_epochs=0, encoders=()
    )
    ranker = fit_ranker(QuestionRanker, data, ("train",), config)
    directory = ranker.save(tmp_path_factory.mktemp("ranker"))
    return ranker, directory, data

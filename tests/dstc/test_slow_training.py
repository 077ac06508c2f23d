"""Training on the real dstc11_track5 train split and scoring dev with the official-compatible scorer.

``CLARION_TINY=1`` (CI): 400 training contexts, lexical features only, the first 150 dev contexts — well under
a minute. Without it: the default configuration on the whole split (minutes; MiniLM embeddings are cached).
"""

from __future__ import annotations

import os

import pytest

from clarion.data.dstc_split import split_dataset
from clarion.dstc.models.pipeline import PipelineConfig
from clarion.dstc.models.train import train
from clarion.evaluate import dstc11

TINY = os.environ.get("CLARION_TINY") == "1"


@pytest.mark.slow
def test_train_on_train_split_and_score_dev(dstc11_data):
    config = PipelineConfig.tiny() if TINY else PipelineConfig()
    model, info = train(split_dataset(dstc11_data, "train"), config)
    dev = split_dataset(dstc11_data, "dev")
    if TINY:
        dev = dev.subset(range(150))
    preds = model.predict(dev)
    refs = [label.to_json(dev.format) for label in dev.labels]
    hyps = [pred.to_json(dev.format) for pred in preds]
    scores = dstc11.score(refs, hyps, meteor=False)
    assert scores["detection"]["f1"] > (0.9 if TINY else 0.98)
    assert scores["selection"]["f1"] > (0.15 if TINY else 0.6)
    assert scores["generation"]["rouge_l"] > (0.1 if TINY else 0.2)
    assert 0.0 < info["selection_threshold"] < 1.0

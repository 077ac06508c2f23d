"""The ClariQ pipeline's model directory is keyed by everything it holds."""

from __future__ import annotations

from dataclasses import asdict

from clarion.clariq.need import NeedConfig
from clarion.clariq.ranker import RankerConfig
from clarion.clariq.train import pipeline_config


def test_pipeline_config_holds_the_ranker_and_the_need_config():
    """The pipeline keeps a copy of the need model: a change of NeedConfig must name a new directory."""
    config = pipeline_config(("train",))
    assert config["ranker"] == asdict(RankerConfig()) and config["need"] == asdict(NeedConfig())
    tiny = pipeline_config(("train",), tiny=True)
    assert tiny["need"] == asdict(NeedConfig.tiny()) and tiny["ranker"] == asdict(RankerConfig.tiny())

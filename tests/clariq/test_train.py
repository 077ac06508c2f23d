"""The ClariQ pipeline's model directory is keyed by everything it holds."""

from __future__ import annotations

from dataclasses import asdict

import pytest

from clarion.clariq.need import NeedConfig
from clarion.clariq.ranker_config import RankerConfig
from clarion.clariq.train import pipeline_config


def test_pipeline_config_holds_the_ranker_and_the_need_config():
    """The pipeline keeps a copy of the need model: a change of NeedConfig must name a new directory."""
    config = pipeline_config(("train",))
    assert config["ranker"] == asdict(RankerConfig()) and config["need"] == asdict(NeedConfig())
    tiny = pipeline_config(("train",), tiny=True)
    assert tiny["need"] == asdict(NeedConfig.tiny()) and tiny["ranker"] == asdict(RankerConfig.tiny())


def test_a_failed_training_leaves_the_model_already_in_the_directory(data_root, tmp_path, monkeypatch):
    """``clarion clariq train --out DIR`` over a trained model: until both models are trained, DIR is not touched."""
    from clarion.clariq import train as train_module
    from clarion.clariq.ranker import QuestionRanker
    from clarion.data.clariq import ClariQ
    from clarion.errors import DataError

    def fail(*args, **kwargs):
        raise DataError("train.tsv", "expected 9 fields, found 2", line=9178)

    monkeypatch.setattr(QuestionRanker, "train", fail)
    directory = tmp_path / "model"
    directory.mkdir()
    (directory / "meta.json").write_text('{"config": {}}')
    with pytest.raises(DataError, match="train.tsv:9178"):
        train_module.train_models(ClariQ.load(data_root), ("train",), out_dir=directory)
    assert (directory / "meta.json").read_text() == '{"config": {}}'


def test_a_missing_bank_fails_before_a_training_is_announced(data_root, tmp_path, capsys):
    import shutil

    from clarion.clariq.clarifier import Clarifier
    from clarion.errors import DataError

    shutil.copytree(data_root / "clariq", tmp_path / "clariq", ignore=shutil.ignore_patterns("question_bank.tsv"))
    with pytest.raises(DataError, match="question_bank.tsv: no such file"):
        Clarifier.load(data_dir=tmp_path)
    assert "training" not in capsys.readouterr().err


def test_the_starter_pipeline_trains_without_fine_tunes_and_snaps_by_the_packaged_threshold(train_subset, tmp_path):
    """What a first conversation trains when nothing is cached: tiny here, the same recipe."""
    from clarion.clariq.clarifier import Clarifier
    from clarion.clariq.ranker_route import SNAP_PACKAGED
    from clarion.clariq.train import train_models
    from clarion.dialogue.loading import trained_models

    directory = train_models(train_subset(30), ("train",), out_dir=tmp_path / "starter", tiny=True, starter=True)
    bot = Clarifier.load(directory)
    assert bot.ranker.config.finetune_epochs == 0 and bot.ranker.config.encoders == () and bot.ranker.config.bag == 1
    assert bot.ranker.router.snap == SNAP_PACKAGED
    assert trained_models(directory).starter and trained_models(directory).splits == ("train",)
    assert len(bot.rank("Tell me about dinosaurs.", k=5)) == 5

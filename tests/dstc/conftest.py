"""DSTC model fixtures: the synthetic dataset of ``dstc_synthetic`` and a tiny model trained on it (the data fixtures
are in tests/dstc_files.py)."""

from __future__ import annotations

import pytest

from clarion.data.dstc import load_dataset


@pytest.fixture(scope="session")
def synthetic(tmp_path_factory):
    """The synthetic DSTC11 dataset of ``dstc_synthetic`` (24 contexts), loaded with labels."""
    from dstc_synthetic import write_synthetic

    return load_dataset(write_synthetic(tmp_path_factory.mktemp("syn")))


@pytest.fixture(scope="session")
def tiny_model(synthetic):
    """A model trained on ``synthetic`` with the tiny settings (lexical features only; seconds)."""
    from clarion.dstc.models.pipeline import PipelineConfig
    from clarion.dstc.models.train import train

    model, info = train(synthetic, PipelineConfig.tiny())
    assert 0.0 <= info["selection_threshold"] <= 1.0
    return model

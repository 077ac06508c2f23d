"""Shared fixtures: the bundled data directory and an isolated cache per test session."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

from clarion.data.location import data_dir  # noqa: E402


@pytest.fixture(scope="session")
def data_root() -> Path:
    root = data_dir()
    if not (root / "clariq").is_dir():
        pytest.skip("ClariQ data not found (../shared/data or CLARION_DATA_DIR)")
    return root


@pytest.fixture(scope="session")
def clariq_dir(data_root) -> Path:
    return data_root / "clariq"

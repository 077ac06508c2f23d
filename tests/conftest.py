"""Shared fixtures: the bundled data directory. Tests use the cache of `$CLARION_CACHE_DIR` (CI sets it)."""

from __future__ import annotations

import importlib.util
import os
from pathlib import Path

import pytest

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

from clarion.data.location import data_dir  # noqa: E402

pytest_plugins = ["dstc_files", "ray_cluster"]


def _data_missing(message: str) -> None:
    """Skip a test whose dataset is absent, except in CI, which has ../shared beside the checkout: a skip there
    would silently hide every data-backed test."""
    if os.environ.get("CI"):
        pytest.fail(message)
    pytest.skip(message)


@pytest.fixture(scope="session")
def smollm2() -> None:
    """Skip without SmolLM2's weights, except on CI, which installs them (.ci/run: weights.txt)."""
    from clarion.errors import ModelError
    from clarion.retrieve.smollm import gguf_path

    try:
        gguf_path()
    except ModelError as err:
        _data_missing(str(err))


@pytest.fixture(scope="session")
def data_root() -> Path:
    root = data_dir()
    if not (root / "clariq").is_dir():
        _data_missing("ClariQ data not found (../shared/data or CLARION_DATA_DIR)")
    return root


@pytest.fixture(scope="session")
def data_missing():
    """``data_missing(message)``: skip, or fail in CI (see ``_data_missing``)."""
    return _data_missing


@pytest.fixture(scope="session")
def clariq_dir(data_root) -> Path:
    return data_root / "clariq"


@pytest.fixture(scope="session")
def train_subset(data_root):
    """``train_subset(n)``: ClariQ with the train labels cut to their first ``n`` topics; the bank and the request
    pool stay whole, so the other train requests are known, unlabelled requests."""
    from clarion.data.clariq import ClariQ

    data = ClariQ.load(data_root)
    return lambda n: data.restricted_to("train", list(data.labels("train").questions)[:n])


@pytest.fixture(scope="session")
def load_benchmark():
    """A loader of the script ``benchmarks/<name>.py`` as a module (the benchmarks are scripts, not a package), for
    tests of its functions: ``load_benchmark("dstc_cv")``."""

    def load(name: str):
        path = Path(__file__).resolve().parents[1] / "benchmarks" / f"{name}.py"
        spec = importlib.util.spec_from_file_location(f"benchmark_{name}", path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        return module

    return load

"""Data directory resolution order and the offline fetch failure."""

from __future__ import annotations

import time

import pytest

from clarion.data import location
from clarion.errors import DataError, InputError, NetworkError


def test_order(tmp_path, monkeypatch):
    explicit, env = tmp_path / "explicit", tmp_path / "env"
    explicit.mkdir()
    env.mkdir()
    monkeypatch.setenv("CLARION_DATA_DIR", str(env))
    assert location.data_dir(explicit) == explicit
    assert location.data_dir() == env
    monkeypatch.delenv("CLARION_DATA_DIR")
    monkeypatch.setenv("CLARION_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(location, "_REPO_ROOT", tmp_path / "repo")
    assert location.data_dir() == tmp_path / "cache" / "data"
    (tmp_path / "shared" / "data").mkdir(parents=True)
    monkeypatch.setattr(location, "_REPO_ROOT", tmp_path / "repo")
    assert location.data_dir() == tmp_path / "shared" / "data"


def test_missing_dirs_are_errors(tmp_path, monkeypatch):
    with pytest.raises(DataError, match="--data-dir"):
        location.data_dir(tmp_path / "nope")
    monkeypatch.setenv("CLARION_DATA_DIR", str(tmp_path / "nope"))
    with pytest.raises(DataError, match="CLARION_DATA_DIR"):
        location.data_dir()
    monkeypatch.setenv("CLARION_DATA_DIR", str(tmp_path))
    with pytest.raises(DataError, match="clarion data fetch clariq"):
        location.dataset_dir("clariq")


def test_fetch_without_network_fails_fast(tmp_path, monkeypatch):
    from clarion.data import fetch

    monkeypatch.setattr(fetch, "CLARIQ_API", "http://127.0.0.1:9/contents")
    monkeypatch.setattr(fetch.list_clariq, "__defaults__", ("http://127.0.0.1:9/contents", 2.0))
    start = time.monotonic()
    with pytest.raises(NetworkError, match="cannot reach"):
        fetch.fetch_clariq(tmp_path / "clariq")
    assert time.monotonic() - start < 10
    assert not (tmp_path / "clariq").exists()


def test_a_data_dir_that_is_no_path_is_an_input_error():
    with pytest.raises(InputError, match="data_dir must be a path"):
        location.dataset_dir("clariq", 5)


def test_a_data_dir_that_is_a_file_is_called_one(tmp_path, monkeypatch):
    (tmp_path / "file").write_text("x")
    monkeypatch.setenv("CLARION_DATA_DIR", str(tmp_path / "file"))
    with pytest.raises(DataError, match="data directory is a file, not a directory"):
        location.data_dir()

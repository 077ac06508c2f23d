"""Versioned model directories: complete only once meta.json is written."""

from __future__ import annotations

import pytest

from clarion.errors import ModelError
from clarion.store import begin, is_complete, read_meta, write_meta


def test_a_directory_is_complete_only_between_write_meta_and_the_next_begin(tmp_path):
    directory = begin(tmp_path / "models" / "m")
    assert directory.is_dir() and not is_complete(directory)
    (directory / "weights.txt").write_text("old")
    write_meta(directory, {"c": 1}, "abc", {"f1": 0.5})
    assert is_complete(directory) and read_meta(directory)["data_fingerprint"] == "abc"
    begin(directory)  # retraining over it: a crash from here on must not leave it looking finished
    assert not is_complete(directory) and (directory / "weights.txt").exists()


def test_read_meta_of_an_incomplete_directory_is_a_model_error(tmp_path):
    with pytest.raises(ModelError):
        read_meta(begin(tmp_path / "m"))


def test_meta_records_the_environment_that_trained_the_model(tmp_path):
    import lightgbm
    import numpy

    write_meta(tmp_path, {"c": 1}, "abc")
    env = read_meta(tmp_path)["environment"]
    assert env["numpy"] == numpy.__version__ and env["lightgbm"] == lightgbm.__version__
    assert env["cpu"] and env["python"].count(".") == 2

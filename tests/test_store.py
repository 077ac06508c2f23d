"""Versioned model directories: complete only once meta.json is written."""

from __future__ import annotations

import pytest

from clarion.errors import ModelError
from clarion.store import begin, ensure, is_complete, read_meta, write_meta


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


def test_a_cache_that_cannot_hold_models_is_refused_before_any_training(tmp_path, monkeypatch):
    from clarion.store import writable_cache

    monkeypatch.setenv("CLARION_CACHE_DIR", str(tmp_path / "cache"))
    assert writable_cache() == tmp_path / "cache" and not list((tmp_path / "cache" / "models").iterdir())
    (tmp_path / "file").write_text("not a directory")
    monkeypatch.setenv("CLARION_CACHE_DIR", str(tmp_path / "file"))
    with pytest.raises(ModelError, match=r"file: the cache directory cannot be written \(Not a directory\)"):
        writable_cache()


def test_fingerprinting_a_missing_data_file_names_it(tmp_path):
    from clarion.data.io import fingerprint_files
    from clarion.errors import DataError

    with pytest.raises(DataError, match=r"labels.json: no such file"):
        fingerprint_files([tmp_path / "labels.json"])


def test_two_writers_of_one_directory_take_turns(tmp_path):
    """Two trainings saving into one --out at once: the second begins only after the first wrote meta.json, so
    the directory ends as one whole model (a mix of both looked finished and failed to load before)."""
    import threading

    from clarion.store import writing

    order, first_inside = [], threading.Event()

    def save(name: str, hold: float) -> None:
        with writing(tmp_path / "m") as directory:
            first_inside.set()
            order.append(f"{name} begins")
            (directory / "weights.txt").write_text(name)
            threading.Event().wait(hold)
            write_meta(directory, {"who": name}, "fp", {})
            order.append(f"{name} done")

    a = threading.Thread(target=save, args=("a", 0.5))
    a.start()
    first_inside.wait()
    b = threading.Thread(target=save, args=("b", 0))
    b.start()
    a.join()
    b.join()
    assert order == ["a begins", "a done", "b begins", "b done"]
    assert read_meta(tmp_path / "m")["config"] == {"who": "b"} and (tmp_path / "m" / "weights.txt").read_text() == "b"


def test_an_emptied_meta_json_is_a_damaged_model(tmp_path):
    directory = begin(tmp_path / "m")
    (directory / "meta.json").write_text("")
    with pytest.raises(ModelError, match=r"meta.json: file is empty; retrain it"):
        read_meta(directory)
    (directory / "meta.json").write_text("[]")
    with pytest.raises(ModelError, match=r"not a model's meta.json"):
        read_meta(directory)


def test_ensure_trains_once_says_so_and_retrains_a_stale_format(tmp_path, monkeypatch):
    monkeypatch.setenv("CLARION_CACHE_DIR", str(tmp_path / "cache"))
    said, trained = [], []

    def train(directory):
        trained.append(directory)
        write_meta(begin(directory), {}, "fp")

    target = tmp_path / "cache" / "models" / "t" / "m"
    assert ensure(target, train, "the model", "data", say=said.append) == target
    assert said == [f"the model is not trained yet: training it on data -> {target}"] and trained == [target]
    ensure(target, train, "the model", "data", say=said.append)
    assert len(trained) == 1 and len(said) == 1  # finished: loaded, not trained again
    ensure(target, train, "the model", "data", stale=lambda d: True, say=said.append)
    assert said[-1].startswith("the model was saved by an older clarion: retraining it") and len(trained) == 2


def test_ensure_checks_the_training_data_before_announcing(tmp_path, monkeypatch):
    from clarion.errors import InputError

    monkeypatch.setenv("CLARION_CACHE_DIR", str(tmp_path / "cache"))
    said = []

    def missing():
        raise InputError("train.tsv is missing")

    with pytest.raises(InputError, match="missing"):
        ensure(tmp_path / "m", lambda d: None, "the model", "data", ready=missing, say=said.append)
    assert said == []

"""Which ClariQ models the conversation engine uses when none is named: train+dev when cached, else the train-only
ones ``clarion clariq benchmark`` trains, loaded as they are (not trained again), else the starter models (trained in
about a minute), said so in one line."""

from __future__ import annotations

from types import SimpleNamespace

import pytest


@pytest.fixture
def cache(monkeypatch, tmp_path):
    monkeypatch.setenv("CLARION_CACHE_DIR", str(tmp_path / "cache"))
    return tmp_path / "cache"


def _finished(data, splits, starter=False):
    """A finished (empty) ClariQ model directory for ``splits`` in the cache."""
    from clarion.clariq.train import default_model_dir
    from clarion.store import write_meta

    directory = default_model_dir(data, splits, starter=starter)
    directory.mkdir(parents=True)
    write_meta(directory, {"splits": list(splits)} | ({"starter": True} if starter else {}), "test")
    return directory


def test_engine_models_prefer_train_dev_then_train_then_the_starter_models(cache, data_root):
    from clarion.clariq.train import EngineModels, engine_models
    from clarion.data.clariq import ClariQ

    data, said = ClariQ.load(data_root), []
    assert engine_models(data, said.append) == EngineModels(("train", "dev"), starter=True)  # nothing cached
    assert "starter models" in said[-1] and "`clarion chat --prepare` trains the full ones" in said[-1]
    assert engine_models(data, said.append, starter=False) == EngineModels(("train",))  # the benchmark's, trained
    _finished(data, ("train", "dev"), starter=True)
    assert engine_models(data, said.append) == EngineModels(("train", "dev"), starter=True)
    _finished(data, ("train",))
    assert engine_models(data, said.append) == EngineModels(("train",))  # full models before the starter ones
    _finished(data, ("train", "dev"))
    said.clear()
    assert engine_models(data, said.append) == EngineModels(("train", "dev")) and said == []


def test_the_starter_model_has_its_own_directory_and_a_lighter_ranker(data_root):
    from clarion.clariq.train import default_model_dir, pipeline_config
    from clarion.data.clariq import ClariQ

    data = ClariQ.load(data_root)
    assert default_model_dir(data, ("train",), starter=True) != default_model_dir(data, ("train",))
    full, starter = pipeline_config(("train",)), pipeline_config(("train",), starter=True)
    assert "starter" not in full and starter["starter"] is True  # the full models' directory names did not change
    assert starter["ranker"]["finetune_epochs"] == 0 and not starter["ranker"]["encoders"]
    assert {k: v for k, v in starter["ranker"].items() if k not in ("finetune_epochs", "encoders", "bag")} == {
        k: v for k, v in full["ranker"].items() if k not in ("finetune_epochs", "encoders", "bag")
    }


def test_clarifier_loads_the_cached_train_only_model_without_training(cache, data_root, monkeypatch):
    import clarion.clariq.clarifier as clarifier
    import clarion.clariq.train as train
    from clarion.data.clariq import ClariQ

    directory = _finished(ClariQ.load(data_root), ("train",))
    monkeypatch.setattr(train, "train_models", lambda *a, **k: pytest.fail("trained a cached model"))
    bank = SimpleNamespace(bank_ids=[], bank_texts=[])
    monkeypatch.setattr(clarifier.QuestionRanker, "load", staticmethod(lambda path: SimpleNamespace(context=bank)))
    bot = clarifier.Clarifier.load(data_dir=data_root, splits=["train"])
    assert bot.directory == directory


def _record_parts(monkeypatch):
    """load_parts' models replaced by records of the splits they were asked for."""
    import clarion.dialogue.loading as loading
    import clarion.dialogue.training as training
    from clarion.clariq.clarifier import Clarifier

    asked: dict = {}

    def clarifier_load(model_dir=None, data_dir=None, progress=None, splits=None, starter=False):
        asked["clarifier"] = splits
        asked["starter"] = starter
        return SimpleNamespace(directory=model_dir)

    def rewriter_load(data, splits, config=None, **k):
        asked["rewriter"], asked["rewriter_rows"] = splits, config.rows
        return "rewriter"

    monkeypatch.setattr(Clarifier, "load", staticmethod(clarifier_load))
    monkeypatch.setattr(training, "load_or_train", rewriter_load)
    monkeypatch.setattr(loading, "chooser_for", lambda clarifier: "chooser")
    return asked


def test_engine_uses_the_train_only_models_when_train_dev_is_absent_and_says_so(cache, data_root, monkeypatch, capsys):
    from clarion.data.clariq import ClariQ
    from clarion.dialogue.loading import load_parts
    from clarion.dialogue.training import RewriterConfig

    monkeypatch.setenv("CLARION_DATA_DIR", str(data_root))
    directory = _finished(ClariQ.load(data_root), ("train",))
    asked = _record_parts(monkeypatch)
    load_parts(None, None, None, None)
    assert asked["clarifier"] == asked["rewriter"] == ("train",)  # the answer model on the same splits
    assert asked["starter"] is False and asked["rewriter_rows"] == RewriterConfig().rows
    said = capsys.readouterr().err.strip().splitlines()
    assert len(said) == 1 and "trained on ClariQ train" in said[0] and str(directory) in said[0]
    assert "`clarion clariq train` trains the train+dev ones" in said[0]


def test_engine_uses_train_dev_when_cached_and_says_nothing(cache, data_root, monkeypatch, capsys):
    from clarion.data.clariq import ClariQ
    from clarion.dialogue.loading import load_parts

    monkeypatch.setenv("CLARION_DATA_DIR", str(data_root))
    data = ClariQ.load(data_root)
    _finished(data, ("train",))
    _finished(data, ("train", "dev"))
    asked = _record_parts(monkeypatch)
    load_parts(None, None, None, None)
    assert asked["clarifier"] == asked["rewriter"] == ("train", "dev") and asked["starter"] is False
    assert capsys.readouterr().err == ""
    load_parts(None, None, None, None, ("train",))  # a caller that names the splits gets them, silently
    assert asked["clarifier"] == ("train",) and capsys.readouterr().err == ""


def test_with_nothing_trained_the_engine_trains_the_starter_models_and_a_starter_rewriter(
    cache, data_root, monkeypatch, capsys
):
    from clarion.dialogue.loading import load_parts
    from clarion.dialogue.training import RewriterConfig

    monkeypatch.setenv("CLARION_DATA_DIR", str(data_root))
    asked = _record_parts(monkeypatch)
    load_parts(None, None, None, None)
    assert asked["clarifier"] == asked["rewriter"] == ("train", "dev") and asked["starter"] is True
    assert asked["rewriter_rows"] == RewriterConfig.starter().rows < RewriterConfig().rows
    assert "starter models" in capsys.readouterr().err
    load_parts(None, None, None, None, starter=False)  # chat --prepare: the full train-only models
    assert asked["clarifier"] == ("train",) and asked["starter"] is False


def test_a_named_starter_model_gets_the_starter_rewriter(cache, data_root, monkeypatch):
    """A ``--workers`` worker is given the driver's model directory: a starter one keeps its starter rewriter."""
    from clarion.data.clariq import ClariQ
    from clarion.dialogue.loading import load_parts
    from clarion.dialogue.training import RewriterConfig

    monkeypatch.setenv("CLARION_DATA_DIR", str(data_root))
    directory = _finished(ClariQ.load(data_root), ("train", "dev"), starter=True)
    asked = _record_parts(monkeypatch)
    load_parts(None, None, directory, None)
    assert asked["rewriter"] == ("train", "dev") and asked["rewriter_rows"] == RewriterConfig.starter().rows


def test_converse_workers_load_the_models_the_driver_chose(monkeypatch, tmp_path):
    """With --workers the driver's choice (say the train-only models) is passed on, not made again per worker."""

    from clarion.cli import converse

    chosen = tmp_path / "pipeline-train"
    passed = {}
    conversations = tmp_path / "in.jsonl"
    conversations.write_text('{"id": 1, "turns": [{"role": "user", "text": "hi"}]}\n')
    engine = SimpleNamespace(clarifier=SimpleNamespace(directory=chosen))
    monkeypatch.setattr(converse, "load_assistant", lambda *a: engine)
    monkeypatch.setattr(converse, "cluster_of", lambda workers, address: "cluster")

    def map_with_bar(load, decide, lines, cluster, what):
        passed["model_dir"] = load.args[2]
        return [{"id": 1, "action": "answer"}]

    monkeypatch.setattr(converse, "map_with_bar", map_with_bar)
    converse.converse(conversations, tmp_path / "out.jsonl", workers=2)
    assert passed["model_dir"] == chosen.resolve()

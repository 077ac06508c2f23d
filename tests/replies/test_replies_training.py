"""Slow tier (CI: ``CLARION_TINY=1``): the default model trained when absent, the LambdaMART and BiLSTM methods
trained, saved and reloaded."""

from __future__ import annotations

import pytest

from clarion.replies import ReplyRanker
from clarion.replies.training import default_data, evaluate_rows, train_into

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def data(data_root):
    train, dev, _ = default_data()
    return train, dev[:120]


def test_default_model_is_trained_when_absent_and_says_so(tmp_path, monkeypatch, capsys, data_root):
    monkeypatch.setenv("CLARION_CACHE_DIR", str(tmp_path))
    monkeypatch.setenv("CLARION_TINY", "1")
    ranker = ReplyRanker.load()
    assert "the default reply ranker (quality-ensemble) is not trained yet" in capsys.readouterr().err
    assert ranker.method.name == "quality-ensemble" and str(tmp_path) in str(ranker.directory)
    order = ranker.rank(["Do you like dogs?"], ["Yes, I have two of them!", "The invoice is attached."])
    assert sorted(order) == [0, 1]
    ReplyRanker.load()
    assert "the default reply ranker (quality-ensemble) is not trained yet" not in capsys.readouterr().err


@pytest.mark.parametrize("method", ["lambdamart", "bilstm"])
def test_methods_beat_random_on_dev_and_reload(tmp_path, monkeypatch, data, method):
    monkeypatch.setenv("CLARION_TINY", "1")
    train, dev = data
    directory = train_into(tmp_path / method, train, "tiny", method=method, dev=dev)
    ranker, random = ReplyRanker.load(directory), ReplyRanker.load(train_into(tmp_path / "r", train, "t", "random"))
    assert evaluate_rows(ranker, dev, cached=False)["ndcg"] > evaluate_rows(random, dev)["ndcg"]
    context, replies = ["Where are you going?"], ["To the market.", "Blue."]
    assert ReplyRanker.load(directory).score(context, replies) == ranker.score(context, replies)

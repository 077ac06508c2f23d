"""The benchmark scores methods with train-only models and re-scores the official runs exactly."""

from __future__ import annotations

import pytest

from clarion.clariq.benchmark import confusion, run_benchmark
from clarion.clariq.methods import RANK_METHODS, rank_method
from clarion.data.clariq import ClariQ
from clarion.errors import InputError


def test_benchmark_rows(data_root):
    result = run_benchmark(ClariQ.load(data_root), "dev", ["bm25"], ["majority"])
    names = [name for name, _, _ in result.questions]
    assert names[0] == "bm25" and "official run dev_BERT-ranker" in names
    official = dict((n, s) for n, s, _ in result.questions)["official run dev_bm25"]
    assert round(official["Recall30"], 4) == 0.6913
    assert 0.6 < result.questions[0][1]["Recall30"] < 0.8
    assert sum(map(sum, result.confusion["majority"])) == 50
    docs = dict(result.documents)
    assert round(docs["official run dev_bm25"]["MRR100"], 4) == 0.3096


def test_confusion_counts():
    assert confusion({"a": 1, "b": 2}, {"a": 2, "b": 2})[0] == [0, 1, 0, 0]


def test_unknown_split_lists_choices(data_root):
    with pytest.raises(InputError, match="unknown split 'nope'; choose one of: train, dev, test"):
        run_benchmark(ClariQ.load(data_root), "nope", ["bm25"], [])


def test_unknown_method_lists_choices():
    with pytest.raises(InputError, match="choose one of: " + ", ".join(RANK_METHODS)):
        rank_method("nope")


def test_only_the_training_split_is_in_sample():
    from clarion.clariq.benchmark import in_sample

    assert in_sample("train") and not in_sample("dev") and not in_sample("test")

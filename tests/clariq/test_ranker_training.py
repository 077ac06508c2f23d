"""Tiny-config training of the whole ClariQ pipeline into a versioned model directory (slow tier).

With CLARION_TINY=1 (CI) the pipeline uses the tiny configs on a 30-topic subset of train; without it the
same subset is trained with the full config. Reproducibility is checked on a two-fold ranker.
"""

from __future__ import annotations

import json
import os

import pytest
from typer.testing import CliRunner

from clarion.clariq.clarifier import Clarifier
from clarion.clariq.ranker import QuestionRanker
from clarion.clariq.ranker_config import RankerConfig
from clarion.clariq.ranker_training import fit_ranker
from clarion.clariq.train import train_models
from clarion.cli import app
from clarion.store import read_meta

TINY = os.environ.get("CLARION_TINY") == "1"


@pytest.mark.slow
def test_train_models_writes_a_loadable_pipeline(train_subset, tmp_path):
    data = train_subset(30)
    directory = train_models(data, ("train",), out_dir=tmp_path / "model", tiny=TINY)
    meta = read_meta(directory)
    assert meta["config"]["splits"] == ["train"] and meta["config"]["tiny"] == TINY
    assert 0 <= meta["metrics"]["ranker"]["no_question_at"] <= 30
    assert meta["metrics"]["peak_memory_mb"] > 0
    # it learned something: out-of-fold and on dev (unseen topics), well above what BM25 reaches on dev (0.69)
    assert meta["metrics"]["ranker"]["cv_Recall30"] > 0.7
    bot = Clarifier.load(directory)
    dev = data.labels("dev")
    found = [
        len(set(dev.questions[t]) & {c.id for c in bot.rank(request, k=30)}) / len(dev.questions[t])
        for t, request in dev.requests.items()
    ]
    assert sum(found) / len(found) > 0.75
    candidates = bot.rank("Tell me about Obama family tree.", k=30)
    assert len({c.id for c in candidates}) == 30
    assert all(a.score > b.score for a, b in zip(candidates, candidates[1:], strict=False))
    # the same request through `clarion clariq clarify` (one JSON object: need, probabilities, questions)
    result = CliRunner().invoke(
        app, ["clariq", "clarify", "--model", str(directory), "--k", "4", "--json", "Tell me about Obama family tree."]
    )
    assert result.exit_code == 0, result.output
    shown = json.loads(result.stdout)
    assert shown["need"] == bot.need("Tell me about Obama family tree.")[0] and len(shown["probabilities"]) == 4
    assert shown["ranked_as"] is None and shown["whole_bank"] is False  # a known request: the pipeline
    assert shown["fits"] is True  # a known request's questions are all offered
    assert [q["id"] for q in shown["questions"]] == [c.id for c in candidates[:4]]
    # the plain form says what the yes/no rests on, and --threshold moves it as should_clarify's threshold does
    unclear = 1 - bot.need("Tell me about Obama family tree.")[1][1]
    for threshold in (0.01, 1.0):
        args = [
            "clariq",
            "clarify",
            "--model",
            str(directory),
            "--threshold",
            str(threshold),
            "Tell me about Obama family tree.",
        ]
        result = CliRunner().invoke(app, args)
        ask = bot.should_clarify("Tell me about Obama family tree.", threshold=threshold)
        assert result.exit_code == 0 and f"ask: {'yes' if ask else 'no'} (P(need >= 2) {unclear:.2f}" in result.stdout
    # '-': one request per stdin line, each answered as it is read; a bad line gets its error and the rest go on
    args = ["clariq", "clarify", "--model", str(directory), "--k", "4", "--json", "-"]
    result = CliRunner().invoke(app, args, input=" Tell me about Obama family tree.\n?!\n")
    assert result.exit_code == 2
    first, second = (json.loads(line) for line in result.stdout.splitlines())
    assert first == {"line": 1, "request": "Tell me about Obama family tree.", **shown}
    assert second == {"line": 2, "error": "request '?!' has no letter or digit: give the user's request in words"}
    assert result.stderr == f"error: <stdin>:2: {second['error']}\n"


@pytest.mark.slow
def test_retraining_is_reproducible(train_subset):
    data = train_subset(30)
    config = RankerConfig(shortlist=35, folds=2, rounds=10, min_data_in_leaf=5, stages=2, finetune_epochs=0.25)
    first = fit_ranker(QuestionRanker, data, ("train",), config)
    second = fit_ranker(QuestionRanker, data, ("train",), config)
    assert first.cv_metrics == second.cv_metrics
    # the per-topic out-of-fold recalls behind the CV means: one value per training topic, averaging to them
    per_topic = first.cv_evaluation.per_query["Recall30"]
    assert len(per_topic) == 30 and all(0 <= v <= 1 for v in per_topic.values())
    assert round(first.cv_evaluation["Recall30"], 4) == first.cv_metrics["cv_Recall30"]
    assert first.cv_evaluation.per_query == second.cv_evaluation.per_query
    assert [m.to_text() for m in first.models] == [m.to_text() for m in second.models]
    requests = [t.request for t in data.topics("dev")[:5]]
    assert first.rank(requests) == second.rank(requests)

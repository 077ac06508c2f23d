"""Generic ranking metrics through ranx on clarion's plain dicts."""

from __future__ import annotations

import pytest

from clarion.errors import InputError
from clarion.evaluate.ranking import compare, evaluate


def test_metrics_by_hand():
    qrels = {"q1": {"a": 1}, "q2": {"x": 2, "y": 1}}
    run = {"q1": {"b": 0.9, "a": 0.5}, "q2": {"x": 0.9, "y": 0.8}}
    result = evaluate(qrels, run, ["mrr", "precision@1", "recall@1"])
    assert result.means == pytest.approx({"mrr": 0.75, "precision@1": 0.5, "recall@1": 0.25})
    assert result.per_query["mrr"] == pytest.approx({"q1": 0.5, "q2": 1.0})


def test_missing_query_scores_zero_and_inputs_untouched():
    run = {"q1": {"a": 1.0}}
    evaluate({"q1": {"a": 1}, "q2": {"b": 1}}, run, ["mrr"])
    assert run == {"q1": {"a": 1.0}}
    assert evaluate({"q1": {"a": 1}, "q2": {"b": 1}}, run, ["mrr"]).means["mrr"] == 0.5


def test_compare_reports_significance():
    qrels = {f"q{i}": {"a": 1} for i in range(30)}
    good = {q: {"a": 1.0, "b": 0.5} for q in qrels}
    bad = {q: {"a": 0.1, "b": 0.5} for q in qrels}
    report = compare(qrels, {"good": good, "bad": bad}, ["mrr"])
    data = report.to_dict()
    assert data["good"]["scores"]["mrr"] == 1.0
    assert "bad" in str(report)
    with pytest.raises(InputError):
        compare(qrels, {"only": good})

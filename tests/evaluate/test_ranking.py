"""Generic ranking metrics through ranx on clarion's plain dicts."""

from __future__ import annotations

import pytest

from clarion.errors import InputError
from clarion.evaluate.ranking import MAX_CUTOFF, check_metrics, compare, evaluate


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
    # whatever the judged documents are called: a placeholder name among them must not be "retrieved"
    judged = {"q1": {"a": 1}, "q2": {"__none__": 1, "__none___": 1}}
    assert evaluate(judged, run, ["mrr"]).per_query["mrr"] == {"q1": 1.0, "q2": 0.0}


def test_compare_reports_significance():
    qrels = {f"q{i}": {"a": 1} for i in range(30)}
    first, second = {"a": 1.0, "b": 0.5}, {"a": 0.1, "b": 0.5}
    good = {q: first for q in qrels}
    bad = {q: first if i % 3 == 0 else second for i, q in enumerate(qrels)}  # MRR 1 or 1/2: a real paired test
    report = compare(qrels, {"good": good, "bad": bad}, ["mrr"])
    data = report.to_dict()
    assert data["good"]["scores"]["mrr"] == 1.0 and data["bad"]["scores"]["mrr"] == pytest.approx(2 / 3)
    assert data["good"]["comparisons"]["bad"]["mrr"] < 0.05
    assert "1.000ᵇ" in str(report)  # good is marked significantly better than run b
    odd = {q: first if i % 2 else second for i, q in enumerate(qrels)}
    even = {q: second if i % 2 else first for i, q in enumerate(qrels)}  # the same mean, opposite queries
    tie = compare(qrels, {"odd": odd, "even": even}, ["mrr"])
    assert tie.to_dict()["odd"]["comparisons"]["even"]["mrr"] > 0.05 and "ᵇ" not in str(tie)
    with pytest.raises(InputError, match="^compare needs at least two runs$"):
        compare(qrels, {"only": good})


def test_compare_default_threshold_is_0_05():
    """5 of 30 queries lose half their MRR: paired differences 1/2 (5 times) and 0 (25 times), so Student's
    t = sqrt(s (n - 1) / (1 - s)) with the share s = 5/30 and n = 30: sqrt(5.8) = 2.41 on 29 degrees of freedom,
    p = 0.023. Significant at clarion's default max_p 0.05 (ranx's own default, 0.01, would not mark it) and at 1."""
    qrels = {f"q{i}": {"a": 1} for i in range(30)}
    first, second = {"a": 1.0, "b": 0.5}, {"a": 0.1, "b": 0.5}
    good = {q: first for q in qrels}
    bad = {q: second if i < 5 else first for i, q in enumerate(qrels)}
    report = compare(qrels, {"good": good, "bad": bad}, ["mrr"])
    assert report.to_dict()["good"]["comparisons"]["bad"]["mrr"] == pytest.approx(0.0226, abs=1e-4)
    assert "1.000ᵇ" in str(report)
    assert "1.000ᵇ" in str(compare(qrels, {"good": good, "bad": bad}, ["mrr"], max_p=1))
    assert "ᵇ" not in str(compare(qrels, {"good": good, "bad": bad}, ["mrr"], max_p=0.01))
    assert compare(qrels, {"good": good, "bad": bad}, ["mrr"], test="fisher").to_dict()["stat_test"] == "fisher"


@pytest.mark.parametrize(
    ("qrels", "run", "metrics", "message"),
    [
        ({"q1": {"a": 1}}, {"q1": {"a": float("nan")}}, ["mrr"], r"run\['q1'\]\['a'\]: score nan is not a finite"),
        ({"q1": {"a": 1}}, {"q1": {"a": float("inf")}}, ["mrr"], "score inf is not a finite"),
        ({"q1": {"a": 1}}, {"q1": {"a": "x"}}, ["mrr"], "score 'x' is not a finite"),
        ({"q1": {"a": 1}}, {"q1": {"a": 1.0}}, ["ndcg@0"], "unknown metric 'ndcg@0'"),
        (
            {"q1": {"a": 1}},
            {"q1": {"a": 1.0}},
            ["bogus"],
            "unknown metric 'bogus': use one of hits, hit_rate, precision,",
        ),
        ({"q1": {"a": 1}}, {"q1": {"a": 1.0}}, "mrr", "metrics must be a non-empty list"),
        ({"q1": {"a": 1}}, {"q1": {"a": 1.0}}, [], r"^metrics must be a non-empty list of metric names .*, got \[\]$"),
        (["q1"], {"q1": {"a": 1.0}}, ["mrr"], r"^qrels and run must be dicts query id -> \{doc id: value\}$"),
        ({"q1": {"a": 1}}, [("q1", "a")], ["mrr"], r"^qrels and run must be dicts"),
        ({}, {"q1": {"a": 1.0}}, ["mrr"], "^qrels are empty: nothing to evaluate against$"),
        ({"q1": {}}, {"q1": {"a": 1.0}}, ["mrr"], r"qrels\['q1'\] has no judgments"),
        ({"q1": {"a": 1}}, {"q1": {"a": 1.0}}, ["ndcg@100000000000000000000"], "cut-off or level must be at most"),
        ({"q1": {"a": 1}}, {"q1": {"a": 1.0}}, ["ndcg@1000001"], "at most 1,000,000"),
        ({"q1": {"a": 10**20}}, {"q1": {"a": 1.0}}, ["mrr"], r"qrels\['q1'\]\['a'\]: relevance must be a whole"),
        ({"q1": {"a": 1.5}}, {"q1": {"a": 1.0}}, ["mrr"], r"relevance must be a whole number .*, got 1.5"),
        ({"q1": {"a": "1"}}, {"q1": {"a": 1.0}}, ["mrr"], r"relevance must be a whole number .*, got '1'"),
        (
            {"q1": ["a"]},
            {"q1": {"a": 1.0}},
            ["mrr"],
            r"^qrels\['q1'\] must be a dict doc id -> integer relevance, got list$",
        ),
    ],
)
def test_evaluate_refuses_bad_input(qrels, run, metrics, message):
    with pytest.raises(InputError, match=message):
        evaluate(qrels, run, metrics)


@pytest.mark.filterwarnings("ignore:unsafe cast")  # ranx's rbp kernel
def test_evaluate_takes_ranx_metric_spellings():
    qrels, run = {"q": {"a": 2}}, {"q": {"a": 1.0}}
    assert evaluate(qrels, run, ["ndcg@10-l2", "rbp.95", "r-precision", "hit_rate@5"]).means["ndcg@10-l2"] == 1.0


def test_cutoffs_up_to_max_cutoff_are_taken():
    assert check_metrics([f"ndcg@{MAX_CUTOFF}", f"precision@1-l{MAX_CUTOFF}"]) == [
        "ndcg@1000000",
        "precision@1-l1000000",
    ]


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"test": "bogus"}, "^unknown test 'bogus': use one of student, fisher, tukey$"),
        ({"max_p": 5}, r"^max_p must be a probability in \(0, 1\], got 5$"),
        ({"max_p": 1.5}, "got 1.5"),
        ({"max_p": 0}, "got 0"),
        ({"max_p": True}, "got True"),
        ({"max_p": "0.05"}, "got '0.05'"),
    ],
)
def test_compare_refuses_bad_options(options, message):
    qrels = {"q": {"a": 1}}
    with pytest.raises(InputError, match=message):
        compare(qrels, {"a": {"q": {"a": 1.0}}, "b": {"q": {"a": 0.5}}}, ["mrr"], **options)


def test_evaluate_silences_numba_cast_warnings_only(monkeypatch):
    """ranx's kernels, when numba compiles them (a fresh install), warn about integer casts; nothing else is hidden."""
    import warnings

    import ranx
    from numba.core.errors import NumbaTypeSafetyWarning

    def warning_evaluate(category):
        def fake(qrels, run, metrics, make_comparable=False):
            warnings.warn("unsafe cast from uint64 to int64. Precision may be lost.", category, stacklevel=2)
            run.scores = {m: {q: 1.0 for q in run.keys()} for m in metrics}
            return 1.0

        return fake

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        monkeypatch.setattr(ranx, "evaluate", warning_evaluate(NumbaTypeSafetyWarning))
        assert evaluate({"q": {"a": 1}}, {"q": {"a": 1.0}}, ["mrr"]).means == {"mrr": 1.0}
        monkeypatch.setattr(ranx, "evaluate", warning_evaluate(UserWarning))
        with pytest.raises(UserWarning):
            evaluate({"q": {"a": 1}}, {"q": {"a": 1.0}}, ["mrr"])

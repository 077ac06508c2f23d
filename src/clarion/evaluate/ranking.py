"""Generic ranking metrics and paired significance tests, through ranx, on clarion's Run/Qrels dicts.

Metric names follow ranx (``mrr``, ``ndcg@10``, ``precision@5``, ``recall@30``, ``map``, ``hits@1`` ...).
Inputs are never modified (ranx's ``evaluate`` writes into the Run it is given, so we hand it copies).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from clarion.errors import InputError
from clarion.evaluate.result import Evaluation
from clarion.types import Qrels, Run

DEFAULT_METRICS = ("mrr", "ndcg@10", "precision@1", "recall@10", "map")


def _ranx_pair(qrels: Qrels, run: Run, name: str = "run"):
    from ranx import Qrels as RQrels
    from ranx import Run as RRun

    if not qrels:
        raise InputError("qrels are empty: nothing to evaluate against")
    rq = RQrels({q: {d: int(r) for d, r in docs.items()} for q, docs in qrels.items()})
    # Queries judged but absent from the run score 0; ranx needs them present, so add an empty ranking.
    ranked = {q: {d: float(s) for d, s in run.get(q, {}).items()} or {"__none__": 0.0} for q in qrels}
    rr = RRun(ranked, name=name)
    return rq, rr


def evaluate(qrels: Qrels, run: Run, metrics: Sequence[str] = DEFAULT_METRICS) -> Evaluation:
    """Mean and per-query values of ranx ``metrics`` for ``run`` over the queries of ``qrels``.

    >>> evaluate({"q": {"a": 1}}, {"q": {"a": 0.9, "b": 0.5}}, ["mrr"]).means
    {'mrr': 1.0}
    """
    from ranx import evaluate as ranx_evaluate

    rq, rr = _ranx_pair(qrels, run)
    means = ranx_evaluate(rq, rr, list(metrics), make_comparable=True)
    if len(metrics) == 1:
        means = {metrics[0]: means}
    per_query = {m: {q: float(v) for q, v in rr.scores[m].items()} for m in metrics}
    return Evaluation({m: float(v) for m, v in means.items()}, per_query)


def compare(
    qrels: Qrels,
    runs: Mapping[str, Run],
    metrics: Sequence[str] = DEFAULT_METRICS,
    test: str = "student",
    max_p: float = 0.05,
):
    """A ranx comparison report of several runs with paired significance tests (Student's t by default;
    also ``fisher`` randomisation, ``tukey``). ``str(report)`` is a table; ``report.to_dict()`` the data."""
    from ranx import compare as ranx_compare

    if len(runs) < 2:
        raise InputError("compare needs at least two runs")
    pairs = [_ranx_pair(qrels, run, name) for name, run in runs.items()]
    return ranx_compare(
        qrels=pairs[0][0],
        runs=[rr for _, rr in pairs],
        metrics=list(metrics),
        stat_test=test,
        max_p=max_p,
        make_comparable=True,
    )

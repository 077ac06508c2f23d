"""Generic ranking metrics and paired significance tests, through ranx, on clarion's Run/Qrels dicts.

Metric names follow ranx (``mrr``, ``ndcg@10``, ``precision@5``, ``recall@30``, ``map``, ``hits@1`` ...).
Inputs are never modified (ranx's ``evaluate`` writes into the Run it is given, so we hand it copies).
"""

from __future__ import annotations

import math
import re
import warnings
from collections.abc import Mapping, Sequence
from contextlib import contextmanager

from clarion.data.trec import RELEVANCE
from clarion.errors import InputError
from clarion.evaluate.result import Evaluation
from clarion.types import Qrels, Run

DEFAULT_METRICS = ("mrr", "ndcg@10", "precision@1", "recall@10", "map")
METRIC_NAMES = (
    "hits", "hit_rate", "precision", "recall", "f1", "r-precision", "mrr", "map",
    "dcg", "dcg_burges", "ndcg", "ndcg_burges", "bpref",
)  # fmt: skip
"""ranx's metrics; each takes an optional cutoff ``@k`` (k >= 1) and relevance level ``-lN``; ``rbp.95`` too."""
MAX_CUTOFF = 1_000_000
"""The largest ``@k`` or ``-lN`` of a metric name (ranx compiles them as machine integers)."""
STAT_TESTS = ("student", "fisher", "tukey")
_METRIC = re.compile(rf"(?:(?:{'|'.join(map(re.escape, METRIC_NAMES))})(?:@[1-9][0-9]*)?|rbp[.@][0-9]+)(?:-l[0-9]+)?")


def check_metrics(metrics: Sequence[str]) -> list[str]:
    """``metrics`` as a list, or :class:`InputError` naming the first name ranx would not take."""
    if isinstance(metrics, str) or not isinstance(metrics, Sequence) or not metrics:
        raise InputError(f"metrics must be a non-empty list of metric names (e.g. ['mrr']), got {metrics!r}")
    for metric in metrics:
        if not isinstance(metric, str) or not _METRIC.fullmatch(metric):
            raise InputError(
                f"unknown metric {metric!r}: use one of {', '.join(METRIC_NAMES)}, with an optional @k (k >= 1)"
            )
        if any(int(number) > MAX_CUTOFF for number in re.findall(r"[0-9]+", metric)):
            raise InputError(f"metric {metric!r}: a cut-off or level must be at most {MAX_CUTOFF:,}")
    return list(metrics)


def _ranx_pair(qrels: Qrels, run: Run, name: str = "run"):
    from ranx import Qrels as RQrels
    from ranx import Run as RRun

    if not isinstance(qrels, Mapping) or not isinstance(run, Mapping):
        raise InputError(f"qrels and {name} must be dicts query id -> {{doc id: value}}")
    if not qrels:
        raise InputError("qrels are empty: nothing to evaluate against")
    for q, docs in qrels.items():
        if not docs:
            raise InputError(f"qrels[{q!r}] has no judgments; drop the query or judge a document")
    for q, docs in qrels.items():
        if not isinstance(docs, Mapping):
            raise InputError(f"qrels[{q!r}] must be a dict doc id -> integer relevance, got {type(docs).__name__}")
        for d, r in docs.items():
            if not RELEVANCE.admits(r):
                raise InputError(
                    f"qrels[{q!r}][{d!r}]: relevance must be a whole number ({RELEVANCE.text()}), got {r!r}"
                )
    rq = RQrels({q: {d: int(r) for d, r in docs.items()} for q, docs in qrels.items()})
    # Queries judged but absent from the run score 0; ranx needs them present, so they rank one unjudged document.
    ranked = {
        q: {d: _score(s, name, q, d) for d, s in run.get(q, {}).items()} or {_unjudged(qrels[q]): 0.0} for q in qrels
    }
    rr = RRun(ranked, name=name)
    return rq, rr


def _unjudged(docs: Mapping) -> str:
    """A document id that ``docs`` does not judge."""
    placeholder = "__none__"
    while placeholder in docs:
        placeholder += "_"
    return placeholder


def _score(value, name: str, query: str, doc: str) -> float:
    try:
        score = float(value)
    except (TypeError, ValueError):
        score = math.nan
    if not math.isfinite(score):
        raise InputError(f"{name}[{query!r}][{doc!r}]: score {value!r} is not a finite number")
    return score


@contextmanager
def quiet_numba():
    """Silence numba's integer-cast warning, printed once when it compiles ranx's metric kernels."""
    from numba.core.errors import NumbaTypeSafetyWarning

    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", category=NumbaTypeSafetyWarning)
        yield


def evaluate(qrels: Qrels, run: Run, metrics: Sequence[str] = DEFAULT_METRICS) -> Evaluation:
    """Mean and per-query values of ranx ``metrics`` for ``run`` over the queries of ``qrels``.

    >>> evaluate({"q": {"a": 1}}, {"q": {"a": 0.9, "b": 0.5}}, ["mrr"]).means
    {'mrr': 1.0}
    """
    from ranx import evaluate as ranx_evaluate

    metrics = check_metrics(metrics)
    rq, rr = _ranx_pair(qrels, run)
    with quiet_numba():
        means = ranx_evaluate(rq, rr, metrics, make_comparable=True)
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
    metrics = check_metrics(metrics)
    if test not in STAT_TESTS:
        raise InputError(f"unknown test {test!r}: use one of {', '.join(STAT_TESTS)}")
    if isinstance(max_p, bool) or not isinstance(max_p, (int, float)) or not 0 < max_p <= 1:
        raise InputError(f"max_p must be a probability in (0, 1], got {max_p!r}")
    pairs = [_ranx_pair(qrels, run, name) for name, run in runs.items()]
    with quiet_numba():
        return ranx_compare(
            qrels=pairs[0][0],
            runs=[rr for _, rr in pairs],
            metrics=metrics,
            stat_test=test,
            max_p=max_p,
            make_comparable=True,
        )

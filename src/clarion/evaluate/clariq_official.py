"""ClariQ (ConvAI3) scorers, numerically identical to the official ``clariq_eval_tool.py``, quirks included.

- :func:`clarification_need`: weighted precision/recall/F1 exactly as scikit-learn's
  ``precision_recall_fscore_support(average='weighted')`` computes them; a topic missing from the run is
  predicted as label 0.
- :func:`question_relevance`: Recall@5/10/20/30. The run is sorted by (topic, score) descending and rows with
  a duplicate (topic, score) pair are dropped before the cut at k (**official quirk**: tied scores silently
  drop questions; pass ``drop_tied_scores=False`` for the corrected variant, which breaks ties by file order
  instead). Relevant questions are the topic's ``question_id`` values in the labels TSV; a topic missing from
  the run scores 0.
- :func:`document_relevance`: only the run's top-scored question per topic (single turn) or context
  (multi turn) counts; its ``with_answer`` value is looked up in the official evaluation table
  ``{metric: {context_id: {question_id: {'no_answer': x, 'with_answer': y}, ..., 'MAX': .., 'MIN': ..}}}``.
  ``'MAX'`` is treated as ``'MIN'`` (no cheating with the oracle key); a question not among the judged
  candidates scores ``MIN``; a topic missing from the run scores 0.

Reference: Aliannejadi et al., "Building and Evaluating Open-Domain Dialogue Corpora with Clarifying
Questions", EMNLP 2021; github.com/aliannejadi/ClariQ.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from numbers import Integral, Real

from clarion.bounds import FINITE
from clarion.data.clariq_constants import NEED_LABELS
from clarion.data.trec import RunRow
from clarion.errors import InputError
from clarion.evaluate.result import Evaluation, mean

QUESTION_CUTOFFS = (5, 10, 20, 30)
DOCUMENT_METRICS = ("NDCG1", "NDCG3", "NDCG5", "NDCG10", "NDCG20", "P1", "P3", "P5", "P10", "P20", "MRR100")


def _mapping(value, what: str, of: str = "topic ids") -> None:
    if not isinstance(value, Mapping):
        raise InputError(f"{what} must be a mapping of {of}, got {type(value).__name__}")


def _need_label(value, what: str, topic: str) -> int:
    """``value`` as an int label 1-4 (an integral float such as ``2.0`` is taken), or :class:`InputError`."""
    if isinstance(value, Integral | float) and not isinstance(value, bool) and value in NEED_LABELS:
        return int(value)
    raise InputError(f"{what}[{topic!r}] must be a clarification-need label 1-4, got {value!r}")


def clarification_need(gold: Mapping[str, int], predicted: Mapping[str, int]) -> Evaluation:
    """Weighted P/R/F1 over the gold topics; a topic absent from ``predicted`` counts as label 0 (as the
    official tool does). Labels must be 1-4; ``predicted`` sharing no topic with ``gold`` (a run of another
    split, say) is refused rather than scored 0."""
    import warnings

    from sklearn.exceptions import UndefinedMetricWarning
    from sklearn.metrics import precision_recall_fscore_support

    _mapping(gold, "gold")
    _mapping(predicted, "predicted")
    if not gold:
        raise InputError("gold is empty: no topic to evaluate")
    topics = list(gold)
    y_true = [_need_label(gold[t], "gold", t) for t in topics]
    y_pred = [_need_label(predicted[t], "predicted", t) if t in predicted else 0 for t in topics]
    if not any(t in predicted for t in topics):
        raise InputError(f"predicted has none of the {len(topics)} gold topics (e.g. {topics[0]!r})")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        p, r, f1, _ = precision_recall_fscore_support(y_true, y_pred, average="weighted")
    correct = {t: float(gold[t] == predicted.get(t, 0)) for t in topics}
    return Evaluation(
        {"Precision": float(p), "Recall": float(r), "F1": float(f1)},
        {"Accuracy": correct},
    )


def top_questions(rows: Iterable[RunRow], drop_tied_scores: bool = True) -> dict[str, list[str]]:
    """Each topic's questions in the order the official tool ranks them.

    Rows are stably sorted by score descending within a topic (file order among ties, as pandas'
    multi-column ``sort_values`` does); with ``drop_tied_scores`` the official ``drop_duplicates`` on
    (topic, score) keeps only the first row of each score.
    """
    if isinstance(rows, str | bytes | Mapping) or not isinstance(rows, Iterable):
        raise InputError(f"run rows must be a list of RunRow objects, got {type(rows).__name__}")
    by_topic: dict[str, list[RunRow]] = {}
    for row in rows:
        _check_row(row)
        by_topic.setdefault(row.query_id, []).append(row)
    ranked: dict[str, list[str]] = {}
    for topic, topic_rows in by_topic.items():
        topic_rows = sorted(topic_rows, key=lambda r: -r.score)
        seen: set[float] = set()
        out = []
        for row in topic_rows:
            if drop_tied_scores:
                if row.score in seen:
                    continue
                seen.add(row.score)
            out.append(row.doc_id)
        ranked[topic] = out
    return ranked


def _check_row(row) -> None:
    """A run row built in Python: a :class:`RunRow` whose score is a finite number (NaN would sort anywhere)."""
    if not isinstance(row, RunRow):
        raise InputError(f"run rows must be RunRow objects, got {type(row).__name__} {row!r:.60}")
    if not FINITE.admits(row.score):
        where = f"({row.query_id!r}, {row.doc_id!r})"
        raise InputError(f"run row {where} has a score that is not a finite number: {row.score!r}")


def question_relevance(
    relevant: Mapping[str, Iterable[str]],
    rows: Sequence[RunRow],
    cutoffs: Sequence[int] = QUESTION_CUTOFFS,
    drop_tied_scores: bool = True,
) -> Evaluation:
    """Recall@k of the run ``rows`` against each topic's relevant question ids (``cutoffs``: positive ints)."""
    _mapping(relevant, "relevant")
    if not relevant:
        raise InputError("relevant is empty: no topic to evaluate")
    _check_cutoffs(cutoffs)
    _check_id_lists(relevant, "relevant")
    ranked = top_questions(rows, drop_tied_scores)
    per_query: dict[str, dict[str, float]] = {f"Recall{k}": {} for k in cutoffs}
    for topic, questions in relevant.items():
        rel = set(questions)
        run = ranked.get(topic, [])
        for k in cutoffs:
            per_query[f"Recall{k}"][topic] = len(rel & set(run[:k])) / len(rel) if rel else 0.0
    return Evaluation({m: mean(v.values()) for m, v in per_query.items()}, per_query)


def _check_cutoffs(cutoffs) -> None:
    if isinstance(cutoffs, (str, bytes)) or not isinstance(cutoffs, Iterable):
        raise InputError(f"cutoffs must be a list of positive integers, got {cutoffs!r}")
    for k in cutoffs:
        if not isinstance(k, Integral) or isinstance(k, bool) or k < 1:
            raise InputError(f"cutoffs must be positive integers, got {k!r}")


def _check_id_lists(ids: Mapping, what: str) -> None:
    """Each value of ``ids`` must be a collection of ids; a bare string would be read as its characters."""
    for key, value in ids.items():
        if isinstance(value, (str, bytes)) or not isinstance(value, Iterable):
            raise InputError(f"{what}[{key!r}] must be a list or set of ids, got {type(value).__name__} {value!r:.40}")


def _value(entry, where: str) -> float:
    raw = entry.get("with_answer") if isinstance(entry, Mapping) else entry
    if isinstance(raw, bool) or not isinstance(raw, Real):
        raise InputError(f"table entry {where} must be a number or hold a numeric 'with_answer', got {entry!r:.60}")
    return float(raw)


def document_relevance(
    table: Mapping[str, Mapping[str, Mapping[str, object]]],
    contexts: Mapping[str, Iterable[str]],
    rows: Sequence[RunRow],
    metrics: Sequence[str] | None = None,
) -> Evaluation:
    """Document relevance of the run's first question per topic, looked up in the evaluation ``table``.

    ``contexts`` maps each run query (topic or context id) to the table keys it is judged under (its facet
    ids for single turn; ``[context_id]`` for multi turn). Only keys present in the table are scored. Each
    judged key needs a ``'MIN'`` entry (the score of an unjudged question); ``metrics`` must be in the table.
    """
    _mapping(table, "table")
    _mapping(contexts, "contexts")
    _check_id_lists(contexts, "contexts")
    if isinstance(metrics, str):
        raise InputError(f"metrics must be a list of metric names, got the string {metrics!r}")
    first = {q: ids[0] for q, ids in top_questions(rows, drop_tied_scores=False).items() if ids}
    unknown = [m for m in metrics or () if m not in table]
    if unknown:
        raise InputError(f"metrics {unknown} are not in the table (it has {sorted(table)})")
    metrics = list(metrics or table)
    per_query: dict[str, dict[str, float]] = {m: {} for m in metrics}
    for metric in metrics:
        judged = table[metric]
        _mapping(judged, f"table[{metric!r}]", "keys")
        for query, keys in contexts.items():
            for key in keys:
                if key not in judged:
                    continue
                candidates = judged[key]
                _mapping(candidates, f"table[{metric!r}][{key!r}]", "question ids")
                if query not in first:
                    per_query[metric][key] = 0.0
                    continue
                question = first[query]
                if question == "MAX":
                    question = "MIN"
                if question not in candidates:
                    if "MIN" not in candidates:
                        raise InputError(f"table[{metric!r}][{key!r}] has no 'MIN' entry to score {question!r} with")
                    question = "MIN"
                per_query[metric][key] = _value(candidates[question], f"{metric}/{key}/{question}")
    if metrics and not any(per_query.values()):  # the wrong table (another split's, a multi-turn one): no 0.0
        have = next((key for metric in metrics for key in table[metric]), None)
        need = next((key for keys in contexts.values() for key in keys), None)
        raise InputError(
            f"the table judges none of the {len(contexts)} run queries' keys (it has e.g. {have!r}; they need e.g."
            f" {need!r})"
        )
    return Evaluation({m: mean(v.values()) for m, v in per_query.items()}, per_query)

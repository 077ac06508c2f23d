"""Scores by source and leave-one-source-out (LOSO): how a reply ranker does on replies from a source it never saw.

A method is trained on the contexts of every source but one and scored on the one left out, once per source; the
mean over the left-out sources is the figure a default is chosen by (a pooled score would mostly measure the
largest source). ``benchmarks/replies_sources.py`` and ``benchmarks/replies_methods.py`` print these tables.

>>> table({"a": {"1": 1.0, "2": 0.5}, "b": {"3": 0.9}})
{'a': 75000, 'b': 90000, 'mean': 82500}
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from clarion.data.replies import ReplyRow
from clarion.replies.ranker import ReplyRanker, groups_of, ranked_ids


def per_context(ranker: ReplyRanker, rows: Sequence[ReplyRow], cached: bool = True) -> dict[str, float]:
    """NDCG (0-1) of ``ranker``'s order of each context of labelled ``rows``."""
    from clarion.evaluate.replies import per_context as ndcg_of

    ids, groups = groups_of(rows)
    scores = ranker.score_groups(groups, cached)
    reply_ids: dict[str, list[str]] = {}
    labels: dict[str, dict[str, int]] = {}
    for row in rows:
        reply_ids.setdefault(row.context_id, []).append(row.reply_id)
        labels.setdefault(row.context_id, {})[row.reply_id] = row.relevance  # type: ignore[assignment]
    ranking = {c: ranked_ids(reply_ids[c], s) for c, s in zip(ids, scores, strict=True)}
    return ndcg_of(labels, ranking)


def table(values: Mapping[str, Mapping[str, float]]) -> dict[str, int]:
    """Mean NDCG x 100,000 per source (of its contexts' values) and the unweighted mean over the sources."""
    from clarion.evaluate.replies import SCALE

    out = {name: round(SCALE * sum(v.values()) / len(v)) for name, v in values.items() if v}
    out["mean"] = round(sum(out.values()) / len(out)) if out else 0
    return out


def leave_one_source_out(
    rows: Mapping[str, Sequence[ReplyRow]],
    method: str,
    weighted: bool = True,
    options: Mapping[str, Any] | None = None,
) -> dict[str, dict[str, float]]:
    """Left-out source -> context id -> NDCG (0-1), the method trained on the other sources' ``rows`` (source name
    -> labelled rows) with each context's source known (for ``balanced`` weighting)."""
    source_of = {r.context_id: name for name, rs in rows.items() for r in rs}
    out = {}
    for left_out in rows:
        train = [r for name, rs in rows.items() if name != left_out for r in rs]
        ranker = ReplyRanker.train(groups_of(train, source_of)[1], method, weighted, options=options)
        out[left_out] = per_context(ranker, rows[left_out])
    return out


def by_source(values: Mapping[str, float], source_of: Mapping[str, str]) -> dict[str, dict[str, float]]:
    """Per-context values (context id -> value) split by the contexts' sources."""
    out: dict[str, dict[str, float]] = {}
    for context_id, value in values.items():
        out.setdefault(source_of[context_id], {})[context_id] = value
    return dict(sorted(out.items()))

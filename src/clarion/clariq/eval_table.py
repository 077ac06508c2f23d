"""Partial document-relevance tables rebuilt from the organisers' published per-facet ``.eval`` files.

The official lookup tables (``single_turn_*_eval.pkl``) are not in the bundled data, but each published
``dev_*.eval`` file gives, per facet, the value of the one question its sample run put first. Together they
imply a partial table ``{metric: {facet: {question_id: {'with_answer': v}, 'MIN': {...}}}}`` on which the
official scorer must reproduce every file's per-facet values and means — the exactness check of
``tests/evaluate/test_clariq_official.py``. ``MIN`` is the smallest value seen for the facet, so a question
outside the table scores like the worst judged question, as in the official table. (The organisers'
``dev_worst_q`` run names the key ``MIN`` itself, which gives the true minimum.)
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from clarion.data.trec import RunRow
from clarion.errors import DataError
from clarion.evaluate.clariq_official import top_questions


def partial_table(
    facets: Mapping[str, Sequence[str]],
    runs: Sequence[tuple[Sequence[RunRow], Mapping[str, Mapping[str, float]]]],
) -> dict[str, dict[str, dict[str, dict[str, float]]]]:
    """The table implied by ``(run rows, per-facet eval)`` pairs; ``facets`` maps topic -> facet ids.

    A question that two runs put first for the same facet must have the same value in both files.
    """
    table: dict[str, dict[str, dict[str, dict[str, float]]]] = {}
    for rows, evals in runs:
        first = {t: qs[0] for t, qs in top_questions(rows, drop_tied_scores=False).items() if qs}
        for metric, values in evals.items():
            judged = table.setdefault(metric, {})
            for topic, facet_ids in facets.items():
                if topic not in first:
                    continue
                for facet in facet_ids:
                    if facet not in values:
                        continue
                    entry = judged.setdefault(facet, {})
                    value = float(values[facet])
                    old = entry.get(first[topic])
                    if old is not None and abs(old["with_answer"] - value) > 1e-12:
                        raise DataError(None, f"{metric} {facet} {first[topic]}: inconsistent values")
                    entry[first[topic]] = {"no_answer": value, "with_answer": value}
    for judged in table.values():
        for entry in judged.values():
            if "MIN" not in entry:  # the worst-question oracle run names "MIN" itself
                low = min(v["with_answer"] for v in entry.values())
                entry["MIN"] = {"no_answer": low, "with_answer": low}
    return table

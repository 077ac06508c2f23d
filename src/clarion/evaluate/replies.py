"""The graded reply-ranking metric of the Yandex General Conversation task.

For each context, with the replies in submitted order and ``rel`` = 2 / 1 / 0 for good / neutral / bad:
``DCG = sum_i rel_i / log2(i + 1)`` over ranks ``i = 1, 2, ...``; ``IDCG`` is the DCG of the labels sorted
best first; ``NDCG = DCG / IDCG``. The score is the mean NDCG over contexts times 100,000. Confidence is not
used. A context whose replies are all bad has ``IDCG = 0``: every order of it is ideal, and it counts as 1
(``ndcg_all_bad`` in the result says how many such contexts there were).

>>> round(ndcg([0, 2, 1]), 6)   # DCG 2/log2(3) + 1/2, IDCG 2 + 1/log2(3)
0.669672
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

from clarion.errors import InputError

SCALE = 100_000


def dcg(relevances: Sequence[float]) -> float:
    """``sum_i rel_i / log2(i + 1)`` over 1-based ranks ``i``."""
    return sum(rel / math.log2(rank + 1) for rank, rel in enumerate(relevances, start=1))


def ndcg(relevances: Sequence[float]) -> float:
    """NDCG of one context's relevances in ranked order (1.0 when every relevance is 0)."""
    ideal = dcg(sorted(relevances, reverse=True))
    return 1.0 if ideal == 0 else dcg(relevances) / ideal


def mean_ndcg(labels: Mapping[str, Mapping[str, int]], ranking: Mapping[str, Sequence[str]]) -> dict[str, float | int]:
    """``{"ndcg": mean NDCG x 100,000, "contexts": n, "ndcg_all_bad": contexts with no good or neutral reply}``.

    ``labels``: context_id -> reply_id -> relevance (2 / 1 / 0); ``ranking``: context_id -> reply ids best
    first, which must be exactly each context's labelled replies."""
    if not labels:
        raise InputError("no contexts to score")
    total, all_bad = 0.0, 0
    for context_id, graded in labels.items():
        order = list(ranking.get(context_id, ()))
        if sorted(order) != sorted(graded):
            raise InputError(f"context {context_id}: the ranking does not hold exactly its labelled replies")
        all_bad += not any(graded.values())
        total += ndcg([graded[reply_id] for reply_id in order])
    return {"ndcg": SCALE * total / len(labels), "contexts": len(labels), "ndcg_all_bad": all_bad}


def per_context(labels: Mapping[str, Mapping[str, int]], ranking: Mapping[str, Sequence[str]]) -> dict[str, float]:
    """NDCG (0-1) of each context, for paired comparisons."""
    return {c: ndcg([g[r] for r in ranking[c]]) for c, g in labels.items()}

"""Training of :class:`clarion.clariq.ranker.QuestionRanker`: out-of-fold features, cross-validated
placement of ``Q00001`` and the final LambdaMART fit.

Folds are over the labelled topics (seeded permutation). For fold ``k`` the topics of the other folds are
"labelled" (their questions attached) and the fold's own requests join the pool as unlabelled requests —
the situation of a new topic at test time. Recall figures are computed with the official scorer.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from clarion.clariq.constants import NO_QUESTION
from clarion.clariq.ranker import (
    RankerConfig,
    insert_no_question,
    labelled_topics,
    make_context,
    shortlist,
)
from clarion.data.clariq import ClariQ
from clarion.data.trec import RunRow
from clarion.errors import InputError
from clarion.evaluate.clariq_official import question_relevance
from clarion.rerank.features import FEATURES


@dataclass
class Example:
    """One training topic's shortlist: candidate bank ids, features and 0/1 labels."""

    key: str
    candidates: list[str]
    x: np.ndarray
    y: np.ndarray
    fold: int


def assign_folds(keys: Sequence[str], folds: int, seed: int) -> dict[str, int]:
    """A seeded, balanced assignment of topic keys to ``folds`` folds."""
    order = np.random.default_rng(seed).permutation(sorted(keys))
    return {str(k): i % folds for i, k in enumerate(order)}


def out_of_fold_examples(data: ClariQ, rel, req, config: RankerConfig, progress=None) -> list[Example]:
    """Shortlists and features of every labelled topic, computed with its own fold held out."""
    fold = assign_folds(list(rel), config.folds, config.seed)
    examples = []
    for k in range(config.folds):
        known = {t: rel[t] for t in rel if fold[t] != k}
        held = sorted(t for t in rel if fold[t] == k)
        context = make_context(data, known, req)
        space = context.space(config.temperature)
        requests = [req[t] for t in held]
        done = 0
        for top, feats in shortlist(space, requests, config.shortlist, config.chunk):
            for cand, x in zip(top, feats, strict=True):
                key = held[done]
                ids = [context.bank_ids[j] for j in cand]
                y = np.asarray([q in rel[key] for q in ids], dtype=np.float32)
                examples.append(Example(key, ids, x, y, k))
                done += 1
        if progress:
            progress(1)
    return examples


def fit(examples: Sequence[Example], config: RankerConfig):
    model = config.lambdamart()
    x = np.concatenate([e.x for e in examples])
    y = np.concatenate([e.y for e in examples])
    return model.fit(x, y, [len(e.y) for e in examples])


def out_of_fold_rankings(examples: Sequence[Example], config: RankerConfig, progress=None):
    """``key -> [(question id, score)]`` with each fold ranked by a combiner trained on the others."""
    out = {}
    for k in range(config.folds):
        model = fit([e for e in examples if e.fold != k], config)
        for e in examples:
            if e.fold == k:
                scores = model.predict(e.x)
                order = np.lexsort((np.asarray(e.candidates), -scores))
                out[e.key] = [(e.candidates[j], float(scores[j])) for j in order]
        if progress:
            progress(1)
    return out


def recall(rel, rankings, position: int | None) -> dict[str, float]:
    """Official Recall@5/10/20/30 of ``rankings`` (with ``Q00001`` at ``position`` unless ``None``)."""
    rows = []
    for key, ranked in rankings.items():
        if position is not None:
            ranked = insert_no_question(ranked, position)
        for rank, (q, _) in enumerate(ranked[:30]):
            rows.append(RunRow(key, q, rank + 1, float(-rank), "cv"))
    return dict(question_relevance({k: rel[k] for k in rankings}, rows).means)


def best_no_question_slot(rel, rankings) -> tuple[int, dict[str, float]]:
    """The 0-based position of ``Q00001`` maximising mean Recall@5/10/20/30, and its recalls."""
    best, best_metrics, best_mean = 0, {}, -1.0
    for position in range(31):
        metrics = recall(rel, rankings, position)
        mean = float(np.mean(list(metrics.values())))
        if mean > best_mean + 1e-12:
            best, best_metrics, best_mean = position, metrics, mean
    return best, best_metrics


def fit_ranker(cls, data: ClariQ, splits: Sequence[str], config: RankerConfig, progress=None):
    """Train a :class:`QuestionRanker` on the labelled topics of ``splits``."""
    rel, req = labelled_topics(data, splits)
    if len(rel) < config.folds:
        raise InputError(f"need at least {config.folds} labelled topics to train, got {len(rel)}")
    examples = out_of_fold_examples(data, rel, req, config, progress)
    rankings = out_of_fold_rankings(examples, config, progress)
    position, metrics = best_no_question_slot(rel, rankings)
    model = fit(examples, config)
    ranker = cls(config, make_context(data, rel, req), model, position)
    ranker.cv_metrics = {
        **{f"cv_{k}": round(v, 4) for k, v in metrics.items()},
        **{f"cv_{k}_without_{NO_QUESTION}": round(v, 4) for k, v in recall(rel, rankings, None).items()},
        "cv_shortlist_recall": round(
            float(np.mean([e.y.sum() / max(len(rel[e.key] - {NO_QUESTION}), 1) for e in examples])), 4
        ),
        "no_question_at": position,
        "training_topics": len(rel),
    }
    ranker.importance = model.feature_importance(FEATURES)
    return ranker

"""Training of :class:`clarion.clariq.ranker.QuestionRanker`: out-of-fold features, the two LambdaMART
stages, cross-validated placement of ``Q00001``.

Folds are over the labelled topics (seeded permutation). For fold ``k`` the topics of the other folds are
"labelled" (their questions attached) and the fold's own requests join the pool of unlabelled requests —
the situation of a new topic at test time. Each stage's LambdaMART of fold ``k`` (trained on the other
folds) scores every unlabelled request of that context, which gives the competition features of the next
stage.
With ``config.finetune_epochs > 0`` each fold's context is embedded by MiniLM fine-tuned on the other folds'
(request, question) pairs, and the final context by MiniLM fine-tuned on every labelled topic; fine-tuned
encoders are kept under ``<cache>/models/clariq/encoders/``, named by their content key. The packaged encoders of
``config.encoders`` (all-mpnet-base-v2 by default) stand beside it unchanged in every fold.
Recall figures are computed with the official scorer.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from clarion.clariq.ranker_config import RankerConfig
from clarion.clariq.ranker_context import (
    insert_no_question,
    labelled_topics,
    make_context,
    predict,
    shortlist,
    stage_features,
)
from clarion.data.clariq import ClariQ
from clarion.data.clariq_constants import NO_QUESTION
from clarion.data.location import cache_dir
from clarion.data.trec import RunRow
from clarion.errors import InputError
from clarion.evaluate.clariq_official import question_relevance
from clarion.evaluate.result import Evaluation
from clarion.rerank.competition import COMPETITION_FEATURES, score_table
from clarion.rerank.features import FEATURES, Space
from clarion.retrieve.finetune import Pair, finetune, finetuned_id, is_finetuned


@dataclass
class Example:
    """One training topic's shortlist: candidate bank indices, features and 0/1 labels."""

    key: str
    fold: int
    candidates: np.ndarray
    x: np.ndarray
    y: np.ndarray
    row: int
    """The topic's row among its fold's unlabelled requests."""


@dataclass
class Fold:
    """The unlabelled requests of one fold's context, with their shortlists and features."""

    shortlists: np.ndarray
    features: np.ndarray
    space: Space
    n_questions: int


def assign_folds(keys: Sequence[str], folds: int, seed: int) -> dict[str, int]:
    """A seeded, balanced assignment of topic keys to ``folds`` folds."""
    order = np.random.default_rng(seed).permutation(sorted(keys))
    return {str(k): i % folds for i, k in enumerate(order)}


def encoder_pairs(data: ClariQ, rel, req) -> list[Pair]:
    """The (topic, request, question text) pairs of the labelled topics ``rel``, ``Q00001`` left out."""
    return [(key, req[key], data.bank[q]) for key in sorted(rel) for q in sorted(rel[key] - {NO_QUESTION})]


def encoder_dir() -> Path:
    return cache_dir() / "models" / "clariq" / "encoders"


def train_encoder(data: ClariQ, rel, req, config: RankerConfig) -> str | None:
    """MiniLM fine-tuned on the labelled topics ``rel`` (reused from the cache when present), or ``None``
    when ``config`` keeps the packaged model."""
    if config.finetune_epochs <= 0:
        return None
    pairs, settings = encoder_pairs(data, rel, req), config.finetune()
    path = encoder_dir() / finetuned_id(pairs, settings)
    if not is_finetuned(path):  # absent, or damaged since (a weights file deleted)
        finetune(pairs, path, settings)
    return str(path)


def fold_data(data: ClariQ, rel, req, config: RankerConfig, progress=None):
    """Per fold the unlabelled requests' shortlists, and the held-out topics as :class:`Example`."""
    fold = assign_folds(list(rel), config.folds, config.seed)
    folds, examples = [], []
    for k in range(config.folds):
        known = {t: rel[t] for t in rel if fold[t] != k}
        context = make_context(data, known, req, config.encoder(train_encoder(data, known, req, config)))
        space = context.space(config.temperature, config.generic_owners)
        texts = [context.pool_texts[u] for u in space.unknown]
        parts = list(shortlist(space, texts, config.shortlist, config.chunk, space.pool_emb[space.unknown]))
        folds.append(
            Fold(
                np.concatenate([p[0] for p in parts]),
                np.concatenate([p[1] for p in parts]),
                space,
                len(context.bank_ids),
            )
        )
        row_of = {text: i for i, text in enumerate(texts)}
        for key in sorted(t for t in rel if fold[t] == k):
            row = row_of[req[key]]
            cand = folds[k].shortlists[row]
            y = np.asarray([context.bank_ids[j] in rel[key] for j in cand], dtype=np.float32)
            examples.append(Example(key, k, cand, folds[k].features[row], y, row))
        if progress:
            progress(1)
    return folds, examples


def fit(xs: Sequence[np.ndarray], ys: Sequence[np.ndarray], config: RankerConfig):
    return config.lambdamart().fit(np.concatenate(xs), np.concatenate(ys), [len(y) for y in ys])


def next_features(fold: Fold, scores: np.ndarray) -> np.ndarray:
    """The next stage's features of every unlabelled request of ``fold`` given this stage's scores."""
    table = score_table(len(scores), fold.n_questions, fold.shortlists, scores, fold.space.attached)
    return np.stack(
        [
            stage_features(fold.features[i], fold.shortlists[i], scores[i], table, i, fold.space)
            for i in range(len(scores))
        ]
    )


def staged_out_of_fold(folds, examples, config: RankerConfig, progress=None):
    """Train the ``config.stages`` LambdaMARTs; return them and each stage's out-of-fold scores."""
    feats = [fold.features for fold in folds]
    models, oof = [], []
    for stage in range(config.stages):
        x = {e.key: feats[e.fold][e.row] for e in examples}
        fold_scores = []
        for k in range(config.folds):
            train = [e for e in examples if e.fold != k]
            model = fit([x[e.key] for e in train], [e.y for e in train], config)
            fold_scores.append(predict(model, feats[k]))
            if progress:
                progress(1)
        oof.append({e.key: fold_scores[e.fold][e.row] for e in examples})
        models.append(fit([x[e.key] for e in examples], [e.y for e in examples], config))
        if stage < config.stages - 1:
            feats = [next_features(fold, fold_scores[k]) for k, fold in enumerate(folds)]
    return models, oof


def ranked(candidates: np.ndarray, scores: np.ndarray, ids: Sequence[str]) -> list[tuple[str, float]]:
    order = np.lexsort((candidates, -scores))
    return [(ids[candidates[j]], float(scores[j])) for j in order]


def evaluate_rankings(rel, rankings, position: int | None) -> Evaluation:
    """Official Recall@5/10/20/30 of ``rankings`` (with ``Q00001`` at ``position`` unless ``None``), per topic."""
    rows = []
    for key, items in rankings.items():
        if position is not None:
            items = insert_no_question(items, position)
        for rank, (q, _) in enumerate(items[:30]):
            rows.append(RunRow(key, q, rank + 1, float(-rank), "cv"))
    return question_relevance({k: rel[k] for k in rankings}, rows)


def best_no_question_slot(rel, rankings) -> tuple[int, Evaluation]:
    """The 0-based position of ``Q00001`` maximising mean Recall@5/10/20/30, and the per-topic recalls there."""
    best, best_evaluation, best_mean = 0, None, -1.0
    for position in range(31):
        evaluation = evaluate_rankings(rel, rankings, position)
        mean = float(np.mean(list(evaluation.means.values())))
        if mean > best_mean + 1e-12:
            best, best_evaluation, best_mean = position, evaluation, mean
    return best, best_evaluation


def fit_ranker(cls, data: ClariQ, splits: Sequence[str], config: RankerConfig, progress=None):
    """Train a :class:`QuestionRanker` on the labelled topics of ``splits``."""
    rel, req = labelled_topics(data, splits)
    if len(rel) < 2 * config.folds:
        raise InputError(f"need at least {2 * config.folds} labelled topics to train, got {len(rel)}")
    folds, examples = fold_data(data, rel, req, config, progress)
    context = make_context(data, rel, req, config.encoder(train_encoder(data, rel, req, config)))
    if progress and config.finetune_epochs > 0:
        progress(1)
    ids = context.bank_ids
    models, oof = staged_out_of_fold(folds, examples, config, progress)
    first = {e.key: ranked(e.candidates, oof[0][e.key], ids) for e in examples}
    final = {e.key: ranked(e.candidates, oof[-1][e.key], ids) for e in examples}
    position, evaluation = best_no_question_slot(rel, final)
    ranker = cls(config, context, models, position)
    ranker.cv_metrics = {
        **{f"cv_{k}": round(v, 4) for k, v in evaluation.means.items()},
        **{f"cv_lambdamart_{k}": round(v, 4) for k, v in evaluate_rankings(rel, first, position).means.items()},
        "cv_shortlist_recall": round(
            float(np.mean([e.y.sum() / max(len(rel[e.key] - {NO_QUESTION}), 1) for e in examples])), 4
        ),
        "no_question_at": position,
        "training_topics": len(rel),
    }
    names = list(FEATURES) + (list(COMPETITION_FEATURES) if config.stages > 1 else [])
    ranker.importance = models[-1].feature_importance(names)
    ranker.cv_evaluation = evaluation
    return ranker

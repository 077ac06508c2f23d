"""Fitting and calibrating the snippet selector on the knowledge-seeking training turns.

1. Candidates: every snippet of the *gold* entities for fitting (clean positives and same-entity hard
   negatives); every snippet of the *tracked* entities for calibration (as at prediction time).
2. Out-of-fold calibration: the training dialogues are cut into ``calibration_folds`` folds by a salted hash
   of their dialogue id (independent of :func:`clarion.data.dstc_split.split_indices`, whose hash already decided
   train vs dev — re-using it would put every training dialogue on one side); a selector fitted on the other
   folds scores each fold's turns, and the threshold maximising micro F-beta over all these out-of-fold scores
   is kept (:meth:`~clarion.rerank.snippets.Selector.calibrate_scores`).
3. With LightGBM (``bag``, the default) the final selector averages the fold models — the very models the
   threshold was calibrated on, so their score scale matches it (a refit on all turns is more confident than
   its 2/3-data fold models, which moved the operating point); otherwise it is refitted on every training
   turn and takes that threshold.

Memory features (:mod:`.memory`, :mod:`.select_keys`) of a training turn never see its own dialogue.
"""

from __future__ import annotations

import hashlib

import numpy as np

from clarion.data.dstc import key_entities
from clarion.data.dstc_split import dialogue_ids
from clarion.ground.entities import EntityTracker
from clarion.rerank.response_memory import memory_features
from clarion.rerank.snippet_memory import KeyMemory
from clarion.rerank.snippets import SelectConfig, SelectModel, Selector

_SALT = "clarion-calibration"


def calibration_folds(dialogues, k: int) -> np.ndarray:
    """Fold number (0..k-1) of every dialogue id, from a salted SHA-1 (see the module docstring)."""
    return np.array([int(hashlib.sha1((_SALT + d).encode()).hexdigest(), 16) % k for d in dialogues])


def _candidates(dataset, turns, index, q_emb, q_tfidf, entities_of, features):
    """``(turns kept, groups, labels)`` over the candidates of ``entities_of(i)``, with memory features."""
    kept, groups, labels = [], [], []
    for i in turns:
        group, snippets = index.group(q_emb[i], q_tfidf[i], entities_of(i))
        if not snippets:
            continue
        features(i, group, [s.key for s in snippets])
        gold = set(dataset.labels[i].knowledge)
        kept.append(i)
        groups.append(group)
        labels.append(np.array([s.key in gold for s in snippets]))
    return kept, groups, labels


def fit_selector(dataset, turns, index, q_emb, q_tfidf, config: SelectConfig, bank, progress):
    """The fitted :class:`Selector` for the knowledge-seeking ``turns`` and its out-of-fold micro F1."""
    dialogue = np.array(dialogue_ids(dataset.contexts))
    bank_dialogue = dialogue[turns]
    keys = KeyMemory(q_emb[turns], [tuple(tuple(k) for k in dataset.labels[i].knowledge) for i in turns])

    def features(i, group, snippet_keys):
        own = bank_dialogue == dialogue[i]
        group.memory = memory_features(bank, group.query, group.snippets, exclude=own)
        if config.key_memory:
            group.key_memory = keys.features(group.query, snippet_keys, exclude=own)

    tracker = EntityTracker.from_knowledge(dataset.knowledge)

    def gold(i):
        return key_entities(dataset.labels[i].knowledge)

    def tracked(i):
        return tracker.track([t.text for t in dataset.contexts[i].turns]) or gold(i)

    n_folds = max(config.calibration_folds, 2)
    advance = progress("fitting the snippet selector", n_folds + 1)
    fit_turns, fit_groups, fit_labels = _candidates(dataset, turns, index, q_emb, q_tfidf, gold, features)
    cal_turns, cal_groups, cal_labels = _candidates(dataset, turns, index, q_emb, q_tfidf, tracked, features)
    fit_fold = calibration_folds(dialogue[fit_turns], n_folds)
    cal_fold = calibration_folds(dialogue[cal_turns], n_folds)
    oof: list[np.ndarray | None] = [None] * len(cal_groups)
    fold_models = []
    for fold in range(n_folds):
        inside = np.flatnonzero(fit_fold != fold)
        if inside.size == 0 or not any(fit_labels[j].any() for j in inside):
            advance(1)
            continue
        selector = Selector(config)
        selector.fit([fit_groups[j] for j in inside], [fit_labels[j] for j in inside])
        fold_models.append(selector)
        for j in np.flatnonzero(cal_fold == fold):
            oof[j] = selector.scores(cal_groups[j])
        advance(1)
    selector = Selector(config)
    f1 = selector.calibrate_scores(
        [np.zeros(len(g.lexical)) if s is None else s for g, s in zip(cal_groups, oof, strict=True)], cal_labels
    )
    if config.bag and config.model is SelectModel.lgbm and fold_models:
        selector.bag(fold_models)  # the models the threshold was calibrated on
    else:
        threshold = selector.threshold
        selector.fit(fit_groups, fit_labels)
        selector.threshold = threshold
    selector.memory = keys if config.key_memory else None
    advance(1)
    return selector, f1

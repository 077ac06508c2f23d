"""The snippet-level kNN memory and the out-of-fold calibration of the selector."""

from __future__ import annotations

import hashlib

import numpy as np

from clarion.rerank.snippet_memory import KeyMemory
from clarion.rerank.snippets import SelectConfig, Selector, group_features
from clarion.rerank.snippets_fit import calibration_folds
from clarion.retrieve.knowledge import Group

A, B, C = ("hotel", 1, 0, 0), ("hotel", 1, 0, 1), ("hotel", 2, 3, None)


def _memory() -> KeyMemory:
    emb = np.array([[1.0, 0.0], [0.0, 1.0], [0.6, 0.8]], dtype=np.float32)
    return KeyMemory(emb, [(A,), (B,), (A, B)])


def test_best_margin_entity_and_votes():
    out = _memory().features(np.array([1.0, 0.0]), [A, B, C])
    np.testing.assert_allclose(out[0], [1.0, 0.0, 1.0, 1.0])  # the nearest question chose A
    np.testing.assert_allclose(out[1], [0.6, -0.4, 1.0, 0.0])  # B only via a farther question (0.6 < 0.8)
    np.testing.assert_allclose(out[2], [-1.0, 0.0, -1.0, 0.0])  # unseen entity


def test_excluded_rows_are_invisible():
    out = _memory().features(np.array([1.0, 0.0]), [A], exclude=np.array([True, False, False]))
    np.testing.assert_allclose(out[0], [0.6, 0.0, 0.6, 0.0])


def test_empty_memory_or_zero_query_gives_neutral_rows():
    empty = KeyMemory(np.zeros((0, 2), np.float32), [])
    np.testing.assert_allclose(empty.features(np.array([1.0, 0.0]), [A]), [[-1.0, 0.0, -1.0, 0.0]])
    np.testing.assert_allclose(_memory().features(np.zeros(2), [A]), [[-1.0, 0.0, -1.0, 0.0]])


def test_state_roundtrip_keeps_keys_and_features():
    arrays: dict = {}
    mem = _memory()
    again = KeyMemory.from_state(mem.state(arrays), arrays)
    q = np.array([0.6, 0.8])
    np.testing.assert_array_equal(again.features(q, [A, B, C]), mem.features(q, [A, B, C]))


def _group(n: int, key_memory: np.ndarray | None = None) -> Group:
    rng = np.random.default_rng(0)
    snippets = rng.normal(size=(n, 384)).astype(np.float32)
    return Group(np.ones(384, np.float32), snippets, np.zeros(n), np.zeros(n, bool), key_memory=key_memory)


def test_group_features_append_key_memory_before_the_product():
    keys = np.arange(12, dtype=np.float32).reshape(3, 4)
    with_keys = group_features(_group(3, keys), use_product=True, key_memory=True)
    without = group_features(_group(3), use_product=True, key_memory=False)
    assert with_keys.shape == (3, without.shape[1] + 4)
    np.testing.assert_array_equal(with_keys[:, 16:20], keys)
    np.testing.assert_array_equal(with_keys[:, 20:], without[:, 16:])
    assert group_features(_group(0), use_product=False, key_memory=True).shape == (0, 20)


def test_calibration_beta_trades_precision_for_recall():
    # Each turn: two gold snippets, the second scored below three wrong ones.
    scores = [np.array([0.9, 0.2, 0.5, 0.4, 0.6])] * 10
    labels = [np.array([True, True, False, False, False])] * 10
    f1_sel = Selector(SelectConfig(calibration_beta=1.0, anchor_precision=None))
    f1_sel.calibrate_scores(scores, labels)
    recall_sel = Selector(SelectConfig(calibration_beta=3.0, anchor_precision=None))
    recall_sel.calibrate_scores(scores, labels)
    assert f1_sel.choose(scores[0]) == [0]  # only the best: P 1, R 0.5, F1 0.67 (all five: 0.57)
    assert sorted(recall_sel.choose(scores[0])) == [0, 1, 2, 3, 4]  # P 0.4, R 1, F3 0.87 (the best: 0.53)


def test_calibration_folds_are_not_the_train_dev_hash():
    """The train side of the split has every int(sha1) % 100 >= 20: an unsalted hash would be one-sided."""
    ids = [hashlib.sha1(str(i).encode()).hexdigest() for i in range(2000)]
    train_side = [d for d in ids if int(d, 16) % 100 >= 20]
    folds = calibration_folds(train_side, 5)
    counts = np.bincount(folds, minlength=5)
    assert counts.min() > 0.15 * len(train_side)


def test_anchor_calibration_keeps_the_widest_margin_over_both_anchors():
    # Gold 0 and 1; thresholds pick {0} (P 1, R .5), {0,4,1} (P .67, R 1) or all five (P .4, R 1).
    scores = [np.array([0.9, 0.55, 0.2, 0.1, 0.6])] * 4
    labels = [np.array([True, True, False, False, False])] * 4
    sel = Selector(SelectConfig(anchor_precision=0.6, anchor_recall=0.9))
    sel.calibrate_scores(scores, labels)
    assert sorted(sel.choose(scores[0])) == [0, 1, 4]  # margin min(0.07, 0.1); {0}: -0.4; all: -0.2


def test_bagged_selector_averages_its_fold_models_and_survives_a_roundtrip():
    rng = np.random.default_rng(1)
    groups = [_group(8, rng.normal(size=(8, 4)).astype(np.float32)) for _ in range(6)]
    labels = [np.arange(8) < 2 for _ in groups]
    config = SelectConfig(n_estimators=5, use_product=False)
    folds = []
    for part in (slice(0, 3), slice(3, 6)):
        sel = Selector(config)
        sel.fit(groups[part], labels[part])
        folds.append(sel)
    bagged = Selector(config)
    bagged.bag(folds)
    expected = np.mean([s.scores(groups[0]) for s in folds], axis=0)
    np.testing.assert_allclose(bagged.scores(groups[0]), expected)
    arrays: dict = {}
    again = Selector.from_state(bagged.state(arrays), arrays)
    np.testing.assert_allclose(again.scores(groups[0]), expected)


def test_known_sets_cuts_a_new_selection_to_its_leading_known_set():
    from clarion.rerank.snippets import keep_known_set

    keys = [A, B, C, ("hotel", 2, 4, None)]
    scores = np.array([0.9, 0.8, 0.7, 0.6])
    known = frozenset({frozenset({A}), frozenset({A, B}), frozenset({C}), frozenset({B, C})})
    assert keep_known_set([0, 1, 2], scores, keys, known) == [0, 1]  # {A, B}: the two best; not the longer {B, C}
    assert keep_known_set([2, 1, 0], scores, keys, known) == [1, 0]  # the order given is kept
    assert keep_known_set([0, 1], scores, keys, known) == [0, 1]  # a known set itself: unchanged
    assert keep_known_set([3], scores, keys, known) == [3]  # nothing known: unchanged
    assert keep_known_set([0, 3], scores, keys, known) == [0]
    assert keep_known_set([3, 0], np.array([0.9, 0.8, 0.7, 0.95]), keys, known) == [3, 0]  # {A} is not the best part
    assert keep_known_set([1, 2, 3], scores, keys, known) == [1, 2]  # {B, C} leads
    assert keep_known_set([1, 2, 3], np.array([0.9, 0.8, 0.7, 0.85]), keys, known) == [1, 2, 3]  # D sits inside
    assert keep_known_set([], scores, keys, known) == []
    faqs = [False, False, True, False]  # C is an FAQ: never cut
    assert keep_known_set([0, 1, 2], scores, keys, known, faqs) == [0, 1, 2]
    assert keep_known_set([0, 1, 3], scores, keys, known, faqs) == [0, 1]


def test_the_bank_knows_its_distinct_answer_sets():
    from clarion.respond.consensus import NeighbourBank

    emb = np.zeros((3, 2))
    sets = [frozenset({A}), frozenset(), frozenset({A})]
    bank = NeighbourBank(["r1", "r2", "r3"], [None, None, None], emb, emb, sets)
    assert bank.answer_sets() == frozenset({frozenset({A})}) and bank.same_knowledge([A]) == [0, 2]

"""The shared classifier module: one API, one way of saving (a header and plain arrays), every kind round-trips."""

from __future__ import annotations

import numpy as np
import pytest

from clarion.classifier import (
    FORMAT_VERSION,
    BinaryLogReg,
    BoostedTrees,
    KernelSvm,
    array_text,
    kinds,
    load_classifier,
    make_classifier,
    save_classifier,
    text_array,
)
from clarion.errors import ModelError


def _data(classes: int, n: int = 120, width: int = 6, seed: int = 0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, width))
    y = (X[:, 0] + 0.5 * X[:, 1] > 0).astype(int) if classes == 2 else np.digitize(X[:, 0], [-0.7, 0.0, 0.7]) + 1
    return X, y


def _round_trip(classifier, X, prefix="m_"):
    arrays: dict[str, np.ndarray] = {"other": np.zeros(2)}
    saved = save_classifier(classifier, arrays, prefix)
    assert saved["format_version"] == FORMAT_VERSION and saved["kind"] == classifier.name
    loaded = load_classifier(saved, arrays)
    np.testing.assert_array_equal(loaded.predict_proba(X), classifier.predict_proba(X))
    return loaded


@pytest.mark.parametrize(
    "make",
    [
        lambda: BinaryLogReg(C=1.0, max_iter=500),
        lambda: KernelSvm(C=10.0),
        lambda: BoostedTrees(n_estimators=5, num_leaves=4, min_child_samples=5, verbose=-1, random_state=0),
    ],
)
def test_binary_classifiers_round_trip_exactly(make):
    X, y = _data(2)
    classifier = make().fit(X, y)
    assert classifier.predict_proba(X).shape == (len(X), 2)
    _round_trip(classifier, X)


@pytest.mark.parametrize("sparse", [False, True])
def test_the_svm_predicts_as_scikit_learns_calibrated_svc(sparse):
    from scipy.sparse import csr_matrix
    from sklearn.calibration import CalibratedClassifierCV
    from sklearn.svm import SVC

    X, y = _data(2, width=8)
    X = csr_matrix(np.where(np.abs(X) > 0.8, X, 0.0)) if sparse else X
    expected = CalibratedClassifierCV(SVC(C=3.0), method="sigmoid", ensemble=False).fit(X, y).predict_proba(X)
    svm = KernelSvm(C=3.0).fit(X, y)
    np.testing.assert_allclose(svm.predict_proba(X), expected, atol=1e-10)
    assert ((svm.predict_proba(X)[:, 1] > 0.5) == y).mean() > 0.9


@pytest.mark.parametrize("name", ["logreg", "ordinal", "lgbm", "blend"])
def test_need_classifiers_round_trip_exactly(name):
    X, y = _data(4)
    _round_trip(make_classifier(name, C=0.3, seed=0).fit(X, y), X, prefix="")


def test_a_bag_of_boosted_trees_averages_its_members():
    X, y = _data(2)
    params = {"n_estimators": 5, "num_leaves": 4, "min_child_samples": 5, "verbose": -1}
    members = [BoostedTrees(**params, random_state=s).fit(X[s::2], y[s::2]) for s in (0, 1)]
    bag = BoostedTrees.bagged(members)
    expected = np.mean([m.predict_proba(X)[:, 1] for m in members], axis=0)
    np.testing.assert_allclose(bag.predict_proba(X)[:, 1], expected)
    assert len(_round_trip(bag, X).boosters()) == 2


def test_text_survives_as_bytes_and_as_an_older_str_array():
    text = "tree\nleaf=0.5 café"
    assert array_text(text_array(text)) == text
    assert array_text(np.array(text)) == text  # need models saved before the shared module


def test_kinds_cover_the_need_and_the_binary_classifiers():
    assert {"logreg", "ordinal", "lgbm", "blend", "views", "binary-logreg", "rbf-svm", "boosted-trees"} <= set(kinds())


@pytest.mark.parametrize(
    ("saved", "message"),
    [
        ({"kind": "binary-logreg"}, "classifier format None, expected 1"),
        ({"format_version": 9, "kind": "binary-logreg"}, "classifier format 9, expected 1"),
        ({"format_version": 1, "kind": "svm", "params": {}, "arrays": ""}, "unknown classifier kind 'svm'"),
        ({"format_version": 1, "kind": "binary-logreg", "params": {}, "arrays": "x_"}, "no arrays saved"),
    ],
)
def test_a_foreign_or_damaged_header_is_a_model_error(saved, message):
    with pytest.raises(ModelError, match=message):
        load_classifier(saved, {"m_coef": np.zeros((1, 2))})

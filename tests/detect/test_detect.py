"""Pure pieces of clarion.detect: request form, bank ambiguity on hand-built embeddings, classifiers, CV."""

from __future__ import annotations

import numpy as np
import pytest

from clarion.classifier import CLASSIFIERS, make_classifier
from clarion.detect import ambiguity, form
from clarion.detect.classify import decide, decision_weights
from clarion.detect.cv import f1, repeated_cv
from clarion.detect.features import FeatureGroup, feature_names, parse_groups
from clarion.errors import InputError


@pytest.mark.parametrize(
    "request_, phrase",
    [
        ("Tell me about iron.", "iron"),
        ("I\u2019m looking for information on worm", "worm"),
        ("Find me information about the Last Supper painting.", "the last supper painting"),
        ("How do you tie a Windsor knot?", "how do you tie a windsor knot"),
    ],
)
def test_topic_phrase_strips_generic_openings(request_, phrase):
    assert form.topic_phrase(request_) == phrase


def test_form_features_tell_broad_from_specific():
    broad = dict(zip(form.FORM_FEATURES, form.form_features("Tell me about iron"), strict=True))
    ask = dict(zip(form.FORM_FEATURES, form.form_features("How do you tie a Windsor knot?"), strict=True))
    assert broad["generic_template"] == 1 and ask["generic_template"] == 0
    assert ask["procedural"] == 1 and ask["question_mark"] == 1 and ask["wh_question"] == 1
    assert broad["n_topic_content"] == 1 < ask["n_topic_content"]


def test_a_request_typed_in_capitals_reads_as_typed_in_lower_case():
    shout = dict(zip(form.FORM_FEATURES, form.form_features("TELL ME ABOUT IRON"), strict=True))
    assert np.array_equal(form.form_features("TELL ME ABOUT IRON"), form.form_features("tell me about iron"))
    assert shout["capital_ratio"] == 0.0  # not three names in a row
    named = dict(zip(form.FORM_FEATURES, form.form_features("Tell me about Barack Obama"), strict=True))
    assert named["capital_ratio"] == 0.5


def _unit(rows):
    rows = np.asarray(rows, dtype=np.float32)
    return rows / np.linalg.norm(rows, axis=1, keepdims=True)


def test_a_known_request_without_its_final_punctuation_is_still_not_its_own_rival():
    bank = _unit([[1, 0.1, 0], [1, -0.1, 0], [0, 1, 0.1], [0, 1, -0.1]])
    requests = _unit([[1, 0, 0], [0, 1, 0]])
    pool = ambiguity.RequestPool(bank, ["1", "2", "3", "4"], requests, ["tell me about iron.", "what is a cat?"])
    for typed, known in (("tell me about iron", "tell me about iron."), ("what is a cat", "what is a cat?")):
        for got, want in zip(pool.rivals(typed), pool.rivals(known), strict=True):
            np.testing.assert_array_equal(got, want)
        assert len(pool.neighbours(typed, requests[0])) == 1
    stranger_mass, _ = pool.rivals("tell me about irony")  # another request: every known one is its rival
    assert (stranger_mass > pool.rivals("tell me about iron")[0]).all()
    assert len(pool.neighbours("tell me about irony", requests[0])) == 2
    assert ambiguity.same_request("tell me about iron?! ") == "tell me about iron"


def test_a_request_wins_the_questions_closest_to_it():
    bank = _unit([[1, 0.1, 0], [1, -0.1, 0], [0, 1, 0.1], [0, 1, -0.1]])
    requests = _unit([[1, 0, 0], [0, 1, 0]])
    pool = ambiguity.RequestPool(bank, ["q a1", "q a2", "q b1", "q b2"], requests, ["a", "b"])
    view = ambiguity.bank_view(pool, "a", requests[0])
    assert view.won.tolist() == [True, True, False, False]
    # the known request itself is not its own rival: its probability of winning is 1 without rivals
    alone = ambiguity.RequestPool(bank, ["1", "2", "3", "4"], requests[:1], ["a"])
    np.testing.assert_allclose(ambiguity.bank_view(alone, "a", requests[0]).prob, 1.0)
    features = dict(zip(ambiguity.BANK_FEATURES, ambiguity.bank_features(pool, view, "a", requests[0]), strict=True))
    assert features["won_argmax"] == 2


def test_spread_separates_one_intent_from_two():
    one = _unit([[1, 0.05, 0], [1, 0, 0.05], [1, -0.05, 0]])
    two = _unit([[1, 0, 0], [0, 1, 0], [0, 0, 1]])
    assert ambiguity._pair_sim(one) > 0.9 > ambiguity._pair_sim(two)
    assert ambiguity._clusters(one, 0.5) == (1,) and ambiguity._clusters(two, 0.5) == (3,)
    assert ambiguity._clusters(two, 0.5, 2.0) == (3, 1)  # one tree, cut at each threshold
    assert ambiguity._clusters(one[:1], 0.5, 0.65) == (1, 1)


def test_clusters_count_as_scipy_fcluster():
    from scipy.cluster.hierarchy import fcluster, linkage

    rng = np.random.default_rng(7)
    for _ in range(300):
        n, d = int(rng.integers(2, 40)), int(rng.integers(2, 16))
        vectors = _unit(rng.normal(size=(n, d)) + rng.normal(size=d) * 3 * rng.random())
        thresholds = tuple(rng.random(3) * 1.2)
        tree = linkage(vectors.astype(np.float64), method="average", metric="cosine")
        expected = tuple(float(fcluster(tree, t=t, criterion="distance").max()) for t in thresholds)
        assert ambiguity._clusters(vectors, *thresholds) == expected


def _toy(n=80, seed=0):
    rng = np.random.default_rng(seed)
    y = rng.integers(1, 5, n)
    X = np.column_stack([y + rng.normal(0, 0.7, n), rng.normal(size=n)])
    return X, y


@pytest.mark.parametrize("name", list(CLASSIFIERS))
def test_classifiers_give_four_probabilities_summing_to_one(name):
    X, y = _toy()
    params = {"tail": 1} if name == "views" else {}  # views: the last column is the second view
    model = make_classifier(name, C=1.0, seed=0, **params).fit(X, y)
    P = model.predict_proba(X)
    assert P.shape == (len(y), 4)
    np.testing.assert_allclose(P.sum(axis=1), 1.0)
    assert f1(y, decide(P)) > 0.5
    clone = make_classifier(name, C=1.0, seed=0, **params)
    clone.state = model.state
    np.testing.assert_allclose(clone.predict_proba(X), P)


@pytest.mark.parametrize("name", ["logreg", "ordinal"])
def test_a_label_missing_from_training_still_gets_a_column(name):
    X, y = _toy()
    keep = y != 4
    P = make_classifier(name).fit(X[keep], y[keep]).predict_proba(X)
    assert P.shape == (len(y), 4)
    assert P[:, 3].max() < 0.01


def test_decision_weights_never_lower_the_training_score():
    X, y = _toy(seed=3)
    P = make_classifier("logreg").fit(X, y).predict_proba(X)
    weights = decision_weights(P, y)
    assert f1(y, decide(P, weights)) >= f1(y, decide(P))


def test_decision_weights_correct_a_class_the_probabilities_understate():
    # every label-3 row gives 3 a little less than 2: argmax is wrong on all of them, a weight >= 1.4 on class 3
    # (and none above 2.0 on class 2's 0.2 for label-2 rows) fixes every one
    y = np.array([2] * 10 + [3] * 10)
    P = np.array([[0.1, 0.7, 0.2, 0.0]] * 10 + [[0.1, 0.5, 0.4, 0.0]] * 10)
    weights = decision_weights(P, y)
    assert f1(y, decide(P)) < 0.5 and f1(y, decide(P, weights)) == pytest.approx(1.0)
    assert weights[2] / weights[1] > 1.25


def test_repeated_cv_counts_folds():
    X, y = _toy()
    result = repeated_cv(lambda: make_classifier("logreg"), X, y, splits=4, repeats=2)
    assert len(result.scores) == 8 and 0 <= result.std <= result.mean <= 1
    assert result.mean > 0.35  # the toy labels are learnable: held-out F1 well above chance (about 0.25)


def test_feature_groups_by_name():
    assert parse_groups(["spread", "form"]) == (FeatureGroup.FORM, FeatureGroup.SPREAD)
    assert feature_names([FeatureGroup.FORM]) == list(form.FORM_FEATURES)
    with pytest.raises(InputError, match="unknown feature group 'shape'"):
        parse_groups(["shape"])
    with pytest.raises(InputError, match="unknown classifier"):
        make_classifier("svm")


def test_top_indices_and_values_are_those_of_a_full_stable_sort():
    rng = np.random.default_rng(0)
    for _ in range(500):
        values = rng.integers(0, 5, size=int(rng.integers(1, 60))).astype(float)  # many ties
        n = int(rng.integers(1, 70))
        assert np.array_equal(ambiguity.top_indices(values, n), np.argsort(-values, kind="stable")[:n])
        assert np.array_equal(ambiguity.top_values(values, n), np.sort(values)[::-1][:n])

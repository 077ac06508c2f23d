"""The reply-quality features on hand-made contexts, the source balance, the pairs of the linear model, the
``quality`` methods' registration and the leave-one-source-out helper (no MiniLM: embeddings made by hand)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from clarion.errors import InputError, ModelError
from clarion.replies import ReplyRanker
from clarion.replies.embed import Candidates, Embedded, batch_texts
from clarion.replies.methods import METHODS, method_class, source_balance
from clarion.replies.quality import NEIGHBOURS, QUALITY_FEATURES, Vocabulary, quality_matrix
from clarion.replies.quality_rank import QualityEnsemble, QualityMethod, QualityTrees, pairs, spread
from clarion.replies.sources import by_source, table

GENERIC = "I don't know."
TRAIN = [
    Candidates(("Where did you go on holiday?",), ("We went hiking in the Alps.", GENERIC), (2, 0), (1.0, 1.0)),
    Candidates(("What is your favourite film?",), ("Probably Casablanca, the ending.", GENERIC), (2, 0), (1.0, 1.0)),
    Candidates(("Do you cook?",), ("I bake sourdough bread every week.", GENERIC, "Ok."), (2, 0, 1), (1.0, 0.5, 1.0)),
]


def embedded_for(groups, extra=()) -> Embedded:
    """Unit vectors made by hand: every text its own random direction (seeded), so no two texts are alike."""
    texts = sorted({*batch_texts(groups), *extra})
    vectors = np.random.default_rng(0).normal(size=(len(texts), 16))
    return Embedded({t: i for i, t in enumerate(texts)}, vectors / np.linalg.norm(vectors, axis=1, keepdims=True))


def features(group, vocabulary, embedded, held_in=False) -> dict[str, np.ndarray]:
    x = quality_matrix([group], embedded, vocabulary, held_in)
    return {name: x[:, i] for i, name in enumerate(QUALITY_FEATURES)}


@pytest.fixture(scope="module")
def learnt():
    embedded = embedded_for(TRAIN, ["Is it raining?", "Yes, is it raining? Is it raining?", "Bring an umbrella"])
    return Vocabulary.learn(TRAIN, embedded), embedded


def test_idf_is_learnt_from_the_training_replies_and_leaves_a_reply_out_of_its_own(learnt):
    vocabulary, _ = learnt
    assert vocabulary.replies == 7 and vocabulary.document_frequency["know"] == 3
    assert vocabulary.idf("know", held_in=False) == pytest.approx(math.log(8 / 4))
    assert vocabulary.idf("unseenword", held_in=False) == pytest.approx(math.log(8))
    # "sourdough" is in one training reply: scoring that reply, it is as rare as a word never seen
    assert vocabulary.idf("sourdough", held_in=True) == pytest.approx(math.log(7))
    assert vocabulary.idf("sourdough", held_in=False) == pytest.approx(math.log(4))


def test_a_reply_given_in_many_contexts_is_common_and_a_specific_one_is_not(learnt):
    vocabulary, embedded = learnt
    group = Candidates(("Is it raining?",), (GENERIC, "Bring an umbrella"))
    f = features(group, vocabulary, embedded)
    assert f["commonness"].tolist() == pytest.approx([math.log1p(3), 0.0])
    assert features(TRAIN[0], vocabulary, embedded, held_in=True)["commonness"][1] == pytest.approx(math.log1p(2))
    assert f["idf_sum"][1] > f["idf_sum"][0] and f["idf_max"][1] > f["idf_max"][0]


def test_form_features_on_hand_made_replies(learnt):
    vocabulary, embedded = learnt
    replies = ("Is it raining?", "Yes, is it raining? Is it raining?", "Bring an umbrella")
    group = Candidates(("Is it raining?",), replies)
    f = features(group, vocabulary, embedded)
    assert f["echo"].tolist() == pytest.approx([1.0, 0.75, 0.0])
    assert f["asks"].tolist() == [1.0, 1.0, 0.0]
    assert f["words"].tolist() == pytest.approx(np.log1p([3, 7, 3]))
    assert f["distinct"].tolist() == pytest.approx([1.0, 4 / 7, 1.0])
    assert f["shared_content"].tolist() == pytest.approx(np.log1p([1, 1, 0]))  # "rain"; "it", "is" are stop words
    assert f["cos_last"][0] == pytest.approx(1.0)  # the same text: the same embedding


def test_crowding_leaves_the_reply_itself_out():
    twins = [Candidates((f"Question {i}?",), (f"Answer number {i}.", GENERIC), (2, 0), (1.0, 1.0)) for i in range(12)]
    embedded = embedded_for(twins)
    vocabulary = Vocabulary.learn(twins, embedded)
    assert len(vocabulary.pool_keys) == 13  # distinct replies: the generic one once
    crowding = features(twins[0], vocabulary, embedded)["crowding"]
    pool = embedded.of([f"Answer number {i}." for i in range(12)] + [GENERIC])
    others = np.sort(embedded.of([GENERIC]) @ pool[:12].T)[0, -NEIGHBOURS:].mean()
    assert crowding[1] == pytest.approx(others)  # not 1.0: its own entry in the pool is not a neighbour


def test_source_balance_gives_every_source_the_same_total_weight():
    groups = [Candidates(("a",), ("x", "y"), source="small")] + [
        Candidates((f"b{i}",), ("x", "y", "z", "w"), source="large") for i in range(3)
    ]
    weights = source_balance(groups)
    assert weights.mean() == pytest.approx(1.0)
    assert weights[:2].sum() == pytest.approx(weights[2:].sum())
    assert weights[2:6].sum() == pytest.approx(weights[6:10].sum())  # contexts of a source weigh alike
    assert source_balance(groups[1:]).tolist() == pytest.approx([1.0] * 12)


def test_pairs_are_the_better_minus_the_worse_with_their_mean_weight():
    x = np.array([[1.0], [2.0], [4.0], [0.0], [5.0]])
    d, w = pairs(x, np.array([2, 0, 1, 1, 1]), np.array([1.0, 3.0, 1.0, 1.0, 1.0]), [3, 2])
    assert d[:, 0].tolist() == [-1.0, -3.0, 2.0, 1.0, 3.0, -2.0]  # (0, 1), (0, 2), (2, 1) and mirrors; ties none
    assert w.tolist() == [2.0, 1.0, 2.0] * 2


def test_quality_methods_are_registered_and_refuse_unknown_options():
    assert method_class("quality") is QualityMethod and method_class("quality-trees") is QualityTrees
    assert method_class("quality-ensemble") is QualityEnsemble
    assert {"quality", "quality-trees", "quality-ensemble"} <= set(METHODS)
    with pytest.raises(InputError, match="no option 'balance'.*balanced"):
        ReplyRanker.train(TRAIN, "quality", options={"balance": True})


def test_table_is_the_mean_over_sources_not_over_contexts():
    values = {"c1": 1.0, "c2": 0.5, "c3": 0.9}
    assert table(by_source(values, {"c1": "a", "c2": "a", "c3": "b"})) == {"a": 75000, "b": 90000, "mean": 82500}


@pytest.mark.parametrize("kind", [QualityMethod, QualityTrees, QualityEnsemble])
def test_a_quality_model_learns_its_pairs_and_reloads_with_its_features(tmp_path, kind):
    embedded = embedded_for(TRAIN)
    kept = ("words", "idf_sum", "commonness", "asks")
    model = kind(features=kept) if kind is QualityMethod else kind(features=kept, rounds=5)
    model.fit(TRAIN * 8, embedded)
    model.save(tmp_path)
    again = kind.load(tmp_path)
    assert again.features == kept and again.vocabulary.contexts_with == model.vocabulary.contexts_with
    assert again.scores(TRAIN, embedded).tolist() == pytest.approx(model.scores(TRAIN, embedded).tolist())
    if kind is QualityMethod:  # the generic reply is below the specific one of every context
        scores = model.scores(TRAIN, embedded)
        assert scores[0] > scores[1] and scores[2] > scores[3] and scores[4] > scores[5]


def test_spread_is_the_root_mean_square_within_contexts():
    assert spread(np.array([1.0, 3.0, 5.0, 5.0, 5.0]), [2, 3]) == pytest.approx(math.sqrt(2 / 5))
    assert spread(np.array([7.0, 7.0]), [2]) == 1.0  # a model that never sets replies apart is not divided by 0


def test_the_ensemble_adds_its_two_models_each_divided_by_its_training_spread(tmp_path):
    embedded = embedded_for(TRAIN)
    groups, sizes = TRAIN * 8, [len(g.replies) for g in TRAIN * 8]
    ensemble = QualityEnsemble(rounds=5).fit(groups, embedded)
    linear = QualityMethod().fit(groups, embedded)
    trees = QualityTrees(rounds=5).fit(groups, embedded)
    assert ensemble.linear == pytest.approx(linear.coef)  # the same two models as trained alone
    x = ensemble._standard(quality_matrix(groups, embedded, ensemble.vocabulary, held_in=True, names=ensemble.features))
    assert ensemble.spreads == pytest.approx(
        [spread(x @ np.array(linear.coef), sizes), spread(trees._predict(x), sizes)]
    )
    expected = (
        linear.scores(TRAIN, embedded) / ensemble.spreads[0] + trees.scores(TRAIN, embedded) / ensemble.spreads[1]
    )
    assert ensemble.scores(TRAIN, embedded).tolist() == pytest.approx(expected.tolist())
    ensemble.save(tmp_path)
    (tmp_path / "quality.json").write_text((tmp_path / "quality.json").read_text().replace('"spreads"', '"spread"'))
    with pytest.raises(ModelError, match="cannot read the quality-ensemble model"):
        QualityEnsemble.load(tmp_path)


def test_the_default_features_leave_shared_content_out_and_key_the_model():
    from clarion.replies.quality import DEFAULT_FEATURES
    from clarion.replies.ranker import method_config

    assert QualityMethod().features == DEFAULT_FEATURES == tuple(n for n in QUALITY_FEATURES if n != "shared_content")
    assert QualityTrees().features == DEFAULT_FEATURES
    assert method_config("quality")["features"] == list(DEFAULT_FEATURES)  # another default set's model is not reused
    every = method_config("quality", options={"features": tuple(QUALITY_FEATURES)})
    assert every["features"] == tuple(QUALITY_FEATURES) and every != method_config("quality")
    assert "features" not in method_config("cosine")

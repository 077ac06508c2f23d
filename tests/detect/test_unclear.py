"""The P(unclear) model for any request: its features, source weighting and fit."""

from __future__ import annotations

import numpy as np
import pytest

from clarion.detect.form import asks_fact
from clarion.detect.unclear import (
    HAND_GROUPS,
    Inputs,
    UnclearConfig,
    UnclearModel,
    class_balanced,
    hand_features,
    source_weights,
)
from clarion.errors import InputError


def test_hand_features_cover_every_hand_group():
    X = hand_features(["cheap flights", "What is the capital of France?"])
    assert X.shape == (2, sum(len(c) for c in HAND_GROUPS.values()))


def test_asks_fact_is_a_question_after_one_fact_about_something_named():
    assert asks_fact("What is the capital of France?") and asks_fact("How many ounces are in a cup?")
    assert not asks_fact("tell me about france") and not asks_fact("who won the game")


def test_source_weights_bring_sources_to_the_same_total():
    w = source_weights(["a"] * 9 + ["b"])
    assert w[:9].sum() == pytest.approx(w[9]) and w.mean() == pytest.approx(1.0)
    assert source_weights(["a"] * 9 + ["b"], balance=0.0).tolist() == [1.0] * 10
    half = source_weights(["a"] * 9 + ["b"], balance=0.5)
    assert half[:9].sum() == pytest.approx(3 * half[9])  # 9 ** 0.5 against 1 ** 0.5


def test_class_balance_gives_each_class_half_of_its_source_and_keeps_the_sources_totals():
    sources = ["a"] * 8 + ["b"] * 4
    y = [1] * 6 + [0] * 2 + [1, 0, 0, 0]
    before = source_weights(sources, balance=0.5)
    w = class_balanced(before, sources, y)
    assert w[:6].sum() == pytest.approx(w[6:8].sum()) and w[8] == pytest.approx(w[9:12].sum())
    assert w[:8].sum() / w[8:].sum() == pytest.approx(before[:8].sum() / before[8:].sum())
    assert w.mean() == pytest.approx(1.0)
    one_class = class_balanced(np.ones(3), ["c"] * 3, [1, 1, 1])
    assert one_class.tolist() == pytest.approx([1.0, 1.0, 1.0])


def _inputs(requests):
    rng = np.random.default_rng(0)
    emb = rng.normal(size=(len(requests), 384))
    return Inputs(list(requests), hand_features(requests), emb / np.linalg.norm(emb, axis=1, keepdims=True))


def test_the_model_learns_which_requests_lack_something_and_ranks_new_ones():
    unclear = ["coffee shops", "gift ideas", "cheap hotels", "restaurants", "a good gym", "flights", "bakeries"]
    clear = [
        "coffee shops in seattle open now",
        "gift ideas for my sister who likes chess",
        "cheap hotels in boston for two nights in march",
        "what is the boiling point of water",
        "How many ounces are in a cup?",
        "who wrote the book Dracula",
        "how do i hard boil an egg",
    ]
    y = [1] * len(unclear) + [0] * len(clear)
    config = UnclearConfig(groups=("form", "words"), C=1.0)
    model = UnclearModel.fit(_inputs(unclear + clear), y, ["a"] * 7 + ["b"] * 7, config)
    p = model.probability(_inputs(["pizza places", "pizza places in chicago open late tonight"]))
    assert p[0] > 0.5 > p[1]


def test_a_bad_configuration_is_refused_in_one_line():
    with pytest.raises(InputError, match="groups must be some of"):
        UnclearConfig(groups=("form", "shoe-size"))
    with pytest.raises(InputError, match="source_balance"):
        UnclearConfig(source_balance=2.0)

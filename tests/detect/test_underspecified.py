"""The general cues of a request that lacks something, and the P(unclear) model over them."""

from __future__ import annotations

import numpy as np
import pytest

from clarion.detect import underspecified
from clarion.detect.unclear import HAND_GROUPS, Inputs, UnclearConfig, UnclearModel, hand_features, source_weights
from clarion.errors import InputError


@pytest.mark.parametrize(
    ("request_", "missing"),
    [
        ("Give me a list of good coffee shops?", ["place"]),
        ("good coffee shops in seattle", []),
        ("good coffee shops near me", []),
        ("mother's day gift ideas", ["recipient"]),
        ("mother's day gift ideas for my mom who gardens", []),
        ("how do i reset my password", ["version"]),
        ("how do i reset my gmail password", []),
        ("who wrote pride and prejudice", []),
    ],
)
def test_missing_slots(request_, missing):
    assert [s for s in underspecified.missing_slots(request_) if s in {"place", "recipient", "version"}] == missing


def test_wordnet_kinds_of_words():
    assert underspecified.word_kind("seattle") == "place"
    assert underspecified.word_kind("new_york") == "place"
    assert underspecified.word_kind("gmail") == "unknown"
    assert underspecified.word_kind("coffee") == "known"
    assert underspecified.word_kind("me") == "known"  # a stopword, not Maine


def test_cue_features_have_their_columns_and_see_names_and_presuppositions():
    cues = underspecified.cue_features("who won the game last night")
    assert {g: len(v) for g, v in cues.items()} == {g: len(c) for g, c in underspecified.CUE_GROUPS.items()}
    assert cues["reference"].tolist() == [1.0, 1.0, 0.0]  # the game, unnamed; last night
    named = underspecified.cue_features("who won the Seahawks game last night")
    assert named["reference"][0] == 0.0 and named["specificity"][1] > 0  # a name WordNet does not know
    assert underspecified.asks_fact("What is the capital of France?")
    assert not underspecified.asks_fact("tell me about france")


def test_hand_features_cover_every_hand_group():
    X = hand_features(["cheap flights", "What is the capital of France?"])
    assert X.shape == (2, sum(len(c) for c in HAND_GROUPS.values()))


def test_source_weights_bring_sources_to_the_same_total():
    w = source_weights(["a"] * 9 + ["b"])
    assert w[:9].sum() == pytest.approx(w[9]) and w.mean() == pytest.approx(1.0)
    assert source_weights(["a"] * 9 + ["b"], balance=0.0).tolist() == [1.0] * 10


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
    requests = unclear + clear
    y = [1] * len(unclear) + [0] * len(clear)
    config = UnclearConfig(groups=("form", "slots", "specificity", "words"), C=1.0)
    model = UnclearModel.fit(_inputs(requests), y, ["a"] * 7 + ["b"] * 7, config)
    p = model.probability(_inputs(["pizza places", "pizza places in chicago open late tonight"]))
    assert p[0] > 0.5 > p[1]


def test_a_bad_configuration_is_refused_in_one_line():
    with pytest.raises(InputError, match="groups must be some of"):
        UnclearConfig(groups=("form", "shoe-size"))
    with pytest.raises(InputError, match="source_balance"):
        UnclearConfig(source_balance=2.0)

"""The consensus generator: follow-up splitting, the n-gram utility, weighted MBR, the same-knowledge pool, the
yes/no opener and the closing question; the lm generator's choice among its candidates."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from clarion.data.dstc import load_dataset
from clarion.dstc.models.modeldir import load_model, save_model
from clarion.dstc.models.pipeline import PipelineConfig
from clarion.dstc.models.train import train
from clarion.respond.consensus import (
    Generator,
    NeighbourBank,
    consensus_choice,
    consensus_pool,
    consensus_response,
    lm_consensus_response,
)
from clarion.respond.faq_answers import asks_open, without_polar_opener, yes_to_the_opposite
from clarion.respond.follow_up import (
    FOLLOW_UP_OTHER,
    Closings,
    closed,
    consensus_question,
    refuses_reservations,
    split_follow_up,
    without_joined_question,
)
from clarion.respond.pool import Pool, mbr_choice, mbr_weighted, ngram_utility
from dstc_synthetic import write_synthetic


def test_split_follow_up():
    assert split_follow_up("It is quiet. Would you like to book?") == ("It is quiet.", "Would you like to book?")
    assert split_follow_up("Is it quiet? Yes, it is.") == ("Is it quiet? Yes, it is.", None)
    assert split_follow_up("Would you like to book?") == ("Would you like to book?", None)  # nothing left


def test_ngram_utility_by_hand():
    # "a b c" vs "a b d": unigrams 2 common of 3+3 -> 2/3; bigrams 1 of 2+2 -> 1/2; trigrams 0; 4-grams none.
    u = ngram_utility(["a b c", "a b d", ""], order=4)
    assert u[0, 1] == pytest.approx((2 / 3 + 1 / 2 + 0 + 0) / 4)
    assert u[0, 1] == u[1, 0]
    assert u[0, 0] == pytest.approx(3 / 4)  # no 4-gram in a 3-word text
    assert u[2].sum() == 0.0 and u[:, 2].sum() == 0.0


def test_ngram_utility_f_beta_by_hand():
    # "a b c" (3 words) as the hypothesis against "a b c d e" (5): unigrams 3 common, bigrams 2 of 2 / 4, trigrams
    # 1 of 1 / 3, 4-grams none of 0 / 2. F-beta = (1 + b^2) c / (|hyp| + b^2 |ref|).
    b2 = 0.25

    def f(c, hyp, ref):
        return (1 + b2) * c / (hyp + b2 * ref) if hyp + ref else 0.0

    u = ngram_utility(["a b c", "a b c d e"], order=4, beta=0.5)
    assert u[0, 1] == pytest.approx((f(3, 3, 5) + f(2, 2, 4) + f(1, 1, 3) + f(0, 0, 2)) / 4)
    assert u[1, 0] == pytest.approx((f(3, 5, 3) + f(2, 4, 2) + f(1, 3, 1) + f(0, 2, 0)) / 4)
    # below 1, the text that adds nothing to what the other says scores higher; at 1 both read the same F1
    assert u[0, 1] > u[1, 0]
    f1 = ngram_utility(["a b c", "a b c d e"], order=4)
    assert f1[0, 1] == pytest.approx(f1[1, 0])


def test_mbr_beta_prefers_the_shared_core():
    # three bodies: the core two others hold, and two that each add their own words
    texts = ["the rooms are quiet", "the rooms are quiet and the staff were friendly", "the rooms are quiet at night"]
    assert mbr_weighted(texts, [1, 1, 1], beta=0.5) == 0
    assert mbr_weighted(texts, [1, 1, 1], beta=3.0) != 0  # recall-weighted: the longest agreeing body


def test_mbr_weighted_follows_the_weights():
    texts = ["the room is quiet", "the room is very quiet", "breakfast is free", "breakfast is free daily"]
    assert mbr_weighted(texts, [1, 1, 1, 1]) in (0, 1, 2, 3)
    # agreement beats weight: the heavy text shares nothing; 0 and 2 agree fully (utility (1 + u03) / 7 each,
    # 1's is 0), and the tie goes to the first
    agree = ["the room is quiet", "free breakfast daily", "the room is quiet", "the room is very quiet"]
    assert mbr_weighted(agree, [1, 5, 1, 1]) == 0
    assert mbr_weighted(texts, [5, 5, 1, 1]) in (0, 1)
    assert mbr_weighted(texts, [1, 1, 5, 5]) in (2, 3)
    assert mbr_weighted(["only one"], [1.0]) == 0
    # only the first two can be chosen; the heavy evidence decides which of them
    assert mbr_weighted(texts, [1, 1, 5, 5], candidates=2) in (0, 1)
    assert mbr_weighted(["breakfast", "the room is quiet", *texts[2:]], [1, 1, 5, 5], candidates=2) == 0


CLOSINGS = Closings(
    {"hotel": "Would you like to book a room?", "restaurant": "Would you like to make a reservation?"},
    "Would you like to make a reservation?",
)
"""The closing questions of the test banks (a model learns its own from its training responses)."""


FOLLOW_UPS, FOLLOW_UP = CLOSINGS.by_domain, CLOSINGS.default


def _one_hot_bank(responses: list[str], names: list[str], keys: list[frozenset]) -> NeighbourBank:
    """A bank whose turn i has the i-th unit vector as query and knowledge embedding."""
    emb = np.eye(len(responses), 384, dtype=np.float32)
    return NeighbourBank(responses, names, emb, emb, keys, closings=CLOSINGS)


def _bank() -> NeighbourBank:
    responses = [
        "Guests of Alpha Hotel say the rooms are quiet. Would you like to book?",
        "Alpha Hotel rooms are very quiet at night.",
        "Breakfast at Beta Inn is free. Anything else?",
        "Beta Inn serves a free breakfast every morning.",
    ]
    names = ["ALPHA HOTEL", "ALPHA HOTEL", "BETA INN", "BETA INN"]
    keys = [frozenset({("hotel", 1, 0, 0)})] * 2 + [frozenset({("hotel", 2, 1)})] * 2
    return _one_hot_bank(responses, names, keys)


def test_consensus_uses_same_knowledge_turns_and_appends_follow_up():
    bank = _bank()
    assert bank.same_knowledge([("hotel", 2, 1)]) == [2, 3]
    assert bank.same_knowledge([]) == []
    query = bank.query_emb[0]  # nearest: the quiet-room turns
    text = consensus_response(bank, query, query, "Gamma House", [("hotel", 2, 1)], k=1, exact_weight=10.0)
    assert "breakfast" in text.lower() and text.endswith(FOLLOW_UPS["hotel"])
    other = consensus_response(bank, query, query, "Gamma House", [("restaurant", 2, 1)], k=1)
    assert other.endswith(FOLLOW_UP)
    assert "Beta Inn" not in text and "Gamma House" in text
    plain = consensus_response(bank, query, query, "Gamma House", [], k=2, follow_up="")
    assert "quiet" in plain and not plain.endswith("?")
    assert consensus_response(NeighbourBank([], [], np.zeros((0, 384)), np.zeros((0, 384))), query, query, "X") == ""


def test_consensus_pool_is_what_consensus_chooses_from():
    bank = _bank()
    query = bank.query_emb[0]
    pool = consensus_pool(bank, query, query, "Gamma House", [("hotel", 2, 1)], k=1, exact_weight=10.0)
    bodies, weights, choosable = pool.bodies, pool.weights, pool.choosable
    assert weights == [1.0, 10.0, 10.0] and choosable == 3  # the nearest turn, then the two same-knowledge turns
    assert all("Would you like" not in b and "Anything else" not in b for b in bodies)  # closing questions cut
    assert bodies[0] == "Guests of Gamma House say the rooms are quiet."
    chosen = consensus_response(bank, query, query, "Gamma House", [("hotel", 2, 1)], k=1, exact_weight=10.0)
    assert chosen.removesuffix(" " + FOLLOW_UPS["hotel"]) in bodies


def test_lm_candidate_chosen_by_the_pool_with_the_domain_follow_up():
    candidates = ["The rooms are quiet. Do you want more?", "Breakfast is free every morning. Anything else?"]
    pool = ["Breakfast at Gamma House is free.", "Gamma House serves a free breakfast every morning."]
    keys = [("restaurant", 3, 1)]
    text = lm_consensus_response(candidates, pool, [1.0, 1.0], keys, pool_weight=1.0, closings=CLOSINGS)
    assert text == f"Breakfast is free every morning. {FOLLOW_UPS['restaurant']}"
    # without the pool the two candidates tie and the first (greedy) one is kept
    assert lm_consensus_response(candidates, pool, [1.0, 1.0], keys, pool_weight=0.0).startswith("The rooms")
    assert lm_consensus_response(candidates[:1], [], [], keys, 1.0).startswith("The rooms are quiet.")


def test_bank_keys_survive_save_and_load(tmp_path):
    data = load_dataset(write_synthetic(tmp_path / "syn"))
    model, _ = train(data, PipelineConfig.tiny())
    assert model.config.generator is Generator.consensus
    assert len(model.bank.keys) == len(model.bank.responses) > 0
    save_model(model, tmp_path / "m", "fp")
    again = load_model(tmp_path / "m")
    assert again.bank.keys == model.bank.keys and again.bank.closings == model.bank.closings
    assert again.predict(data) == model.predict(data)


def test_a_comparison_answer_votes_but_is_not_chosen_for_one_entity():
    responses = [
        "The rooms at Delta Lodge are quiet, and the rooms at Alpha Hotel are quiet too. Anything else?",
        "The rooms at Delta Lodge are quiet, and the rooms at Alpha Hotel are quiet as well.",
        "Alpha Hotel has quiet rooms.",
    ]
    keys = [frozenset({("hotel", 1, 0, 0), ("hotel", 4, 0, 0)})] * 2 + [frozenset({("hotel", 1, 0, 0)})]
    bank = _one_hot_bank(responses, ["ALPHA HOTEL"] * 3, keys)
    query = bank.query_emb.sum(axis=0) / np.sqrt(3)
    one = [("hotel", 1, 0, 0)]
    bodies, weights, choosable = consensus_pool(bank, query, query, "Gamma House", one, k=3)[:3]
    assert choosable == 1 and bodies[0] == "Gamma House has quiet rooms." and len(bodies) == 3
    assert consensus_response(bank, query, query, "Gamma House", one, k=3).startswith("Gamma House has quiet rooms.")
    two = [("hotel", 1, 0, 0), ("hotel", 4, 0, 0)]  # a comparison was selected: the comparisons may answer it
    assert "Delta Lodge" in consensus_response(bank, query, query, "Gamma House", two, k=3)


def test_an_answer_about_another_domain_votes_but_is_not_chosen():
    responses = [
        "Guests say the rooms at Alpha Hotel are good value.",
        "Guests say the rooms at Alpha Hotel are good value for money.",
        "Beta Bistro is good value.",
    ]
    keys = [frozenset({("hotel", 1, 0, 0)})] * 2 + [frozenset({("restaurant", 2, 0, 0)})]
    bank = _one_hot_bank(responses, ["ALPHA HOTEL", "ALPHA HOTEL", "BETA BISTRO"], keys)
    query = bank.query_emb.sum(axis=0) / np.sqrt(3)
    restaurant = [("restaurant", 7, 0, 0)]
    choosable = consensus_pool(bank, query, query, "Gamma Grill", restaurant, k=3).choosable
    assert choosable == 1
    text = consensus_response(bank, query, query, "Gamma Grill", restaurant, k=3)
    assert text == "Gamma Grill is good value. " + FOLLOW_UPS["restaurant"]
    hotel = [("hotel", 7, 0, 0)]
    assert "rooms" in consensus_response(bank, query, query, "Gamma House", hotel, k=3)


def test_an_open_question_gets_no_yes_or_no_opener():
    assert asks_open("How's the interior at the restaurant?")
    assert asks_open("Thanks. What do people say about the wifi?")
    assert not asks_open("Is it good for kids?")
    assert not asks_open("I'd like to know if they have clean rooms or not.")
    assert not asks_open("How are the beds? Are they comfy?")  # the last question is a yes/no one
    assert without_polar_opener("It does. Guests enjoyed the decor.") == "Guests enjoyed the decor."
    assert without_polar_opener("Yes, I believe they are. Guests say so.") == "Guests say so."
    assert without_polar_opener("Yes, the service is great.") == "The service is great."
    assert without_polar_opener("They do not. But the food is good.") == "They do not. But the food is good."
    assert without_polar_opener("Yesterday was fine.") == "Yesterday was fine."
    pool = Pool(["Yes, the service at Gamma Grill is great."], [1.0], 1)
    keys = [("restaurant", 1, 0, 0)]
    assert consensus_choice(pool, keys, "", turn="How is the service?") == "The service at Gamma Grill is great."
    assert consensus_choice(pool, keys, "", turn="Is the service good?") == pool.bodies[0]


@pytest.mark.skipif(not Path("/usr/share/wordnet/data.noun").is_file(), reason="apt-get install wordnet-base")
def test_a_yes_to_the_opposite_of_the_question_is_cut():
    assert yes_to_the_opposite("Is it noisy at night?", "Yes, Acorn Guest House is quiet. Guests relax.")
    assert not yes_to_the_opposite("Is it peaceful and quiet?", "Yes, Acorn Guest House is quiet.")  # asked too
    assert not yes_to_the_opposite("Are nonalcoholic drinks served?", "Yes, there are non-alcoholic drinks.")
    assert not yes_to_the_opposite("Is it quiet?", "Yes, Acorn Guest House is quiet.")
    assert not yes_to_the_opposite("Is it noisy at night?", "Acorn Guest House is quiet.")  # no yes to cut
    pool = Pool(["Yes, Acorn Guest House is quiet."], [1.0], 1)
    keys = [("hotel", 1, 0, 0)]
    assert consensus_choice(pool, keys, "", turn="Is it noisy at night?") == "Acorn Guest House is quiet."
    assert consensus_choice(pool, keys, "", turn="Is it quiet at night?") == pool.bodies[0]


def test_an_answer_that_says_no_reservations_offers_none():
    assert refuses_reservations("Gamma Grill does not take reservations.")
    assert refuses_reservations("It is lovely. You can't make reseravtions at Gamma Grill.")
    assert not refuses_reservations("Yes, Gamma Grill takes reservations.")
    assert not refuses_reservations("Reservations are not needed at Gamma Grill.")
    assert not refuses_reservations("No reservation is needed for parking.")
    assert not refuses_reservations("Not all seats have a view. Shall I make a reservation?")
    body = "Gamma Grill does not take reservations."
    assert closed(body, FOLLOW_UPS["restaurant"], CLOSINGS) == f"{body} {FOLLOW_UP_OTHER}"
    assert closed(body, "Anything else?", CLOSINGS) == f"{body} Anything else?"  # not a learnt offer
    took = "Gamma Grill takes reservations."
    assert closed(took, FOLLOW_UP, CLOSINGS) == f"{took} {FOLLOW_UP}"
    assert closed(body, FOLLOW_UPS["restaurant"]) == f"{body} {FOLLOW_UPS['restaurant']}"  # not a learnt offer
    assert closed(body, "") == body


def test_a_borrowed_body_keeps_no_closing_question_of_its_own():
    """A training response whose offer is joined by a comma ("..., would you like to book a room there tonight?")
    had kept it before the appended one."""
    body = (
        "Alpha Lodge has spotless rooms according to the reviews I found, would you like to book a room there tonight?"
    )
    offer = FOLLOW_UPS["hotel"]
    assert closed(body, offer) == f"Alpha Lodge has spotless rooms according to the reviews I found. {offer}"
    thin = "The walls are thin. This is not a great choice, let's find something else, shall we?"
    assert closed(thin, offer) == f"The walls are thin. This is not a great choice. {offer}"
    assert closed("Guests say it is really fast, will that work for you?", "") == (
        "Guests say it is really fast, will that work for you?"  # no question appended: its own stays
    )
    assert closed("Yes, it has a pool, a gym and a spa.", offer) == f"Yes, it has a pool, a gym and a spa. {offer}"
    assert without_joined_question(", would you like to book?") == ", would you like to book?"  # nothing before it


def test_the_consensus_question_is_the_mbr_choice():
    questions = ["Shall I book?", "Would you like to book a room?", "Shall I book?", "Would you like a room?", "Hm?"]
    assert consensus_question(questions) == questions[mbr_choice(questions)]
    assert consensus_question(["Anything else?"]) == "Anything else?"

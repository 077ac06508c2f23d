"""The consensus generator: follow-up splitting, the n-gram utility, weighted MBR, the same-knowledge pool; the
lm generator's choice among its candidates."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from dstc_synthetic import write_synthetic

from clarion.data.dstc import Snippet, load_dataset
from clarion.dialogue.entities import EntityTracker
from clarion.dstc.models.modeldir import load_model, save_model
from clarion.dstc.models.pipeline import PipelineConfig
from clarion.dstc.models.train import train
from clarion.respond.consensus import (
    Generator,
    NeighbourBank,
    body_texts,
    consensus_choice,
    consensus_pool,
    consensus_response,
    lm_consensus_response,
)
from clarion.respond.faq_answers import (
    agreeing,
    asks_open,
    contradicts,
    dishes,
    faq_answers,
    with_faq_answers,
    without_polar_opener,
    yes_to_the_opposite,
)
from clarion.respond.follow_up import (
    FOLLOW_UP_MANY,
    FOLLOW_UP_OTHER,
    FOLLOW_UP_TWO,
    MIN_CLOSINGS,
    Closings,
    closed,
    consensus_question,
    follow_up_for,
    refuses_reservations,
    split_follow_up,
    without_joined_question,
)
from clarion.respond.names import display_name, entity_renames, respelled, swap_entities, swap_entity
from clarion.respond.pool import (
    Pool,
    aspect_holders,
    foreign_details,
    mbr_choice,
    mbr_weighted,
    ngram_utility,
    with_detail_penalty,
)
from clarion.respond.template import Selected, snippets_response, template_response
from clarion.text import negated


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
    assert pool.sources == [0, 2, 3] and pool.scale is None  # each body's training turn
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


def test_bank_keys_and_entity_names_survive_save_and_load(tmp_path):
    data = load_dataset(write_synthetic(tmp_path / "syn"))
    model, _ = train(data, PipelineConfig.tiny())
    assert model.config.generator is Generator.consensus
    assert len(model.bank.keys) == len(model.bank.responses) > 0
    save_model(model, tmp_path / "m", "fp")
    again = load_model(tmp_path / "m")
    assert again.bank.keys == model.bank.keys
    assert again.bank.entity_names == model.bank.entity_names
    entities = {key[:2] for keys in model.bank.keys for key in keys}
    assert set(model.bank.entity_names) == entities and all(model.bank.entity_names.values())
    assert again.predict(data) == model.predict(data)


def test_names_are_written_as_responses_write_them():
    assert display_name("A AND B GUEST HOUSE") == "A and B Guest House"
    assert display_name("THE GOLDEN CURRY") == "The Golden Curry"
    # as the knowledge's own texts write them: each part of a hyphenated word, "by", an abbreviation without a vowel
    assert display_name("ALPHA-MILTON GUEST HOUSE") == "Alpha-Milton Guest House"
    assert display_name("EXPRESS BY HOLIDAY INN CAMBRIDGE") == "Express by Holiday Inn Cambridge"
    assert display_name("HK FUSION") == "HK Fusion" and display_name("B&B STAY") == "B&B Stay"
    text = swap_entity("I liked the Acorn Guest House. Acorn Guest House is nice.", "ACORN GUEST HOUSE", "The Place")
    assert text == "I liked the Place. The Place is nice."


def test_the_rest_of_a_misspelt_name_is_renamed_with_it():
    # a training response wrote "The Arbury Guesy Lodge" for ARBURY LODGE GUESTHOUSE
    text = swap_entity("The Arbury Guesy Lodge has good staff.", "ARBURY LODGE GUESTHOUSE", "Gonville Hotel")
    assert text == "Gonville Hotel has good staff."
    assert swap_entity("Efes Restauarant is nice.", "EFES RESTAURANT", "Zizzi") == "Zizzi is nice."
    # a place word that is not the old name's stays: it is how responses write the name
    text = swap_entity("The Golden Curry Restaurant is nice.", "THE GOLDEN CURRY", "Zizzi")
    assert text == "Zizzi Restaurant is nice."
    # only capitalised name-like words go with it: a verb, lower-case words and other words stay
    text = "The Acorn Guest House Hosts guests; the Acorn Guest House house rules."
    text = swap_entity(text, "ACORN GUEST HOUSE", "X")
    assert text == "X Hosts guests; X house rules."
    # a place-type word after the old name goes with it when the new name says what kind of place it is
    acorn = "The Acorn Hotel is quiet according to customer reviews I found."
    marriott = swap_entity(acorn, "ACORN GUEST HOUSE", "Huntingdon Marriott Hotel")
    assert marriott.startswith("Huntingdon Marriott Hotel is")
    assert swap_entity(acorn, "ACORN GUEST HOUSE", "Archway House").startswith("Archway House is quiet")
    assert swap_entity(acorn, "ACORN GUEST HOUSE", "Zizzi").startswith("Zizzi Hotel is")  # no type of its own
    assert swap_entity("I liked the Acorn. Hotel staff were kind.", "ACORN GUEST HOUSE", "Ashley Hotel").endswith(
        ". Hotel staff were kind."
    )


def test_a_misspelt_old_name_is_renamed_too():
    # a training comparison wrote "Takeway" for THE GOOD LUCK CHINESE FOOD TAKEAWAY: no alias caught it
    text = "The service at Good Luck Chinese Food Takeway ranges from clueless to excellent."
    renamed = swap_entity(text, "THE GOOD LUCK CHINESE FOOD TAKEAWAY", "Midsummer House Restaurant")
    assert renamed == "The service at Midsummer House Restaurant ranges from clueless to excellent."
    assert swap_entity("Guests of Kirkwoos House say so.", "KIRKWOOD HOUSE", "Zizzi") == "Guests of Zizzi say so."


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


def test_overlapping_knowledge_joins_the_pool_only_when_none_is_exact():
    responses = [
        "Alpha Hotel has quiet rooms.",
        "Alpha Hotel is quiet and clean.",
        "Alpha Hotel and Beta Inn are quiet.",
    ]
    a, b, c, d = ("hotel", 1, 0, 0), ("hotel", 1, 0, 1), ("hotel", 1, 0, 2), ("hotel", 2, 0, 0)
    keys = [frozenset({a, b}), frozenset({a, b, c}), frozenset({a, d})]
    bank = _one_hot_bank(responses, ["ALPHA HOTEL"] * 3, keys)
    emb = bank.query_emb
    # {a, b, c} vs {a, b}: Jaccard 2/3; vs {a, b, c}: exact (left out); {a, d} spans two entities
    assert bank.overlapping([a, b, c], 0.3) == [(0, pytest.approx(2 / 3))]
    assert bank.overlapping([a, b, c], 0.7) == []
    assert bank.overlapping([a], 0.3) == [(0, 0.5), (1, pytest.approx(1 / 3))]
    query = np.zeros(384, dtype=np.float32)
    query[2] = 1.0  # nearest: the two-entity turn only
    pool = consensus_pool(bank, query, query, "Gamma House", [a, c], k=1, exact_weight=3.0, overlap=0.5)
    # {a, b, c} vs {a, c}: Jaccard 2/3, weight 2 ({a, b}: 1/3, below 0.5); choosable first, the comparison only votes
    assert pool.weights == [pytest.approx(2.0), 1.0] and pool.choosable == 1
    assert pool.bodies[0] == "Gamma House is quiet and clean."
    assert len(consensus_pool(bank, query, query, "Gamma House", [a, c], k=1, overlap=0.3).bodies) == 3
    twice = consensus_pool(bank, emb[1], emb[1], "Gamma House", [a, c], k=1, exact_weight=3.0, overlap=0.5)
    assert twice.weights == [1.0, pytest.approx(2.0)] and twice.bodies[0] == twice.bodies[1]  # nearest and overlapping
    assert consensus_pool(bank, query, query, "Gamma House", [a, c], k=1, overlap=None).weights == [1.0]
    exact = consensus_pool(bank, query, query, "Gamma House", [a, b], k=1, exact_weight=3.0, overlap=0.3)
    assert exact.weights == [3.0, 1.0]  # an exact match exists: no overlapping turns (the comparison last)


def test_a_selected_faq_answer_the_body_misses_is_added():
    body = "Meghna is in a mall, so the view is mostly the parking lot."
    seating = ("The MEGHNA does have outdoor seating.", "MEGHNA")
    parking = ("Free parking is available at the mall next to Meghna.", "MEGHNA")
    # content stems, the name cut: {doe, outdoor, seat}: none in the body -> added, the name as responses write it
    assert with_faq_answers(body, [seating], 0.5) == f"{body} Meghna does have outdoor seating."
    # {free, park, avail, mall}: 2 of 4 in the body -> left out
    assert with_faq_answers(body, [parking], 0.5) == body
    assert with_faq_answers(body, [parking], 0.7).endswith("next to Meghna.")
    # an added answer's words count as covered for the next one
    again = ("Yes, Meghna has outdoor seating.", "MEGHNA")
    assert with_faq_answers(body, [seating, again], 0.5) == f"{body} Meghna does have outdoor seating."
    assert with_faq_answers(body, [], 0.5) == body
    # the name is no content: a body about the place does not hold "The Golden Curry is a wheelchair accessible."
    curry = ("The Golden Curry is a wheelchair accessible.", "THE GOLDEN CURRY")
    outdoors = "Yes, the Golden Curry offers a very nice outdoor seating area."
    assert with_faq_answers(outdoors, [curry], 0.5) == f"{outdoors} The Golden Curry is a wheelchair accessible."
    # word forms are one stem: "alcoholic" holds "alcohol"
    grafton = "Yes, Grafton Hotel Restaurant serves alcoholic beverages such as wine and beer."
    assert (
        with_faq_answers(grafton, [("Grafton Hotel Restaurant does serve alcohol.", "GRAFTON HOTEL RESTAURANT")], 0.5)
        == grafton
    )
    # an answer about several places: an added answer that does not name its place says whose
    both = "The wifi at Meghna is fast, while that at Gamma Grill is slow."
    free = ("Free parking is available.", "MEGHNA")
    assert with_faq_answers(both, [free], 0.5, several=True) == f"{both} Meghna: Free parking is available."
    assert with_faq_answers(both, [free], 0.5) == f"{both} Free parking is available."
    assert with_faq_answers(both, [seating], 0.5, several=True) == f"{both} Meghna does have outdoor seating."
    # "Wi-Fi" holds "wifi": no second sentence saying the wifi is free
    warkworth = "The internet connection at Warkworth House is accessed via Wi-Fi, which is free."
    assert with_faq_answers(warkworth, [("Warkworth House offers free WiFi.", "WARKWORTH HOUSE")], 0.5) == warkworth
    faq = Snippet("restaurant", 1, 3, None, "faq", "Outdoor seating?", seating[0], "MEGHNA")
    review = Snippet("restaurant", 1, 0, 2, "review", "", "The view was nice.", "MEGHNA")
    assert faq_answers([review, faq]) == [seating]


def test_a_denial_is_added_unless_the_body_names_what_it_denies():
    body = "Yes, according to past guests, Gonville Hotel offers full English/Irish breakfast."
    denial = ("Breakfast is not free.", "GONVILLE HOTEL")
    # {breakfast, free}: half in the body, so the share alone counts it as said
    assert with_faq_answers(body, [denial], 0.5) == body
    # what it denies ("free") is not in the body: added, and the body's "Yes," goes with it
    assert with_faq_answers(body, [denial], 0.5, denials=True) == (
        "According to past guests, Gonville Hotel offers full English/Irish breakfast. Breakfast is not free."
    )
    said = "Breakfast at Gonville Hotel is not free, but it is good."
    assert with_faq_answers(said, [denial], 0.5, denials=True) == said  # the body names it
    # "not available" denies the thing itself: a body about the outdoor seating names what it denies
    lacks = "No, the location lacks outdoor seating."
    seating = ("Outdoor seating is not available at Tandoori Palace.", "TANDOORI PALACE")
    assert with_faq_answers(lacks, [seating], 0.5, denials=True) == lacks
    lift = ("Yes, Gonville Hotel does have a lift.", "GONVILLE HOTEL")  # no denial: the share decides as before
    assert with_faq_answers("Yes, the Gonville Hotel has a lift.", [lift], 0.5, denials=True).startswith("Yes,")
    assert PipelineConfig().uses("denials_said") and not PipelineConfig.from_json({}).uses("denials_said")


def test_a_body_contradicts_an_faq_it_restates_with_the_other_polarity():
    seating = ("Zizzi Cambridge does not offer outdoor seating.", "ZIZZI CAMBRIDGE")
    assert negated(seating[0]) and negated("They don't.") and negated("It lacks a view.") and not negated("Notable.")
    assert contradicts("Yes, Zizzi Cambridge does have an outdoor seating area by a lake.", *seating)
    assert contradicts("I'm not sure. Zizzi Cambridge does have a nice outdoor seating area.", *seating)  # hedge apart
    assert not contradicts("No, Zizzi Cambridge lacks outdoor seating.", *seating)
    assert not contradicts("Zizzi Cambridge has nice decor.", *seating)  # shares the name only: no restatement
    # one word of the question is enough when the negation's own words meet it
    assert contradicts(
        "Yes, Zizzi Cambridge has a very nice area for dining outdoors.", *seating, "Any outdoor seating?"
    )
    alcohol = ("Yes, Cocum serves alcohol.", "COCUM")
    assert not contradicts("Yes, they serve alcohol at Cocum, but I am not sure about specifics.", *alcohol)
    assert not contradicts("Cocum serves alcohol, while others say it was not worth the price.", *alcohol)
    assert contradicts("Cocum never serves alcohol.", *alcohol)
    # with its question, the FAQ is about what it asks: a body about good breakfasts does not restate "not free"
    free = ("Breakfast is not free.", "GONVILLE HOTEL")
    good = "According to reviewers, the breakfast options at Gonville Hotel are very good."
    assert not contradicts(good, *free, "Is there a free breakfast available for guests?")
    # nor, read against the answer alone, a body that does not touch what the negation denies ("not free")
    assert not contradicts(good, *free)
    assert not contradicts("Breakfast is good.", "Breakfast is good.", None)
    assert contradicts("Breakfast is free at Gonville Hotel.", *free, "Is there a free breakfast available?")
    # a denial of availability alone denies the topic: the body's outdoor seating area is what "not available" denies
    dojo = "Yes, Dojo Noodle Bar has an outdoor seating area if you would prefer to sit outside."
    assert contradicts(dojo, "Outdoor seating is not available.", "DOJO NOODLE BAR", "Do you have outdoor seating?")
    assert not contradicts(good, *free, "Is there a free breakfast available for guests?")  # "not free" is no such
    pool = Pool(
        ["Yes, Zizzi Cambridge has outdoor seating.", "Zizzi Cambridge has no outdoor seating.", "Voter."], [3, 1, 1], 2
    )
    kept = agreeing(pool, [(*seating, "Do you provide any outdoor seating?")])
    assert kept.bodies == [
        "Zizzi Cambridge has no outdoor seating.",
        "Yes, Zizzi Cambridge has outdoor seating.",
        "Voter.",
    ]
    assert kept.weights == [1, 3, 1] and kept.choosable == 1  # the contradicting body still votes
    assert agreeing(pool, []) == pool
    assert PipelineConfig().uses("faq_agreement") and not PipelineConfig.from_json({}).uses(
        "faq_agreement"
    )  # models trained before


def test_borrowed_details_lower_a_bodys_chance_and_keep_its_vote():
    specific = frozenset({"lake", "oceanfront", "tuscany"})
    source = frozenset({"lake", "outdoor", "seating", "tuscany"})  # the place the body was written for
    body = "Yes, Meghna has an outdoor seating area that overlooks a beautiful lake."
    assert foreign_details(body, source, {"outdoor", "seating"}, specific) == ["lake"]
    assert foreign_details(body, source, {"lake"}, specific) == []  # the selected place's knowledge holds it
    assert foreign_details(body, frozenset({"outdoor"}), set(), specific) == []  # not from its own place's knowledge
    texts = ["the patio overlooks a lake", "the patio is nice", "the patio is nice and calm"]
    assert mbr_weighted(texts, [1, 1, 1]) == 1
    assert mbr_weighted(texts, [1, 1, 1], scale=[1.0, 0.1, 1.0]) == 2  # a prior on the expected utility
    pool = Pool(texts, [1.0, 1.0, 1.0], 2)
    scaled = with_detail_penalty(pool, [True, False], 0.2)
    assert scaled.scale == [0.8, 1.0, 1.0] and scaled.weights == pool.weights  # it still votes at full weight
    assert (
        PipelineConfig().param("detail_penalty", "penalty") == 0.2
        and PipelineConfig.from_json({}).param("detail_penalty", "penalty") is None
    )


def test_a_choice_holding_no_word_of_the_turn_is_made_again_among_the_bodies_holding_the_turn_s_aspect():
    bodies = [
        "Half thought the rooms were cramped and half thought they were spacious.",
        "Guests say the beds are comfortable.",
        "The beds are comfortable, guests say.",
        "The beds are soft and comfortable.",
    ]
    rooms = bodies[0]
    pool = Pool([*bodies, *[rooms] * 6], [1.0] * 10, 4)  # many room answers vote for the room answer
    assert consensus_choice(pool, [], "") == rooms
    assert consensus_choice(pool, [], "", aspect_turn="How are the beds?") == "The beds are comfortable, guests say."
    assert aspect_holders(bodies, "How are the beds?", 0) == [1, 2, 3]
    assert aspect_holders(bodies, "How are the beds?", 1) is None  # the choice holds "bed" already
    assert aspect_holders(bodies, "Are the rooms big?", 1) is None  # only one body holds "room"
    assert aspect_holders(bodies[:3], "Are the beds and rooms nice?", 0) is None  # the choice holds "room"
    assert PipelineConfig().uses("aspect_words") and not PipelineConfig.from_json({}).uses(
        "aspect_words"
    )  # models trained before


def test_consensus_adds_the_missed_faq_answer_before_the_follow_up():
    bank = _bank()
    query = bank.query_emb[0]
    faq = ("Gamma House has a gym on the ground floor.", "Gamma House")
    keys = [("hotel", 2, 1)]
    plain = consensus_response(bank, query, query, "Gamma House", keys, k=1, exact_weight=10.0)
    added = consensus_response(bank, query, query, "Gamma House", keys, 1, 10.0, faqs=[faq], faq_cover=0.5)
    body = plain.removesuffix(" " + FOLLOW_UPS["hotel"])
    assert added == f"{body} {faq[0]} {FOLLOW_UPS['hotel']}"
    assert consensus_response(bank, query, query, "Gamma House", keys, k=1, exact_weight=10.0, faqs=[faq]) == plain
    assert PipelineConfig().param("faq_cover", "cover") == 0.5
    assert (
        PipelineConfig.from_json({}).param("faq_cover", "cover") is None
    )  # models trained before it answer with the body alone
    # a choice about two places: the added answer says whose
    both = "The wifi at Meghna is fast, while that at Gamma Grill is slow."
    pool, free = Pool([both], [1.0], 1), [("Free parking is available.", "MEGHNA")]
    two, one = [("restaurant", 1, 0, 2), ("restaurant", 4, 0, 1)], [("restaurant", 1, 0, 2)]
    assert consensus_choice(pool, two, "", free, 0.5) == f"{both} Meghna: Free parking is available."
    assert consensus_choice(pool, one, "", free, 0.5) == f"{both} Free parking is available."


def test_a_selection_about_several_entities_asks_which_one_to_know_more_about():
    one = [("hotel", 2, 1), ("hotel", 2, 0, 3)]  # an FAQ and a review of one hotel
    two = [("restaurant", 1, 0, 2), ("restaurant", 4, 0, 1)]
    three = [*two, ("restaurant", 7, 2)]
    assert follow_up_for(one, by_entities=True, closings=CLOSINGS) == FOLLOW_UPS["hotel"]
    assert follow_up_for(two, by_entities=True, closings=CLOSINGS) == FOLLOW_UP_TWO
    assert follow_up_for(three, by_entities=True, closings=CLOSINGS) == FOLLOW_UP_MANY
    assert follow_up_for(two, closings=CLOSINGS) == FOLLOW_UPS["restaurant"]  # off: the domain's question
    assert follow_up_for([], by_entities=True, closings=CLOSINGS) == FOLLOW_UP
    assert follow_up_for(two) == FOLLOW_UP_OTHER  # no closings learnt: the general question
    bank = _bank()
    query = bank.query_emb[0]
    text = consensus_response(bank, query, query, "Gamma House", two, k=1, follow_up=follow_up_for(two, True))
    assert text.endswith(" " + FOLLOW_UP_TWO)
    assert lm_consensus_response(["It is quiet."], [], [], two, 1.0, FOLLOW_UP_TWO) == f"It is quiet. {FOLLOW_UP_TWO}"
    assert PipelineConfig().uses("entity_follow_up") is True
    assert (
        PipelineConfig.from_json({}).uses("entity_follow_up") is False
    )  # models trained before it: the domain's question


def test_swap_entities_renames_several_names_at_once():
    text = "The Golden Curry is busier than Curry Garden, says a guest of the Golden Curry."
    # the new names cross the old ones: placeholders keep "Curry Garden" from being swapped back
    swapped = swap_entities(text, [("THE GOLDEN CURRY", "Curry Garden"), ("CURRY GARDEN", "The Golden Curry")])
    assert swapped == "Curry Garden is busier than the Golden Curry, says a guest of Curry Garden."
    assert swap_entities(text, []) == text
    assert swap_entities(text, [(None, "Alpha")]) == text  # an unknown old name changes nothing


def test_entity_renames_keep_shared_entities_and_pair_the_others_in_order():
    old = {("hotel", 1): "ALPHA HOTEL", ("hotel", 4): "DELTA LODGE", ("hotel", 5): "EPSILON INN"}
    new = {("hotel", 1): "ALPHA HOTEL", ("hotel", 7): "GAMMA HOUSE", ("hotel", 8): "THE ETA"}
    assert entity_renames([("hotel", 1), ("hotel", 4)], [("hotel", 7), ("hotel", 1)], old, new) == [
        ("DELTA LODGE", "Gamma House")
    ]
    assert entity_renames([("hotel", 4), ("hotel", 5)], [("hotel", 7), ("hotel", 8)], old, new) == [
        ("DELTA LODGE", "Gamma House"),
        ("EPSILON INN", "The Eta"),
    ]
    # more trained entities than free selected ones: the rest keep their names
    assert entity_renames([("hotel", 1), ("hotel", 4), ("hotel", 5)], [("hotel", 1), ("hotel", 7)], old, new) == [
        ("DELTA LODGE", "Gamma House")
    ]


def test_a_selection_about_several_entities_is_answered_by_a_comparison():
    responses = [
        "Alpha Hotel has quiet rooms.",
        "Alpha Hotel has quiet rooms, they say.",
        "The rooms at Delta Lodge are quiet, and the rooms at Alpha Hotel are noisy.",
    ]
    keys = [frozenset({("hotel", 1, 0, 0)})] * 2 + [frozenset({("hotel", 1, 0, 0), ("hotel", 4, 0, 0)})]
    bank = _one_hot_bank(responses, ["ALPHA HOTEL"] * 3, keys)
    bank.entity_names = {("hotel", 1): "ALPHA HOTEL", ("hotel", 4): "DELTA LODGE"}
    names = {("hotel", 7): "GAMMA HOUSE", ("hotel", 8): "BETA INN"}
    query = bank.query_emb.sum(axis=0) / np.sqrt(3)
    two = [("hotel", 7, 0, 0), ("hotel", 8, 0, 1)]
    pool = consensus_pool(bank, query, query, "Gamma House", two, k=3, entity_names=names)
    assert pool.choosable == 1  # only the comparison may answer; the one-entity answers vote
    # trained entities in key order (Alpha Hotel, Delta Lodge) paired with the selected ones in selection order
    assert pool.bodies[0] == "The rooms at Beta Inn are quiet, and the rooms at Gamma House are noisy."
    text = consensus_response(bank, query, query, "Gamma House", two, k=3, entity_names=names)
    assert text.startswith(pool.bodies[0])
    # off (models trained before it), or a bank without entity names: one name swapped, any answer choosable
    assert consensus_pool(bank, query, query, "Gamma House", two, k=3).choosable == 3
    bank.entity_names = {}
    assert consensus_pool(bank, query, query, "Gamma House", two, k=3, entity_names=names).choosable == 3
    # one selected entity: unchanged, the comparison only votes
    assert consensus_pool(bank, query, query, "Gamma House", two[:1], k=3, entity_names=names).choosable == 2
    assert PipelineConfig().uses("comparisons") is True
    assert PipelineConfig.from_json({}).uses("comparisons") is False


def test_a_body_naming_an_unselected_entity_only_votes_and_none_fitting_falls_back():
    responses = [
        "Alpha Hotel is the quietest. Delta Lodge had mixed reviews and Omega Inn had none.",
        "Alpha Hotel is the quietest, and Delta Lodge is noisier.",
        "Alpha Hotel is the quietest, and Delta Lodge is loud.",
    ]
    pair = frozenset({("hotel", 1, 0, 0), ("hotel", 4, 0, 0)})
    bank = _one_hot_bank(responses, ["ALPHA HOTEL"] * 3, [pair] * 3)
    bank.entity_names = {("hotel", 1): "ALPHA HOTEL", ("hotel", 4): "DELTA LODGE"}
    names = {("hotel", 7): "GAMMA HOUSE", ("hotel", 8): "BETA INN", ("hotel", 9): "OMEGA INN"}
    tracker = EntityTracker.from_names(names)
    query = bank.query_emb[0]  # nearest: the three-entity answer
    two = [("hotel", 7, 0, 0), ("hotel", 8, 0, 1)]
    off = consensus_pool(bank, query, query, "Gamma House", two, k=3, entity_names=names)
    assert off.choosable == 3
    pool = consensus_pool(bank, query, query, "Gamma House", two, k=3, entity_names=names, tracker=tracker)
    assert pool.choosable == 2 and all("Omega" not in b for b in pool.bodies[:2]) and "Omega" in pool.bodies[2]
    text = consensus_response(bank, query, query, "Gamma House", two, k=3, entity_names=names, tracker=tracker)
    assert "Omega" not in text and text.startswith("Gamma House is the quietest")
    # no body fits (every one names Omega Inn): the fallback answers; without one, the old last resort
    lone = _one_hot_bank(responses[:1], ["ALPHA HOTEL"], [pair])
    lone.entity_names = bank.entity_names
    args = (lone, query, query, "Gamma House", two)
    assert consensus_pool(*args, k=3, entity_names=names, tracker=tracker).choosable == 0
    snippet_answer = "Guests of Gamma House say that it is quiet."
    text = consensus_response(*args, k=3, entity_names=names, tracker=tracker, fallback=snippet_answer)
    assert text == snippet_answer + " " + FOLLOW_UPS["hotel"]
    assert "Omega" in consensus_response(*args, k=3, entity_names=names, tracker=tracker)


def test_an_answer_about_another_domain_gives_way_to_the_snippets_when_nothing_fits():
    responses = ["Guests say the rooms at Alpha Hotel are quiet.", "Alpha Hotel is quiet at night."]
    bank = _one_hot_bank(responses, ["ALPHA HOTEL"] * 2, [frozenset({("hotel", 1, 0, 0)})] * 2)
    query = bank.query_emb[0]
    restaurant = [("restaurant", 7, 0, 0)]
    tracker = EntityTracker.from_names({("restaurant", 7): "GAMMA GRILL"})
    assert consensus_pool(bank, query, query, "Gamma Grill", restaurant, k=2).choosable == 1  # the old last resort
    assert consensus_pool(bank, query, query, "Gamma Grill", restaurant, k=2, tracker=tracker).choosable == 0
    text = consensus_response(bank, query, query, "Gamma Grill", restaurant, k=2, tracker=tracker, fallback="Quiet.")
    assert text == "Quiet. " + FOLLOW_UPS["restaurant"]
    assert PipelineConfig().uses("faithful") is True
    assert PipelineConfig.from_json({}).uses("faithful") is False  # models trained before it


def _aspect_bank() -> NeighbourBank:
    """Three portion answers and one about authentic food, each about its own snippet set; unit-vector bodies."""
    responses = [
        "Alpha Grill has mixed views on its portion sizes.",
        "Views on the portions at Alpha Grill are mixed.",
        "The portion sizes at Alpha Grill are mixed, guests say.",
        "Guests say the food at Alpha Grill is authentic.",
    ]
    keys = [frozenset({("restaurant", 1, 0, i)}) for i in range(4)]
    bank = _one_hot_bank(responses, ["ALPHA GRILL"] * 4, keys)
    bank.body_emb = np.eye(4, 384, dtype=np.float32)[[0, 0, 0, 1]]  # the portion bodies alike, the food one apart
    return bank


def test_the_relevance_gate_keeps_the_bodies_about_the_turn_choosable():
    bank = _aspect_bank()
    turn = np.zeros(384, dtype=np.float32)
    turn[1] = 1.0  # "is the food authentic?": the food body's direction
    knowledge = bank.knowledge_emb.sum(axis=0) / 2.0
    novel = [("restaurant", 1, 0, 0), ("restaurant", 1, 0, 3)]  # no training turn answered exactly these
    off = consensus_pool(bank, turn, knowledge, "Gamma Grill", novel, k=4)
    assert off.choosable == 4 and "portion" in consensus_choice(off, novel)  # the MBR centre: the portions
    on = consensus_pool(bank, turn, knowledge, "Gamma Grill", novel, k=4, relevance=0.1)
    assert on.choosable == 1 and on.bodies[0] == "Guests say the food at Gamma Grill is authentic."
    assert sorted(on.bodies) == sorted(off.bodies) and sorted(on.weights) == sorted(off.weights)  # all still vote
    text = consensus_response(bank, turn, knowledge, "Gamma Grill", novel, k=4, relevance=0.1)
    assert text.startswith("Guests say the food at Gamma Grill is authentic.")
    assert consensus_pool(bank, turn, knowledge, "Gamma Grill", novel, k=4, relevance=1.5).choosable == 4  # wide
    # an exact-set answer exists: the pool is about the right knowledge by construction, the gate stays off
    exact = [("restaurant", 1, 0, 0)]
    assert consensus_pool(bank, turn, knowledge, "Gamma Grill", exact, k=4, relevance=0.1).choosable == 4
    bank.body_emb = None  # a model trained before the gate: nothing to compare
    assert consensus_pool(bank, turn, knowledge, "Gamma Grill", novel, k=4, relevance=0.1).choosable == 4


def test_with_an_exact_set_answer_the_other_bodies_must_be_as_close_to_the_turn_as_it():
    bank = _aspect_bank()
    turn = np.zeros(384, dtype=np.float32)
    turn[1] = 1.0  # "is the food authentic?"
    knowledge = bank.knowledge_emb.sum(axis=0) / 2.0
    food = [("restaurant", 1, 0, 3)]  # the food answer's own snippet set: an exact-set answer
    off = consensus_pool(bank, turn, knowledge, "Gamma Grill", food, k=4, exact_weight=1.0)
    assert off.choosable == 4 and "portion" in consensus_choice(off, food)  # the many portion answers win
    on = consensus_pool(bank, turn, knowledge, "Gamma Grill", food, k=4, exact_weight=1.0, exact_relevance=0.1)
    assert on.choosable == 1 and consensus_choice(on, food).startswith("Guests say the food at Gamma Grill")
    assert sorted(on.bodies) == sorted(off.bodies) and sorted(on.weights) == sorted(off.weights)  # all still vote
    # the exact-set answer is the yardstick, not the closest body: a portion set keeps every body choosable
    portion = [("restaurant", 1, 0, 0)]
    assert consensus_pool(bank, turn, knowledge, "Gamma Grill", portion, k=4, exact_relevance=0.1).choosable == 4
    bank.body_emb = None  # a model trained before the bodies were embedded
    assert consensus_pool(bank, turn, knowledge, "Gamma Grill", food, k=4, exact_relevance=0.1).choosable == 4


def test_the_exact_set_relevance_gate_is_on_by_default_and_off_for_older_models():
    assert PipelineConfig().param("relevance_exact", "margin") == 0.1
    assert PipelineConfig.from_json({}).param("relevance_exact", "margin") is None


def test_the_relevance_gate_is_on_by_default_and_off_for_older_models():
    assert PipelineConfig().param("relevance_gate", "margin") == 0.1
    assert PipelineConfig.from_json({}).param("relevance_gate", "margin") is None


def test_training_embeds_the_bank_bodies_without_names(tmp_path):
    from clarion.retrieve.dense import encode

    data = load_dataset(write_synthetic(tmp_path / "syn"))
    config = PipelineConfig.tiny()
    assert train(data, config)[0].bank.body_emb is None  # no MiniLM in the tiny setting
    config.dense = True
    model, _ = train(data, config)
    tracker = EntityTracker.from_names(data.knowledge.entity_names)
    texts = body_texts(model.bank.responses, tracker)
    assert texts[0] == "Guests say is quiet." and not any("alpha" in text.lower() for text in texts)
    assert np.allclose(model.bank.body_emb, encode(texts), atol=1e-5)
    save_model(model, tmp_path / "m", "fp")
    assert np.array_equal(load_model(tmp_path / "m").bank.body_emb, model.bank.body_emb)
    config.set_rule("relevance_gate", None)
    assert train(data, config)[0].bank.body_emb is None


def test_a_comparison_of_more_places_than_the_selection_only_votes():
    responses = [
        "Midsummer has no outdoor seating. Alpha Grill has a patio, and Delta Diner a terrace.",
        "Alpha Grill has a patio, and Delta Diner a terrace.",
    ]
    three = frozenset({("restaurant", 1, 0, 0), ("restaurant", 4, 0, 0), ("restaurant", 5, 0, 0)})
    two_trained = frozenset({("restaurant", 1, 0, 0), ("restaurant", 4, 0, 0)})
    bank = _one_hot_bank(responses, ["ALPHA GRILL"] * 2, [three, two_trained])
    bank.entity_names = {
        ("restaurant", 1): "ALPHA GRILL",
        ("restaurant", 4): "DELTA DINER",
        ("restaurant", 5): "MIDSUMMER HOUSE RESTAURANT",  # the body calls it "Midsummer": no alias catches that
    }
    names = {("restaurant", 7): "GAMMA GRILL", ("restaurant", 8): "BETA BISTRO"}
    tracker = EntityTracker.from_names({**names, **bank.entity_names})
    query = bank.query_emb[0]  # nearest: the three-place comparison
    two = [("restaurant", 7, 0, 0), ("restaurant", 8, 0, 1)]
    pool = consensus_pool(bank, query, query, "Gamma Grill", two, k=2, entity_names=names, tracker=tracker)
    assert pool.choosable == 1 and "Midsummer" not in pool.bodies[0] and "Midsummer" in pool.bodies[1]
    # three places selected: the three-place comparison may answer
    three_selected = [*two, ("restaurant", 9, 0, 0)]
    names[("restaurant", 9)] = "OMEGA CAFE"
    pool = consensus_pool(bank, query, query, "Gamma Grill", three_selected, k=2, entity_names=names)
    assert pool.choosable == 2


def test_a_comparison_keeps_a_shared_place_s_name_spelt_right():
    two = frozenset({("restaurant", 1, 0, 0), ("restaurant", 4, 0, 0)})
    bank = _one_hot_bank(["Both Alpha Gril and Delta Diner have a patio."], ["ALPHA GRILL"], [two])
    bank.entity_names = {("restaurant", 1): "ALPHA GRILL", ("restaurant", 4): "DELTA DINER"}
    names = {("restaurant", 1): "ALPHA GRILL", ("restaurant", 7): "GAMMA GRILL"}
    selected = [("restaurant", 1, 0, 0), ("restaurant", 7, 0, 1)]
    query = bank.query_emb[0]
    pool = consensus_pool(bank, query, query, "Alpha Grill", selected, k=1, entity_names=names)
    assert pool.bodies == ["Both Alpha Grill and Gamma Grill have a patio."]


def _faq(title: str, body: str, entity_id: int = 1) -> Snippet:
    return Snippet("restaurant", entity_id, 0, None, "faq", title, body, "Gamma Grill")


def test_an_answer_that_says_no_reservations_offers_none():
    assert refuses_reservations("Gamma Grill does not take reservations.")
    assert refuses_reservations("It is lovely. You can't make reseravtions at Gamma Grill.")
    assert not refuses_reservations("Yes, Gamma Grill takes reservations.")
    assert not refuses_reservations("Reservations are not needed at Gamma Grill.")
    assert not refuses_reservations("No reservation is needed for parking.")
    assert not refuses_reservations("Not all seats have a view. Shall I make a reservation?")
    body = "Gamma Grill does not take reservations."
    assert closed(body, FOLLOW_UPS["restaurant"], CLOSINGS) == f"{body} {FOLLOW_UP_OTHER}"
    assert closed(body, FOLLOW_UP_TWO, CLOSINGS) == f"{body} {FOLLOW_UP_TWO}"
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


def test_an_faq_answer_without_a_full_stop_gets_one():
    faq = _faq("Are pets allowed?", "Pets are not allowed at Gamma Grill")
    names = {("restaurant", 1): "GAMMA GRILL"}
    assert snippets_response([faq], names) == "Pets are not allowed at Gamma Grill."
    body = "Gamma Grill is lovely."
    assert with_faq_answers(body, [(faq.body, "GAMMA GRILL")], 0.5) == f"{body} Pets are not allowed at Gamma Grill."
    assert snippets_response([_faq("Parking?", "Yes, there is parking!")], names) == "Yes, there is parking!"


def test_an_faq_answer_writes_its_place_s_upper_case_name_as_responses_do():
    names = {("restaurant", 1): "THE GAMMA GRILL"}
    for body, said in (
        ("There is no parking at THE GAMMA GRILL.", "There is no parking at the Gamma Grill."),
        ("THE GAMMA GRILL has no parking.", "The Gamma Grill has no parking."),
        ("There is no parking at the Gamma Grill.", "There is no parking at the Gamma Grill."),
    ):
        assert snippets_response([_faq("Parking?", body)], names) == said
    mixed = {("restaurant", 1): "Gamma Grill"}  # a name the knowledge writes in mixed case is kept as written
    assert snippets_response([_faq("Parking?", "No parking at GAMMA GRILL.")], mixed) == "No parking at GAMMA GRILL."


def test_an_faq_answer_misspelling_its_place_writes_the_name_as_the_knowledge_does():
    names = {("restaurant", 1): "ASHLEY HOTEL", ("restaurant", 2): "THE GANDHI"}
    faq = _faq("Gym?", "No, the Ashely Hotel does not have a fitness center.")
    assert snippets_response([faq], names) == "No, the Ashley Hotel does not have a fitness center."
    for body, said in (
        ("BYOB is not allowed at The Ghandi.", "BYOB is not allowed at the Gandhi."),
        ("Ganhdi has no high chairs.", "Gandhi has no high chairs."),  # the name without its "The"
    ):
        assert snippets_response([_faq("BYOB?", body, entity_id=2)], names) == said
    assert respelled("Kohimoor does not deliver.", "KOHINOOR") == "Kohinoor does not deliver."
    assert with_faq_answers("It is lovely.", [("Kohimoor does not deliver.", "KOHINOOR")], 0.5) == (
        "It is lovely. Kohinoor does not deliver."
    )
    for text, name in (
        ("Frankie and Benny's has high chairs.", "FRANKIE AND BENNYS"),  # a possessive
        ("Anatolian food is served at Anatolia.", "ANATOLIA"),  # a longer form of a one-word name
        ("The Days Inn Civic Center Area has parking.", "Days Inn Civic Cntr Area"),  # an abbreviation
        ("Rosa's Bed and Breakfast has wifi.", "ROSA'S BED AND BREAKFAST"),  # the name, another case
        ("Guests can park at Ashley Hotel.", "ASHLEY HOTEL"),
        ("the ashely hotel", "ASHLEY HOTEL"),  # not capitalised: no name
        ("Ashley Motel is near.", "LOVELL LODGE"),  # another place's name is not this one's misspelt
    ):
        assert respelled(text, name) == text
    ripley = "Ripley's Believe It or Not!"  # a name's punctuation is not doubled
    assert respelled("Ripley's Beleive It or Not! is open.", ripley) == "Ripley's Believe It or Not! is open."


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
    # a question about complaints: its "Yes" would say there are some
    unpolar = consensus_choice(pool, keys, "", turn="Any complaints?", unpolar=True)
    assert unpolar == "The service at Gamma Grill is great."


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


def test_dishes_are_specific_words_wordnet_reads_as_food_or_drink():
    specific = frozenset({"biryani", "mussels", "fondue", "cocktails", "lake", "delicious"})
    assert dishes("Are the mussels and the fondue good?", specific) == {"mussels", "fondue"}
    assert dishes("How are the cocktails?", specific) == {"cocktails"}  # drinks count
    assert dishes("Is the lake view nice?", specific) == set()  # not a food
    assert dishes("Is it delicious?", specific) == set()  # an adjective ("Golden Delicious" is its only noun)
    assert dishes("Is the chicken good?", specific) == set()  # a food, but in the knowledge of too many places
    unknown = frozenset({"gimbap", "lensfield"})  # words WordNet does not know: a dish, and a name's
    assert dishes("How is the gimbap?", unknown) == {"gimbap"}
    assert dishes("Are the rooms at lensfield big?", unknown, names=frozenset({"lensfield"})) == set()


def test_the_template_keeps_the_capital_of_a_place_name_opening_a_review():
    selected = Selected("Bloomsbury Restaurant", ("Bloomsbury Restaurant was a great choice.", "I loved it."))
    assert template_response(selected) == (
        "Guests of Bloomsbury Restaurant say that Bloomsbury Restaurant was a great choice, and they loved it."
    )
    assert template_response(Selected("The Nirala", ("The food was good.",))) == (
        "Guests of The Nirala say that the food was good."  # "The" is no part of the name to keep
    )


def test_closing_questions_are_learnt_per_domain_from_the_training_responses():
    hotel, restaurant = [("hotel", 1, 0, 0)], [("restaurant", 2, 0, 0)]
    responses = [
        *[f"Rooms are quiet. {q}" for q in ["Shall I book a room?"] * 3 + ["Would you like to book a room?"] * 2],
        "It is near. Do you want to book a room there?",
        *[f"It is cheap. {q}" for q in ["Want a table?", "Would you like a table?"]],
        "Both are quiet. Would you like to know more about either?",
        "No question here.",
    ]
    keys = [hotel] * 6 + [restaurant] * 2 + [hotel + restaurant, hotel]
    closings = Closings.learn(responses, keys)
    assert closings.by_domain == {"hotel": "Shall I book a room?"}  # the restaurants closed fewer than MIN_CLOSINGS
    # every one-place response votes for the default: "Would you like a table?" shares "would you like" with it
    assert MIN_CLOSINGS == 5 and closings.default == "Would you like to book a room?"
    assert closings.for_keys(restaurant) == closings.default and closings.for_keys(hotel) == "Shall I book a room?"
    assert Closings.from_json(closings.to_json()) == closings
    assert Closings.learn(["No question."], [hotel]) == Closings()  # nothing closed: the general question
    assert closings.offers() == {"Shall I book a room?", "Would you like to book a room?"}


def test_the_consensus_question_is_the_mbr_choice():
    questions = ["Shall I book?", "Would you like to book a room?", "Shall I book?", "Would you like a room?", "Hm?"]
    assert consensus_question(questions) == questions[mbr_choice(questions)]
    assert consensus_question(["Anything else?"]) == "Anything else?"

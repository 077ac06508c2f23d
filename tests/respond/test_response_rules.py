"""The response rules that earned their place (docs/rules.md): ``relevance_gate`` (a borrowed body far from the
turn only votes when no training turn answered exactly the selection), ``entity_follow_up`` (a selection about
several places closes with "... either of them?"), ``comparisons`` (such a selection is answered by a training
comparison, its places renamed) and ``faq_cover`` (a selected FAQ's answer the chosen body lacks is added)."""

from __future__ import annotations

import numpy as np

from clarion.data.dstc import load_dataset
from clarion.dstc.models.modeldir import load_model, save_model
from clarion.dstc.models.pipeline import PipelineConfig
from clarion.dstc.models.train import train
from clarion.ground.entities import EntityTracker
from clarion.ground.names import entity_renames, swap_entities
from clarion.respond.consensus import NeighbourBank, body_texts, consensus_choice, consensus_pool, lm_consensus_response
from clarion.respond.faq_answers import faq_answers, with_faq_answers
from clarion.respond.follow_up import FOLLOW_UP_MANY, FOLLOW_UP_OTHER, FOLLOW_UP_TWO, Closings, follow_up_for
from clarion.respond.pool import Pool
from clarion.types import Snippet
from dstc_synthetic import write_synthetic

CLOSINGS = Closings(
    {"hotel": "Would you like to book a room?", "restaurant": "Would you like to make a reservation?"},
    "Would you like to make a reservation?",
)


def _aspect_bank() -> NeighbourBank:
    """Three portion answers and one about authentic food, each about its own snippet set; unit-vector bodies."""
    responses = [
        "Alpha Grill has mixed views on its portion sizes.",
        "Views on the portions at Alpha Grill are mixed.",
        "The portion sizes at Alpha Grill are mixed, guests say.",
        "Guests say the food at Alpha Grill is authentic.",
    ]
    keys = [frozenset({("restaurant", 1, 0, i)}) for i in range(4)]
    emb = np.eye(4, 384, dtype=np.float32)
    bank = NeighbourBank(responses, ["ALPHA GRILL"] * 4, emb, emb, keys, closings=CLOSINGS)
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
    assert consensus_choice(on, novel).startswith("Guests say the food at Gamma Grill is authentic.")
    assert consensus_pool(bank, turn, knowledge, "Gamma Grill", novel, k=4, relevance=1.5).choosable == 4  # wide
    # an exact-set answer exists: the pool is about the right knowledge by construction, the gate stays off
    exact = [("restaurant", 1, 0, 0)]
    assert consensus_pool(bank, turn, knowledge, "Gamma Grill", exact, k=4, relevance=0.1).choosable == 4
    bank.body_emb = None  # a model trained without the gate: nothing to compare
    assert consensus_pool(bank, turn, knowledge, "Gamma Grill", novel, k=4, relevance=0.1).choosable == 4


def test_the_relevance_gate_is_on_by_default():
    assert PipelineConfig().param("relevance_gate", "margin") == 0.1


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


def test_a_selection_about_several_entities_asks_which_one_to_know_more_about():
    one = [("hotel", 2, 1), ("hotel", 2, 0, 3)]  # an FAQ and a review of one hotel
    two = [("restaurant", 1, 0, 2), ("restaurant", 4, 0, 1)]
    three = [*two, ("restaurant", 7, 2)]
    assert follow_up_for(one, by_entities=True, closings=CLOSINGS) == CLOSINGS.by_domain["hotel"]
    assert follow_up_for(two, by_entities=True, closings=CLOSINGS) == FOLLOW_UP_TWO
    assert follow_up_for(three, by_entities=True, closings=CLOSINGS) == FOLLOW_UP_MANY
    assert follow_up_for(two, closings=CLOSINGS) == CLOSINGS.by_domain["restaurant"]  # off: the domain's question
    assert follow_up_for([], by_entities=True, closings=CLOSINGS) == CLOSINGS.default
    assert follow_up_for(two) == FOLLOW_UP_OTHER  # no closings learnt: the general question
    bank = _aspect_bank()
    pool = consensus_pool(bank, bank.query_emb[0], bank.query_emb[0], "Gamma House", two, k=1)
    assert consensus_choice(pool, two, follow_up_for(two, True)).endswith(" " + FOLLOW_UP_TWO)
    assert lm_consensus_response(["It is quiet."], [], [], two, 1.0, FOLLOW_UP_TWO) == f"It is quiet. {FOLLOW_UP_TWO}"
    assert PipelineConfig().uses("entity_follow_up") is True


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
    emb = np.eye(3, 384, dtype=np.float32)
    bank = NeighbourBank(responses, ["ALPHA HOTEL"] * 3, emb, emb, keys, closings=CLOSINGS)
    bank.entity_names = {("hotel", 1): "ALPHA HOTEL", ("hotel", 4): "DELTA LODGE"}
    names = {("hotel", 7): "GAMMA HOUSE", ("hotel", 8): "BETA INN"}
    query = bank.query_emb.sum(axis=0) / np.sqrt(3)
    two = [("hotel", 7, 0, 0), ("hotel", 8, 0, 1)]
    pool = consensus_pool(bank, query, query, "Gamma House", two, k=3, entity_names=names)
    assert pool.choosable == 1  # only the comparison may answer; the one-entity answers vote
    # trained entities in key order (Alpha Hotel, Delta Lodge) paired with the selected ones in selection order
    assert pool.bodies[0] == "The rooms at Beta Inn are quiet, and the rooms at Gamma House are noisy."
    assert consensus_choice(pool, two).startswith(pool.bodies[0])
    # off (models trained before it), or a bank without entity names: one name swapped, any answer choosable
    assert consensus_pool(bank, query, query, "Gamma House", two, k=3).choosable == 3
    bank.entity_names = {}
    assert consensus_pool(bank, query, query, "Gamma House", two, k=3, entity_names=names).choosable == 3
    # one selected entity: unchanged, the comparison only votes
    assert consensus_pool(bank, query, query, "Gamma House", two[:1], k=3, entity_names=names).choosable == 2
    assert PipelineConfig().uses("comparisons") is True


def test_bank_entity_names_survive_save_and_load(tmp_path):
    data = load_dataset(write_synthetic(tmp_path / "syn"))
    model, _ = train(data, PipelineConfig.tiny())
    save_model(model, tmp_path / "m", "fp")
    again = load_model(tmp_path / "m")
    assert again.bank.entity_names == model.bank.entity_names
    entities = {key[:2] for keys in model.bank.keys for key in keys}
    assert set(model.bank.entity_names) == entities and all(model.bank.entity_names.values())
    assert again.predict(data) == model.predict(data)


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
    # word forms are one stem: "alcoholic" holds "alcohol"
    grafton = "Yes, Grafton Hotel Restaurant serves alcoholic beverages such as wine and beer."
    alcohol = ("Grafton Hotel Restaurant does serve alcohol.", "GRAFTON HOTEL RESTAURANT")
    assert with_faq_answers(grafton, [alcohol], 0.5) == grafton
    # an answer about several places: an added answer that does not name its place says whose
    both = "The wifi at Meghna is fast, while that at Gamma Grill is slow."
    free = ("Free parking is available.", "MEGHNA")
    assert with_faq_answers(both, [free], 0.5, several=True) == f"{both} Meghna: Free parking is available."
    assert with_faq_answers(both, [free], 0.5) == f"{both} Free parking is available."
    faq = Snippet("restaurant", 1, 3, None, "faq", "Outdoor seating?", seating[0], "MEGHNA")
    review = Snippet("restaurant", 1, 0, 2, "review", "", "The view was nice.", "MEGHNA")
    assert faq_answers([review, faq]) == [seating]


def test_consensus_adds_the_missed_faq_answer_before_the_follow_up():
    both = "The wifi at Meghna is fast, while that at Gamma Grill is slow."
    pool, free = Pool([both], [1.0], 1), [("Free parking is available.", "MEGHNA")]
    two, one = [("restaurant", 1, 0, 2), ("restaurant", 4, 0, 1)], [("restaurant", 1, 0, 2)]
    assert consensus_choice(pool, two, "", None, CLOSINGS, free, 0.5) == f"{both} Meghna: Free parking is available."
    assert consensus_choice(pool, one, "", None, CLOSINGS, free, 0.5) == f"{both} Free parking is available."
    closing = CLOSINGS.by_domain["restaurant"]
    assert (
        consensus_choice(pool, one, None, None, CLOSINGS, free, 0.5) == f"{both} Free parking is available. {closing}"
    )
    assert consensus_choice(pool, one, None, None, CLOSINGS, free) == f"{both} {closing}"  # off: the body alone
    assert PipelineConfig().param("faq_cover", "cover") == 0.5


def test_known_sets_leaves_no_selection_opening_with_a_training_answer_set_and_more(tmp_path):
    data = load_dataset(write_synthetic(tmp_path / "syn"))
    model, _ = train(data, PipelineConfig.tiny())
    assert model.config.uses("known_sets")
    known = model.bank.answer_sets()
    on = model.predict(data)
    for label in on:  # a label's snippets come best first; an FAQ's key has no sentence id, and is never cut
        chosen = list(label.knowledge)
        cuttable = [n for n in range(1, len(chosen)) if all(len(key) == 4 for key in chosen[n:])]
        assert frozenset(chosen) in known or not any(frozenset(chosen[:n]) in known for n in cuttable)
    model.config.set_rule("known_sets", None)
    off = model.predict(data)
    for a, b in zip(on, off, strict=True):  # the rule only ever cuts a selection to a known set it opens with
        if a != b:
            assert b.knowledge[: len(a.knowledge)] == a.knowledge and frozenset(a.knowledge) in known

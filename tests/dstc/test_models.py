"""The DSTC pipeline: entity tracking, the template generator, and the prediction contract (tiny settings)."""

from __future__ import annotations

import numpy as np
import pytest

from clarion.data.dstc import Label, Snippet, load_dataset, parse_labels, predictions_to_json
from clarion.data.dstc_schema import Format
from clarion.dialogue.aliases import aliases, distinctive_words, short_forms
from clarion.dialogue.entities import EntityTracker
from clarion.dstc.models.modeldir import load_model, save_model
from clarion.dstc.models.pipeline import PipelineConfig
from clarion.dstc.models.train import train
from clarion.errors import InputError, ModelError
from clarion.rerank.snippets import Selector
from clarion.respond.consensus import NeighbourBank, neighbour_response
from clarion.respond.follow_up import Closings
from clarion.respond.names import display_name, swap_entity
from clarion.respond.pool import mbr_choice
from clarion.respond.template import Selected, snippets_response, template_response, third_person
from clarion.retrieve.profile import KnowledgeProfile

NAMES = {
    ("hotel", 1): "ASHLEY HOTEL",
    ("hotel", 2): "LOVELL LODGE",
    ("hotel", 3): "THE CAMBRIDGE BELFRY",
    ("restaurant", 4): "NANDOS",
    ("restaurant", 5): "NANDOS CITY CENTRE",
    ("restaurant", 6): "CAMBRIDGE LODGE RESTAURANT",
    ("taxi", "*"): None,
}


PROFILE = KnowledgeProfile(
    cities=frozenset({"cambridge", "san francisco"}),
    area_words=frozenset({"city", "centre", "union", "square"}),
    common_words=frozenset({"good", "great", "the", "and"}),
)
"""What :class:`KnowledgeProfile.from_knowledge` reads off a knowledge base of these names (its cities, area words
and everyday words), written out for the tests that build trackers from names alone."""


@pytest.fixture(scope="module")
def tracker() -> EntityTracker:
    return EntityTracker.from_names(NAMES, PROFILE)


# --- entity tracking -------------------------------------------------------------------------------------


def test_aliases_drop_article_and_generic_suffix_but_not_place_words():
    assert {"the cambridge belfry", "cambridge belfry"} <= aliases("THE CAMBRIDGE BELFRY", profile=PROFILE)
    assert "ashley" in aliases("ASHLEY HOTEL", profile=PROFILE)
    assert "cambridge" not in aliases("CAMBRIDGE LODGE RESTAURANT", profile=PROFILE)


def test_aliases_drop_a_branch_and_a_trailing_city_but_never_end_with_a_function_word():
    assert "souvla" in aliases("Souvla - Marina", profile=PROFILE) and "rooster and rice" in aliases(
        "Rooster & Rice - SoMa", profile=PROFILE
    )
    assert {"hotel nikko", "nikko"} <= aliases("Hotel Nikko San Francisco", profile=PROFILE) and "zizzi" in aliases(
        "ZIZZI CAMBRIDGE", profile=PROFILE
    )
    assert not any(a.split()[-1] == "of" for a in aliases("University Club of San Francisco", profile=PROFILE))
    assert "hotel du vin and" not in aliases("HOTEL DU VIN AND BISTRO", profile=PROFILE)
    assert aliases(" - Marina", profile=PROFILE) == {"marina"} and aliases("Hotel", profile=PROFILE) == {
        "hotel"
    }  # odd names: no empty alias
    tracker = EntityTracker.from_names(
        {("hotel", 7): "Hotel Nikko San Francisco", ("attraction", 8): "Union Square"}, PROFILE
    )
    assert tracker.track(["The Hotel Nikko is near Union Square.", "Do they allow pets at the hotel nikko?"]) == [
        ("hotel", 7)
    ]


def test_strip_names_keeps_what_is_asked_without_whom_about(tracker):
    assert tracker.strip_names("Are pets allowed at the Ashley Hotel?") == "Are pets allowed at the ?"
    assert tracker.strip_names("Do Nandos City Centre and Lovell Lodge have parking?") == "Do and have parking?"
    assert tracker.strip_names("Is it quiet?") == "Is it quiet?"  # no name: unchanged
    assert tracker.strip_names("Nando's or the Ashley?") == "or the ?"  # cut from the text as written
    assert tracker.strip_names("the ashley&lovell lodge") == "the &"
    assert EntityTracker.from_names({}, PROFILE).strip_names("Book it, please!") == "Book it, please!"


def test_most_recent_mention_wins(tracker):
    turns = ["Tell me about the Ashley Hotel.", "Sure. Lovell Lodge is nearby too.", "Is it quiet?"]
    assert tracker.track(turns) == [("hotel", 2)]


def test_last_turn_mention_beats_earlier_ones(tracker):
    turns = ["Lovell Lodge please.", "Booked.", "Actually, is the Ashley quiet?"]
    assert tracker.track(turns) == [("hotel", 1)]


def test_several_entities_in_one_turn_are_all_returned_in_order(tracker):
    turns = ["Any hotels?", "Ashley Hotel and Lovell Lodge match.", "Which one is quieter?"]
    assert tracker.track(turns) == [("hotel", 1), ("hotel", 2)]


def test_guest_house_is_also_written_as_one_word():
    assert {"acorn guest house", "acorn guesthouse", "acorn"} <= aliases("ACORN GUEST HOUSE", profile=PROFILE)
    assert {"arbury lodge guesthouse", "arbury lodge guest house"} <= aliases(
        "ARBURY LODGE GUESTHOUSE", profile=PROFILE
    )
    # so a borrowed answer that wrote one word loses the whole name, not just "Acorn"
    assert (
        swap_entity("The Acorn Guesthouse is quiet.", "ACORN GUEST HOUSE", "Lovell Lodge") == "Lovell Lodge is quiet."
    )


def test_centre_is_also_written_center():
    assert {"pizza hut city centre", "pizza hut city center"} <= aliases("PIZZA HUT CITY CENTRE", profile=PROFILE)
    assert {"civic center", "civic centre"} <= aliases("Civic Center Inn", profile=PROFILE)
    tracker = EntityTracker.from_names({("restaurant", 1): "PIZZA HUT CITY CENTRE"}, PROFILE)
    assert tracker.strip_names("Is Pizza Hut City Center deliver pizza?").split() == ["Is", "deliver", "pizza?"]


def test_names_outside_a_selection(tracker):
    text = "Ashley Hotel is quiet, Lovell Lodge is not, and Nandos is loud."
    assert tracker.outside(text, [("hotel", 1), ("hotel", 2)]) == [("restaurant", 4)]
    assert tracker.outside(text, [("hotel", 1), ("hotel", 2), ("restaurant", 4)]) == []
    assert tracker.outside("No names here.", []) == []
    assert tracker.mentions(text) == [("hotel", 1), ("hotel", 2), ("restaurant", 4)]
    # a name two entities go by is not outside a selection holding either of them
    shared = EntityTracker.from_names({("restaurant", 7): "PIZZA HUT", ("restaurant", 8): "PIZZA HUT"}, PROFILE)
    assert shared.outside("Pizza Hut is busy.", [("restaurant", 8)]) == []
    assert shared.outside("Pizza Hut is busy.", [("restaurant", 9)]) == [("restaurant", 7), ("restaurant", 8)]


def test_short_forms_no_alias_catches_are_outside_a_selection_too():
    names = {
        ("restaurant", 1): "PIZZA HUT CITY CENTRE",
        ("restaurant", 2): "PIZZA HUT FEN DITTON",
        ("restaurant", 3): "MIDSUMMER HOUSE RESTAURANT",
        ("restaurant", 4): "COCUM",
        ("hotel", 5): "WORTH HOUSE",
    }
    assert short_forms(names, PROFILE) == {
        "Pizza Hut": {("restaurant", 1), ("restaurant", 2)},
        "Midsummer": {("restaurant", 3)},
        "Worth": {("hotel", 5)},
    }
    tracker = EntityTracker.from_names(names, PROFILE)
    cocum = [("restaurant", 4)]
    assert tracker.outside("The Pizza Hut has slow service.", cocum) == [("restaurant", 1), ("restaurant", 2)]
    assert tracker.outside("The Pizza Hut has slow service.", [("restaurant", 2)]) == []  # either branch
    assert tracker.outside("Midsummer has no outdoor seating.", cocum) == [("restaurant", 3)]
    assert tracker.outside("It is worth the price.", cocum) == []  # written in lower case: a word, not Worth House
    assert tracker.mentions("Midsummer has no outdoor seating.") == []  # tracking a dialogue does not use them


def test_a_name_written_without_and_bar_is_renamed_and_seen_outside():
    """DE LUCA CUCINA AND BAR is written "De Luca Cucina": a borrowed body is renamed, or seen naming another place;
    tracking a dialogue keeps the aliases it had (the selector is fitted on turns with names cut)."""
    from clarion.respond.names import swap_entity

    names = {("restaurant", 1): "DE LUCA CUCINA AND BAR", ("restaurant", 2): "KYMMOY"}
    body = "De Luca Cucina gets some mixed reviews on their food portions."
    assert (
        swap_entity(body, names[("restaurant", 1)], "Kymmoy")
        == "Kymmoy gets some mixed reviews on their food portions."
    )
    assert "de luca cucina" in aliases(names[("restaurant", 1)], written=True, profile=PROFILE)
    assert "de luca cucina" not in aliases(names[("restaurant", 1)], profile=PROFILE)
    tracker = EntityTracker.from_names(names, PROFILE)
    assert tracker.outside(body, [("restaurant", 2)]) == [("restaurant", 1)]
    assert tracker.mentions(body) == []


def test_a_chain_named_without_its_branch_is_asked_about():
    from types import SimpleNamespace

    from clarion.dstc.models.pipeline import MAX_BRANCHES, DstcModel

    names = {
        ("restaurant", 1): "PIZZA HUT CITY CENTRE",
        ("restaurant", 2): "PIZZA HUT FEN DITTON",
        ("restaurant", 3): "MIDSUMMER HOUSE RESTAURANT",
        ("hotel", 4): "ACORN GUEST HOUSE",
    }
    tracker = EntityTracker.from_names(names, PROFILE)
    assert tracker.track(["What do people think of pizza hut?"]) == []  # no branch named: nothing tracked
    pizza = [("restaurant", 1), ("restaurant", 2)]
    assert tracker.chain_named(["I want pizza.", "What do people think of pizza hut?"]) == pizza  # any case
    assert tracker.chain_named(["Is Midsummer nice?"]) == []  # a distinctive first word is no chain
    assert tracker.chain_named(["Is it nice?"]) == []
    index = SimpleNamespace(knowledge=SimpleNamespace(entity_names=names))
    asked = DstcModel._which_entity(index, pizza)
    assert asked.target and asked.knowledge == ()
    assert asked.response == "Which Pizza Hut do you mean: Pizza Hut City Centre or Pizza Hut Fen Ditton?"
    assert DstcModel._which_entity(index).response == "Which hotel or restaurant are you asking about?"
    many = [("restaurant", i) for i in range(MAX_BRANCHES + 1)]
    assert DstcModel._which_entity(index, many).response == "Which hotel or restaurant are you asking about?"


def test_a_name_in_an_address_is_no_mention():
    tracker = EntityTracker.from_names({("hotel", 1): "BRIDGE GUEST HOUSE", ("restaurant", 2): "ASK"}, PROFILE)
    turns = ["The place is called Ask.", "Their address is 12 Bridge Street City Centre.", "Any vegan food?"]
    assert tracker.track(turns) == [("restaurant", 2)]
    assert tracker.mentions("Bridge Guest House on Bridge Street") == [("hotel", 1)]
    assert tracker.strip_names("Is Bridge Guest House on Bridge Street?") == "Is on Bridge Street?"
    # nor a near match: with no name in the context, the address is not taken for one
    assert tracker.track(["A restaurant, please.", "It is at 12 Bridge Street.", "Any vegan food?"]) == []
    assert tracker.track(["A room, please.", "Try the Bridge Guest Huose.", "Is it quiet?"]) == [("hotel", 1)]


def test_an_ordinal_picks_one_of_the_entities_a_turn_listed(tracker):
    listed = ["Any hotels?", "Ashley Hotel and Lovell Lodge match."]
    assert tracker.track([*listed, "Does the first one have a gym?"]) == [("hotel", 1)]
    assert tracker.track([*listed, "Is the latter quiet?"]) == [("hotel", 2)]
    assert tracker.track([*listed, "And the last one?"]) == [("hotel", 2)]
    assert tracker.track([*listed, "Which one is quieter?"]) == [("hotel", 1), ("hotel", 2)]  # no ordinal: both
    assert tracker.track([*listed, "Is the third one cheap?"]) == [("hotel", 1), ("hotel", 2)]  # no third: both
    assert tracker.track([*listed, "Book the first night."]) == [("hotel", 1), ("hotel", 2)]  # not a reference
    # a name in the last turn wins over any ordinal
    assert tracker.track([*listed, "Is the first one nicer than Lovell Lodge?"]) == [("hotel", 2)]


def test_an_ordinal_after_a_turn_about_one_place_points_into_the_list_before_it(tracker):
    listed = ["Any hotels?", "Ashley Hotel and Lovell Lodge match.", "Does the first one have a gym?"]
    about_one = [*listed, "No, the Ashley Hotel has no gym."]
    assert tracker.track([*about_one, "What about the second one?"]) == [("hotel", 2)]
    assert tracker.pointed_at([*about_one, "What about the second one?"]) == ("hotel", 2)
    assert tracker.track([*about_one, "And the third one?"]) == [("hotel", 1)]  # no third: the latest named
    assert tracker.pointed_at([*about_one, "Is it quiet?"]) is None


def test_the_other_one_is_the_one_of_two_listed_places_the_latest_turn_does_not_name(tracker):
    listed = ["Any hotels?", "Ashley Hotel and Lovell Lodge match."]
    for about, other in (("Ashley Hotel", ("hotel", 2)), ("Lovell Lodge", ("hotel", 1))):
        turns = [*listed, f"Is {about} quiet?", "Yes, it is.", "And the other one?"]
        assert tracker.track(turns) == [other] and tracker.pointed_at(turns) == other
    # "the other guests" points at nothing; with no list of two, "the other one" stays with the place named
    assert tracker.track([*listed, "Is Ashley Hotel quiet?", "Were the other guests noisy?"]) == [("hotel", 1)]
    assert tracker.track(["Is Ashley Hotel quiet?", "Yes.", "And the other one?"]) == [("hotel", 1)]


def test_longest_alias_wins(tracker):
    assert tracker.track(["Is Nandos City Centre busy?"]) == [("restaurant", 5)]
    assert tracker.track(["Is Nandos busy?"]) == [("restaurant", 4)]


def test_a_place_called_by_one_distinctive_word_of_its_name_when_nothing_else_names_one():
    names = {**NAMES, ("hotel", 7): "HUNTINGDON MARRIOTT HOTEL", ("restaurant", 8): "PIZZA HUT CHERRY HINTON"}
    tracker = EntityTracker.from_names(names, PROFILE)
    assert distinctive_words(names, PROFILE)["marriott"] == ("hotel", 7) and distinctive_words(names, PROFILE)[
        "belfry"
    ] == ("hotel", 3)
    assert "hotel" not in distinctive_words(names, PROFILE) and "cambridge" not in distinctive_words(names, PROFILE)
    assert tracker.mentions("Is the Marriott good for business travellers?") == []  # no alias says it
    assert tracker.track(["Is the Marriott good for business travellers?"]) == [("hotel", 7)]
    assert tracker.track(["Does the Belfry have a pool?"]) == [("hotel", 3)]
    assert tracker.track(["Is the Marriott Hotel quiet?"]) == [("hotel", 7)]  # a generic word after it
    # "the" before it, a user's turn, and no other capitalised word after it; any alias found first wins
    assert tracker.track(["Is Marriott good?"]) == []
    assert tracker.track(["We liked the Cherry Hinton Water Play."]) == []  # "Cherry" begins another name
    assert tracker.track(["Hi.", "I stayed at the Marriott.", "Is it quiet?"]) == []  # a system turn
    assert tracker.track(["I liked the Marriott.", "Great.", "Is it quiet?"]) == [("hotel", 7)]
    assert tracker.track(["Is the Marriott nicer than the Ashley Hotel?"]) == [("hotel", 1)]


def test_an_attraction_named_as_where_a_place_is_is_no_mention():
    tracker = EntityTracker.from_names(
        {("hotel", 1): "Hotel Nikko San Francisco", ("attraction", 2): "Union Square"}, PROFILE
    )
    turns = ["Try the Hotel Nikko San Francisco.", "What area is that in?", "It's in Union Square.", "Pets?"]
    assert tracker.track(turns) == [("hotel", 1)]
    assert tracker.mentions("Their address is 345 Taylor Street Union Square.") == []
    assert tracker.mentions("Is there parking at Union Square?") == [("attraction", 2)]  # not after "in"
    assert tracker.mentions("Rooms in the Hotel Nikko?") == [("hotel", 1)]  # hotels and restaurants are named


def test_numbers_alone_are_no_alias():
    assert aliases("RESTAURANT TWO TWO", profile=PROFILE) == {"restaurant two two", "restauranttwotwo"}
    assert "pier 39" in aliases("Pier 39", profile=PROFILE) and "39" not in aliases("Pier 39", profile=PROFILE)
    tracker = EntityTracker.from_names(
        {("restaurant", 1): "RESTAURANT TWO TWO", ("restaurant", 2): "Underdogs Too"}, PROFILE
    )
    assert tracker.track(["It's called Underdogs Too.", "Its zip code is nine four one two two.", "Parking?"]) == [
        ("restaurant", 2)
    ]
    assert tracker.track(["I have two two star hotels.", "Wifi?"]) == []
    assert tracker.track(["Does Restaurant Two Two have wine?"]) == [("restaurant", 1)]


def test_the_area_a_dialogue_names_picks_a_chains_branch():
    tracker = EntityTracker.from_names(
        {
            ("restaurant", 1): "Tadu Ethiopian Kitchen - Mission Bay",
            ("restaurant", 2): "Tadu Ethiopian Kitchen - Tenderloin",
            ("restaurant", 3): "DragonEats - The Haight",
            ("restaurant", 4): "DragonEats - SoMa",
            ("restaurant", 5): "Souvla",
        },
        PROFILE,
    )
    tadu = ["Anything in the Tenderloin?", "There is Tadu Ethiopian Kitchen.", "Vegan options?"]
    assert tracker.track(tadu) == [("restaurant", 2)]
    assert tracker.track(["Food in Haight?", "Try DragonEats.", "Delivery?"]) == [("restaurant", 3)]  # "the" optional
    # no area named, or a name that is no chain: every branch it fits stays
    assert tracker.track(["Try DragonEats.", "Delivery?"]) == [("restaurant", 3), ("restaurant", 4)]
    both = ["Souvla or Tadu Ethiopian Kitchen in the Tenderloin?", "Parking?"]
    assert tracker.track(both) == [("restaurant", 5), ("restaurant", 2)]
    typo = ["Tadu Ethiopian Kitchen in the Tenderlion?", "Parking?"]  # an area misspelt: both branches
    assert tracker.track(typo) == [("restaurant", 1), ("restaurant", 2)]


def test_fuzzy_match_for_typos(tracker):
    assert tracker.track(["Info on the cambrdige belfry please.", "It is in the west.", "Nice view?"]) == [("hotel", 3)]


TYPO_NAMES = {
    ("hotel", 1): "ACORN GUEST HOUSE",
    ("hotel", 2): "ARBURY LODGE GUESTHOUSE",
    ("hotel", 3): "HAMILTON LODGE",
    ("hotel", 4): "ROSA'S BED AND BREAKFAST",
    ("hotel", 5): "FINCHES BED AND BREAKFAST",
    ("hotel", 6): "HUNTINGDON MARRIOTT HOTEL",
    ("restaurant", 7): "J RESTAURANT",
    ("restaurant", 8): "ASK RESTAURANT",
    ("restaurant", 9): "GRAFFITI",
}


@pytest.mark.parametrize(
    ("turn", "expected"),
    [
        ("Is the Accorn guesthouse quiet?", [("hotel", 1)]),
        ("Is the wifi good at the Huntington Marriott?", [("hotel", 6)]),
        ("Does Flinches Bed and Breakfast have parking?", [("hotel", 5)]),
        ("Is the staff at Hamiltn Lodge nice?", [("hotel", 3)]),
        # what several names share, or another word near a name, is no typo of one
        ("Does the restaurant have outdoor seating?", []),
        ("Are the restaurants here any good?", []),
        ("Is a guesthouse in the north clean?", []),
        ("I want a bed and breakfast. Is breakfast free?", []),
        ("Is the wifi good at the Hilton?", []),
        ("Is it near Milton?", []),
    ],
)
def test_fuzzy_matches_are_typos_of_a_names_own_words(turn, expected):
    assert EntityTracker.from_names(TYPO_NAMES, PROFILE).track([turn]) == expected


COMMON_WORD_NAMES = {
    ("hotel", 1): "ASHLEY HOTEL",
    ("restaurant", 2): "GRAFFITI",
    ("restaurant", 3): "TRAVELLERS REST",
    ("restaurant", 4): "LA MARGHERITA",
}


@pytest.mark.parametrize(
    ("turn", "expected"),
    [
        # a restaurant's name in lower case, in a turn calling its place "the hotel": a common word, not the name
        ("Is there any graffiti on the walls of the hotel?", [("hotel", 1)]),
        ("Does the hotel have a travellers rest area or lounge?", [("hotel", 1)]),
        # written as a name, with its own kind's word, or the hotel only as where the restaurant is: the name
        ("Is Graffiti near the hotel?", [("restaurant", 2)]),
        ("Is graffiti restaurant any good? I will walk from the hotel.", [("restaurant", 2)]),
        ("I have two near the hotel, the la margherita is very cheap.", [("restaurant", 4)]),
        ("Is graffiti good?", [("restaurant", 2)]),
    ],
)
def test_a_lower_case_name_of_another_kind_of_place_is_a_common_word(turn, expected):
    tracker = EntityTracker.from_names(COMMON_WORD_NAMES, PROFILE)
    assert tracker.track(["I need a hotel.", "The Ashley Hotel is available.", turn]) == expected


SHORT_NAMES = {
    ("restaurant", 1): "ASK RESTAURANT",
    ("restaurant", 2): "THE OAK BISTRO",
    ("restaurant", 3): "PIZZA HUT CITY CENTRE",
    ("restaurant", 4): "ZIZZI CAMBRIDGE",
    ("hotel", 5): "INN AT THE PARK",
    ("hotel", 6): "THE GREAT INN",
}


@pytest.mark.parametrize(
    ("turn", "expected"),
    [
        # a name's three-letter form, written as a name and not at a sentence's start, names it
        (
            "I have Pizza Hut City Centre, Ask, and Zizzi Cambridge.",
            [("restaurant", 3), ("restaurant", 1), ("restaurant", 4)],
        ),
        ("Is Ask in the south?", [("restaurant", 1)]),
        ("Can you book a table for 7 at ASK?", [("restaurant", 1)]),
        ("Is the Oak good for kids?", [("restaurant", 2)]),
        ("I found Ask restaurant.", [("restaurant", 1)]),  # the longer alias covers it
        # the verb, a sentence's first word, or a form other names share ("Inn") is no name
        ("Can I ask about parking?", []),
        ("Ask them about parking.", []),
        ("Thanks. Ask them about parking.", []),
        ("  Ask them about parking.", []),
        ("Is the Inn quiet?", []),
    ],
)
def test_a_three_letter_form_of_a_name_counts_written_as_a_name(turn, expected):
    assert EntityTracker.from_names(SHORT_NAMES, PROFILE).track([turn]) == expected


def test_place_words_alone_do_not_match_and_nothing_gives_empty(tracker):
    assert tracker.track(["I love Cambridge.", "Me too.", "Is it clean?"]) == []


def test_domain_wide_docs_by_keyword(tracker):
    assert tracker.track(["Ashley Hotel please.", "Done.", "Can I pay the taxi by card?"]) == [("taxi", "*")]
    # a name in the same turn comes first: the question may be about the place, not the ride
    assert tracker.track(["Can I take a cab to the Ashley Hotel?"]) == [("hotel", 1), ("taxi", "*")]
    # but parking a car is a question about the place
    assert tracker.track(["Ashley Hotel please.", "Done.", "Is there a place to park my car?"]) == [("hotel", 1)]
    assert tracker.track(["Can I park my car at the Ashley Hotel?"]) == [("hotel", 1)]


# --- generation -------------------------------------------------------------------------------------------


def test_third_person_and_display_name():
    assert third_person("I loved my room and we slept well.") == "they loved their room and they slept well."
    assert third_person("I was happy.") == "they were happy."
    assert third_person("My wife and I had the Ma Po Tofu.") == "they and their wife had the Ma Po Tofu."
    assert third_person("My best friends and I come here.") == "they and their best friends come here."
    assert third_person("Me and my wife loved it.") == "they and their wife loved it."
    assert third_person("We ate, and my wife and I left.") == "they ate, and they and their wife left."
    assert display_name("ROSA'S BED AND BREAKFAST") == "Rosa's Bed and Breakfast"
    assert display_name("Good Hotel") == "Good Hotel"
    assert display_name(None) == "this place"


def test_template_uses_faq_answer_then_reported_reviews():
    selected = Selected("Alpha", reviews=("I loved the quiet room.", "Our view was great!"), faqs=("Free parking.",))
    assert template_response(selected) == (
        "Free parking. Guests of Alpha say that they loved the quiet room, and their view was great."
    )
    assert template_response(Selected("Alpha")).startswith("I'm sorry")


def test_snippets_answer_each_entity_under_its_own_name():
    snippets = [
        Snippet("hotel", 1, 0, 0, "review", "", "I loved the quiet room.", "ASHLEY HOTEL"),
        Snippet("hotel", 2, 3, None, "faq", "Is breakfast free?", "Breakfast is free.", "LOVELL LODGE"),
        Snippet("hotel", 1, 1, 0, "review", "", "Our view was great!", "ASHLEY HOTEL"),
    ]
    assert snippets_response(snippets, NAMES) == (
        "Guests of Ashley Hotel say that they loved the quiet room, and their view was great. "
        "Lovell Lodge: Breakfast is free."  # two places: an answer that does not say whose is named
    )
    named = Snippet("hotel", 2, 4, None, "faq", "Is there a gym?", "The Lovell Lodge has no gym.", "LOVELL LODGE")
    assert snippets_response([snippets[0], named], NAMES).endswith(" The Lovell Lodge has no gym.")
    assert snippets_response(snippets[1:2], NAMES) == template_response(
        Selected("Lovell Lodge", faqs=("Breakfast is free.",))
    )


def test_swap_entity_and_neighbour_response():
    assert swap_entity("Yes, the Ashley Hotel is quiet.", "ASHLEY HOTEL", "Lovell Lodge") == (
        "Yes, Lovell Lodge is quiet."
    )
    bank = NeighbourBank(
        ["The Ashley is quiet.", "Lovell Lodge has a view."],
        ["ASHLEY HOTEL", "LOVELL LODGE"],
        np.eye(2, 384, dtype=np.float32),
        np.zeros((2, 384), dtype=np.float32),
    )
    query = np.eye(1, 384, 1, dtype=np.float32)[0]
    assert neighbour_response(bank, query, np.zeros(384, np.float32), "Beta House", k=1) == "Beta House has a view."


def test_mbr_choice_prefers_the_consensus_candidate():
    candidates = ["the rooms are quiet", "guests say the rooms are quiet and clean", "free parking", "rooms quiet"]
    assert mbr_choice(candidates) == 0
    assert mbr_choice(["only"]) == 0


def test_selector_threshold_keeps_at_least_the_best():
    sel = Selector()
    sel.threshold = 0.5
    assert sel.choose(np.array([0.1, 0.7, 0.6])) == [1, 2]
    assert sel.choose(np.array([0.1, 0.2])) == [1]
    assert sel.choose(np.array([0.1, 0.7, 0.6]), ranked=True) == [1, 2, 0]


# --- the prediction contract ------------------------------------------------------------------------------


def test_predictions_match_logs_and_validate(tiny_model, synthetic):
    preds = tiny_model.predict(synthetic)
    assert len(preds) == len(synthetic.contexts)
    raw = predictions_to_json(preds, synthetic.format)
    parse_labels(raw, synthetic.format, n_contexts=len(synthetic.contexts), knowledge=synthetic.knowledge)
    accuracy = np.mean([p.target == g.target for p, g in zip(preds, synthetic.labels, strict=True)])
    assert accuracy >= 0.9
    hits = [set(p.knowledge) & set(g.knowledge) for p, g in zip(preds, synthetic.labels, strict=True) if g.target]
    assert np.mean([bool(h) for h in hits]) >= 0.75


def test_a_turn_no_snippet_answers_gets_an_apology_without_knowledge(tiny_model, synthetic):
    assert (
        PipelineConfig().param("abstain", "below") == 0.1
        and PipelineConfig.from_json({}).param("abstain", "below") is None
    )
    config = tiny_model.config
    try:
        config.rules["abstain"] = {"below": 1.01}  # every snippet probability is below it: nothing fits
        preds = tiny_model.predict(synthetic)
        config.set_rule("abstain", None)  # off: the best snippets answer
        answered = tiny_model.predict(synthetic)
    finally:
        config.set_rule("abstain", {"below": PipelineConfig.tiny().param("abstain", "below")})
    seeking = [p for p in preds if p.target]
    assert seeking and all(not p.knowledge and p.response.startswith("I'm sorry") for p in seeking)
    assert [p.target for p in preds] == [p.target for p in answered]  # detection is untouched
    assert all(p.knowledge for p in answered if p.target)
    raw = predictions_to_json(preds, synthetic.format)  # still a valid prediction file
    parse_labels(raw, synthetic.format, n_contexts=len(synthetic.contexts), knowledge=synthetic.knowledge)


def test_predicts_dstc9_format_with_ranked_snippets(tiny_model, tiny, tmp_path):
    data = load_dataset(tiny.write_dir(tmp_path / "d9", "dstc9"), labels=False)
    preds = tiny_model.predict(data)
    raw = predictions_to_json(preds, Format.DSTC9)
    parse_labels(raw, Format.DSTC9, n_contexts=len(data.contexts), knowledge=data.knowledge)
    for pred in preds:
        if pred.target:
            assert 1 <= len(pred.knowledge) <= 5 and all(len(k) == 3 for k in pred.knowledge)
    # a DSTC9/10 turn is always answered with a ranking: no apology however low the scores
    before = tiny_model.config.param("abstain", "below")
    tiny_model.config.rules["abstain"] = {"below": 1.01}
    try:
        assert tiny_model.predict(data) == preds
    finally:
        tiny_model.config.set_rule("abstain", {"below": before})


def test_save_and_load_roundtrip(tiny_model, synthetic, tmp_path):
    save_model(tiny_model, tmp_path / "m", "fp", {"x": 1})
    again = load_model(tmp_path / "m")
    assert again.predict(synthetic) == tiny_model.predict(synthetic)


def test_load_refuses_incomplete_model(tmp_path):
    (tmp_path / "m").mkdir()
    with pytest.raises(ModelError, match="no meta.json"):
        load_model(tmp_path / "m")


def test_load_refuses_a_truncated_arrays_file(tiny_model, tmp_path):
    directory = save_model(tiny_model, tmp_path / "m", "fp")
    arrays = directory / "arrays.npz"
    arrays.write_bytes(arrays.read_bytes()[:1000])
    with pytest.raises(
        ModelError, match=r"incomplete or incompatible DSTC model \(.*\); retrain it \(clarion dstc train\)"
    ):
        load_model(directory)


def test_training_needs_labels_and_both_classes(synthetic):
    no_labels = synthetic.subset(range(len(synthetic.contexts)))
    no_labels.labels = None
    with pytest.raises(InputError, match="labels.json"):
        train(no_labels, PipelineConfig.tiny())
    with pytest.raises(InputError, match="both"):
        train(synthetic.subset([0, 2, 4]), PipelineConfig.tiny())


def test_a_selection_unlike_the_turn_is_unrelated():
    from types import SimpleNamespace

    from clarion.dstc.models.pipeline import DstcModel

    turn = np.array([1.0, 0.0])
    chosen = np.array([[0.1, 0.995], [0.15, 0.989]])  # cosines 0.1 and 0.15 to the turn
    model = SimpleNamespace(config=PipelineConfig().with_rules(abstain_unrelated={"cosine": 0.2}))
    assert DstcModel._unrelated(model, chosen, turn)
    model.config.set_rule("abstain_unrelated", {"cosine": 0.12})
    assert not DstcModel._unrelated(model, chosen, turn)  # one of them is close enough
    model.config.set_rule("abstain_unrelated", None)
    assert not DstcModel._unrelated(model, chosen, turn)  # off
    model.config = PipelineConfig(dense=False).with_rules(abstain_unrelated={"cosine": 0.2})
    assert not DstcModel._unrelated(model, chosen, turn)  # no embeddings to compare
    assert (
        PipelineConfig.from_json({}).param("abstain_unrelated", "cosine") is None
    )  # models trained before it keep answering


def test_an_faq_aspect_the_place_has_no_faq_for_is_unknown():
    from types import SimpleNamespace

    from clarion.detect.faq_rule import FaqRule
    from clarion.dstc.models.pipeline import DstcModel

    def unit(rows):
        rows = np.asarray(rows, dtype=float)
        return rows / np.linalg.norm(rows, axis=1, keepdims=True)

    # FAQ questions: "is there a gym?" (another place's), "is there outdoor seating?" (this place's)
    questions = unit([[1, 0, 0, 0], [0, 1, 0, 0]])
    rule = FaqRule.gated(["gym", "seating"], questions, unit([[0, 0, 0, 1]]), cosine=0.8, margin=0.1)
    seating = SimpleNamespace(doc_type="faq", title="seating")
    gym = SimpleNamespace(doc_type="faq", title="gym")
    turn = unit([[0.9, 0.1, 0.42, 0]])[0]  # "Is there a gym?": 0.90 to the gym question, 0.10 to the seating one
    chosen = unit([[0.1, 1, 0, 0]])  # the seating FAQ, cosine 0.19 to the turn
    model = SimpleNamespace(config=PipelineConfig().with_rules(unknown_aspect={"cosine": 0.3}))
    assert DstcModel._unknown_aspect(model, rule, turn, [seating], chosen)
    assert not DstcModel._unknown_aspect(model, rule, turn, [seating, gym], chosen)  # the place has a gym FAQ
    model.config.set_rule("unknown_aspect", {"cosine": 0.15})
    assert not DstcModel._unknown_aspect(model, rule, turn, [seating], chosen)  # the choice is close enough
    model.config.set_rule("unknown_aspect", {"cosine": 0.3})
    vague = unit([[0.5, 0.1, 0.86, 0]])[0]  # near no FAQ question: the usual cosine abstention decides
    assert not DstcModel._unknown_aspect(model, rule, vague, [seating], chosen)
    assert not DstcModel._unknown_aspect(model, FaqRule(questions, 0.7), turn, [seating], chosen)  # ungated rule
    assert not DstcModel._unknown_aspect(model, None, turn, [seating], chosen)
    model.config.set_rule("unknown_aspect", None)
    assert not DstcModel._unknown_aspect(model, rule, turn, [seating], chosen)  # off
    assert (
        PipelineConfig.from_json({}).param("unknown_aspect", "cosine") is None
    )  # models trained before it keep answering


def test_a_review_aspect_the_places_reviews_never_touch_is_absent():
    from types import SimpleNamespace

    from clarion.data.dstc import parse_knowledge
    from clarion.dstc.models.pipeline import DstcModel
    from clarion.retrieve.knowledge import KnowledgeIndex

    def unit(rows):
        rows = np.asarray(rows, dtype=float)
        return (rows / np.linalg.norm(rows, axis=1, keepdims=True)).astype(np.float32)

    def place(i, sentences):
        reviews = {"0": {"sentences": {str(j): text for j, text in enumerate(sentences)}}}
        return {"name": f"PLACE {i}", "faqs": {"0": {"question": "Parking?", "answer": "Yes."}}, "reviews": reviews}

    knowledge = parse_knowledge({"restaurant": {"0": place(0, ["food", "view"]), "1": place(1, ["noise"])}})
    index = KnowledgeIndex(knowledge, None, dense=False)
    # axes: noise, food, view, parking; "Is it noisy?" is [1, 0.15, 0.1, 0] (cosine 0.98 to place 1's noise review)
    index._emb = {("restaurant", 0): unit([[0.1, 1, 0, 0], [0.1, 0, 1, 0], [0, 0, 0, 1]])}
    index._emb[("restaurant", 1)] = unit([[1, 0, 0, 0], [0, 0, 0, 1]])
    snippets = index.snippets(("restaurant", 0))
    group = SimpleNamespace(snippets=index.embeddings(("restaurant", 0)))
    turn = unit([[1, 0.15, 0.1, 0]])[0]  # 0.25 and 0.19 to place 0's reviews
    model = SimpleNamespace(config=PipelineConfig().with_rules(review_floor={"cosine": 0.3}))
    assert DstcModel._absent_review_aspect(model, index, turn, snippets, group, [0, 1])
    assert not DstcModel._absent_review_aspect(model, index, turn, snippets, group, [0, 2])  # an FAQ chosen too
    model.config.set_rule("review_floor", {"cosine": 0.2})
    assert not DstcModel._absent_review_aspect(model, index, turn, snippets, group, [0])  # a review is close enough
    model.config.set_rule("review_floor", {"cosine": 0.3})
    vague = unit([[0.2, 0.15, 0.1, 1]])[0]  # the other place's reviews no closer: not an aspect reviews discuss
    assert not DstcModel._absent_review_aspect(model, index, vague, snippets, group, [0])
    assert index.reviews_elsewhere(turn, ("restaurant", 0)) > 0.95  # place 1's one review
    model.config = PipelineConfig(dense=False).with_rules(review_floor={"cosine": 0.3})
    assert not DstcModel._absent_review_aspect(model, index, turn, snippets, group, [0])  # no embeddings
    model.config = PipelineConfig().with_rules(review_floor=None)
    assert not DstcModel._absent_review_aspect(model, index, turn, snippets, group, [0])  # off
    assert (
        PipelineConfig.from_json({}).param("review_floor", "cosine") is None
    )  # models trained before it keep answering


def test_before_an_apology_the_places_faq_within_the_outranking_cosine_answers():
    from types import SimpleNamespace

    from clarion.data.dstc import Snippet
    from clarion.detect.faq_rule import FaqRule
    from clarion.dstc.models.pipeline import DstcModel

    def unit(rows):
        rows = np.asarray(rows, dtype=float)
        return rows / np.linalg.norm(rows, axis=1, keepdims=True)

    # the Lensfield Hotel's FAQ "Can I bring my dog?"; "Do they allow pets?" is 0.53 from it, below the 0.6 floor
    dog = Snippet("hotel", 29, 5, None, "faq", "Can I bring my dog?", "Pets are not allowed here.", "THE LENSFIELD")
    rule = FaqRule.gated([dog.title], unit([[1, 0, 0]]), unit([[0, 0, 1]]), cosine=0.8, margin=0.1)
    review = Snippet("hotel", 29, 0, 1, "review", "", "The room was quiet.", "THE LENSFIELD")
    index = SimpleNamespace(knowledge=SimpleNamespace(entity_names={("hotel", 29): "THE LENSFIELD"}))
    model = SimpleNamespace(
        config=PipelineConfig(),
        bank=SimpleNamespace(closings=Closings()),
        _other_places_faqs=DstcModel._other_places_faqs,
        _no_answer=DstcModel._no_answer,
    )
    model._faq_label = lambda *args: DstcModel._faq_label(model, *args)
    model._faq_answer = lambda *args: DstcModel._faq_answer(model, *args)
    pets = unit([[0.53, 0.848, 0]])[0]
    label, pool = DstcModel._apology(model, index, [("hotel", 29)], rule, pets, [review, dog])
    assert label.target and label.knowledge == (dog.key,) and pool is None
    assert label.response.startswith("Pets are not allowed here.")
    sauna = unit([[0.4, 0.917, 0]])[0]  # nothing within 0.5: the apology
    label, _ = DstcModel._apology(model, index, [("hotel", 29)], rule, sauna, [review, dog])
    assert label.knowledge == () and label.response.startswith("I'm sorry, I could not find any information")
    assert DstcModel._apology(model, index, [("hotel", 29)], None, pets, [review, dog])[0].knowledge == ()  # no rule
    model.config.set_rule("last_resort_faq", None)
    assert DstcModel._apology(model, index, [("hotel", 29)], rule, pets, [review, dog])[0].knowledge == ()  # off
    assert not PipelineConfig.from_json({}).uses("last_resort_faq")  # models trained before it keep the apology


def test_a_dish_the_turn_names_is_answered_from_the_selected_reviews_naming_it():
    from types import SimpleNamespace

    from clarion.dstc.models.pipeline import DISH_SHARE, DstcModel

    specific = frozenset({"biryani", "korma", "lake"})
    index = SimpleNamespace(
        specific_words=lambda share: specific if share == DISH_SHARE else frozenset(),
        name_words=lambda: frozenset({"nirala"}),
        knowledge=SimpleNamespace(entity_names={("restaurant", 7): "THE NIRALA"}),
    )
    dishes = Snippet("restaurant", 7, 1, 2, "review", "", "I ordered the korma and biryani.", "THE NIRALA")
    portions = Snippet("restaurant", 7, 2, 0, "review", "", "The portions are good too.", "THE NIRALA")
    assert DstcModel._dish_snippets(index, [portions, dishes], "Is the biryani good at ?", None) == [dishes]
    assert DstcModel._dish_snippets(index, [portions], "Is the biryani good?", None) == []  # no snippet names it
    assert DstcModel._dish_snippets(index, [dishes], "Is the food good?", None) == []  # no dish asked
    assert DstcModel._dish_snippets(index, [dishes], "Is the lake nice?", None) == []  # a specific word, not a food
    tracker = EntityTracker.from_names({("restaurant", 8): "KORMA PALACE"}, PROFILE)
    palace = Snippet("restaurant", 8, 0, 0, "review", "", "Korma Palace was quiet.", "KORMA PALACE")
    assert DstcModel._dish_snippets(index, [palace, dishes], "Is the korma good?", tracker) == [dishes]  # a name's
    # instead of "I could not find any information about that": the place's reviews naming the dish
    closings = Closings({"restaurant": "Would you like to make a reservation?"})
    model = SimpleNamespace(
        config=PipelineConfig(), bank=SimpleNamespace(closings=closings), _dish_snippets=DstcModel._dish_snippets
    )
    model._reported = lambda *args: DstcModel._reported(model, *args)
    label, _ = DstcModel._apology(model, index, [("restaurant", 7)], None, None, [portions, dishes], "Is the korma ok?")
    assert label.knowledge == (dishes.key,)
    assert label.response == (
        "Guests of The Nirala say that they ordered the korma and biryani. Would you like to make a reservation?"
    )
    assert PipelineConfig().uses("dish_answers") and not PipelineConfig.from_json({}).uses(
        "dish_answers"
    )  # older models: off


def test_a_last_user_turn_without_words_is_not_knowledge_seeking(tiny_model, synthetic):
    """An empty ASR hypothesis or "..." asks nothing; the model answered it with "Which hotel ...?" before."""
    from dataclasses import replace as copy_with

    predicted = tiny_model.predict(synthetic)
    seeking = next(i for i, label in enumerate(predicted) if label.target)
    contexts = list(synthetic.contexts)
    for text in ("", "...", " ?! "):
        last = copy_with(contexts[seeking].turns[-1], text=text)
        contexts[seeking] = copy_with(contexts[seeking], turns=(*contexts[seeking].turns[:-1], last))
        labels = tiny_model.predict(copy_with(synthetic, contexts=contexts))
        assert labels[seeking] == Label(False)
        assert labels[:seeking] == predicted[:seeking] and labels[seeking + 1 :] == predicted[seeking + 1 :]


def test_load_refuses_bank_arrays_without_a_row_per_response(tiny_model, tmp_path):
    directory = save_model(tiny_model, tmp_path / "m", "fp")
    with np.load(directory / "arrays.npz") as npz:
        arrays = {k: npz[k] for k in npz.files}
    arrays["bank_knowledge"] = arrays["bank_knowledge"][:-1]
    np.savez(directory / "arrays.npz", **arrays)
    with pytest.raises(ModelError, match=r"incompatible DSTC model \(neighbour bank: knowledge_emb has shape"):
        load_model(directory)


def test_specific_words_are_in_the_knowledge_of_few_places():
    from clarion.data.dstc import parse_knowledge
    from clarion.retrieve.knowledge import KnowledgeIndex

    places = {
        str(i): {"name": f"PLACE {i}", "faqs": {}, "reviews": {"0": {"sentences": {"0": "The food was good."}}}}
        for i in range(40)
    }
    places["0"]["reviews"]["0"]["sentences"]["1"] = "It overlooks a lake."
    places["1"]["reviews"]["0"]["sentences"]["1"] = "It overlooks a park."
    index = KnowledgeIndex(parse_knowledge({"restaurant": places}), None, dense=False)
    # "food" and "good" are in every place's knowledge; "overlooks" in 2 of 40 (5%); "it" is a stop word
    assert index.specific_words() == frozenset({"lake", "park", "overlooks"})
    assert index.words(("restaurant", 0)) >= {"lake", "overlooks", "food"}


def test_a_format_2_model_is_upgraded_when_read(tiny_model, synthetic, tmp_path):
    """Format 2 kept the selector's LightGBM text in state.json and had no classifier headers."""
    import json

    from clarion.classifier import array_text

    directory = save_model(tiny_model, tmp_path / "m", "fp")
    state = json.loads((directory / "state.json").read_text())
    with np.load(directory / "arrays.npz") as npz:
        arrays = {k: npz[k] for k in npz.files}
    selector = state["selector"]
    assert selector.pop("classifier")["kind"] == "boosted-trees" and state["detector"].pop("classifier")
    trees = sorted(k for k in arrays if k.startswith("selector_trees."))
    selector["lgbm"] = [array_text(arrays.pop(k)) for k in trees]
    state["format_version"] = 2
    (directory / "state.json").write_text(json.dumps(state))
    np.savez(directory / "arrays.npz", **arrays)
    again = load_model(directory)
    assert again.predict(synthetic) == tiny_model.predict(synthetic)
    state["format_version"] = 7
    (directory / "state.json").write_text(json.dumps(state))
    with pytest.raises(ModelError, match="model format 7, expected 3"):
        load_model(directory)

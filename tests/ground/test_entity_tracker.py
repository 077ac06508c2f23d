"""Which place a dialogue is about (``EntityTracker.track``): the latest naming turn, lists and ordinals, chains,
addresses, domain-wide documents."""

from __future__ import annotations

import pytest

from clarion.ground.entities import EntityTracker
from tracker_names import NAMES, PROFILE


@pytest.fixture(scope="module")
def tracker() -> EntityTracker:
    return EntityTracker.from_names(NAMES, PROFILE)


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


def test_a_chain_named_without_its_branch_is_asked_about():
    from types import SimpleNamespace

    from clarion.dstc.which import MAX_BRANCHES, which_entity

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
    asked = which_entity(index, pizza)
    assert asked.target and asked.knowledge == ()
    assert asked.response == "Which Pizza Hut do you mean: Pizza Hut City Centre or Pizza Hut Fen Ditton?"
    assert which_entity(index).response == "Which hotel or restaurant are you asking about?"
    many = [("restaurant", i) for i in range(MAX_BRANCHES + 1)]
    assert which_entity(index, many).response == "Which hotel or restaurant are you asking about?"


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
    assert tracker.track([*about_one, "And the third one?"]) == [("hotel", 1)]  # no third: the latest named
    assert tracker.track([*about_one, "Is it quiet?"]) == [("hotel", 1)]  # pointing at none: the latest named


def test_the_other_one_is_the_one_of_two_listed_places_the_latest_turn_does_not_name(tracker):
    listed = ["Any hotels?", "Ashley Hotel and Lovell Lodge match."]
    for about, other in (("Ashley Hotel", ("hotel", 2)), ("Lovell Lodge", ("hotel", 1))):
        turns = [*listed, f"Is {about} quiet?", "Yes, it is.", "And the other one?"]
        assert tracker.track(turns) == [other]
    # "the other guests" points at nothing; with no list of two, "the other one" stays with the place named
    assert tracker.track([*listed, "Is Ashley Hotel quiet?", "Were the other guests noisy?"]) == [("hotel", 1)]
    assert tracker.track(["Is Ashley Hotel quiet?", "Yes.", "And the other one?"]) == [("hotel", 1)]


def test_an_attraction_named_as_where_a_place_is_is_no_mention():
    tracker = EntityTracker.from_names(
        {("hotel", 1): "Hotel Nikko San Francisco", ("attraction", 2): "Union Square"}, PROFILE
    )
    turns = ["Try the Hotel Nikko San Francisco.", "What area is that in?", "It's in Union Square.", "Pets?"]
    assert tracker.track(turns) == [("hotel", 1)]
    assert tracker.mentions("Their address is 345 Taylor Street Union Square.") == []
    assert tracker.mentions("Is there parking at Union Square?") == [("attraction", 2)]  # not after "in"
    assert tracker.mentions("Rooms in the Hotel Nikko?") == [("hotel", 1)]  # hotels and restaurants are named


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


def test_domain_wide_docs_by_keyword(tracker):
    assert tracker.track(["Ashley Hotel please.", "Done.", "Can I pay the taxi by card?"]) == [("taxi", "*")]
    # a name in the same turn comes first: the question may be about the place, not the ride
    assert tracker.track(["Can I take a cab to the Ashley Hotel?"]) == [("hotel", 1), ("taxi", "*")]
    # but parking a car is a question about the place
    assert tracker.track(["Ashley Hotel please.", "Done.", "Is there a place to park my car?"]) == [("hotel", 1)]
    assert tracker.track(["Can I park my car at the Ashley Hotel?"]) == [("hotel", 1)]

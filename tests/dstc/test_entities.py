"""Entity tracking: aliases of place names, mentions in a dialogue, ordinals and "the other one", typos."""

from __future__ import annotations

import pytest

from clarion.dialogue.aliases import aliases, distinctive_words, short_forms
from clarion.dialogue.entities import EntityTracker
from clarion.respond.names import swap_entity
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


def test_every_name_a_text_holds_is_a_mention(tracker):
    text = "Ashley Hotel is quiet, Lovell Lodge is not, and Nandos is loud."
    assert tracker.mentions(text) == [("hotel", 1), ("hotel", 2), ("restaurant", 4)]
    assert tracker.mentions("No names here.") == []


def test_short_forms_are_a_chain_without_its_branch_and_a_distinctive_first_word():
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
    assert tracker.mentions("Midsummer has no outdoor seating.") == []  # tracking a dialogue does not use them


def test_a_name_written_without_and_bar_is_renamed():
    """DE LUCA CUCINA AND BAR is written "De Luca Cucina": a borrowed body is renamed; tracking a dialogue keeps the
    aliases it had (the selector is fitted on turns with names cut)."""
    names = {("restaurant", 1): "DE LUCA CUCINA AND BAR", ("restaurant", 2): "KYMMOY"}
    body = "De Luca Cucina gets some mixed reviews on their food portions."
    assert (
        swap_entity(body, names[("restaurant", 1)], "Kymmoy")
        == "Kymmoy gets some mixed reviews on their food portions."
    )
    assert "de luca cucina" in aliases(names[("restaurant", 1)], written=True, profile=PROFILE)
    assert "de luca cucina" not in aliases(names[("restaurant", 1)], profile=PROFILE)
    tracker = EntityTracker.from_names(names, PROFILE)
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

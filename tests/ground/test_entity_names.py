"""How the entity tracker knows a place by name: aliases, short forms, distinctive words, typos."""

from __future__ import annotations

import pytest

from clarion.ground.aliases import aliases, distinctive_words, short_forms
from clarion.ground.entities import EntityTracker
from clarion.ground.names import swap_entity
from tracker_names import NAMES, PROFILE


@pytest.fixture(scope="module")
def tracker() -> EntityTracker:
    return EntityTracker.from_names(NAMES, PROFILE)


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

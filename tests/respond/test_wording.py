"""How responses write places and FAQ answers: display names, a borrowed answer's place renamed (misspellings
too), FAQ answers in the template, and the closing questions learnt per domain."""

from __future__ import annotations

from clarion.ground.names import display_name, respelled, swap_entity
from clarion.respond.follow_up import MIN_CLOSINGS, Closings
from clarion.respond.template import Selected, snippets_response, template_response
from clarion.types import Snippet


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


def _faq(title: str, body: str, entity_id: int = 1) -> Snippet:
    return Snippet("restaurant", entity_id, 0, None, "faq", title, body, "Gamma Grill")


def test_an_faq_answer_without_a_full_stop_gets_one():
    faq = _faq("Are pets allowed?", "Pets are not allowed at Gamma Grill")
    names = {("restaurant", 1): "GAMMA GRILL"}
    assert snippets_response([faq], names) == "Pets are not allowed at Gamma Grill."
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

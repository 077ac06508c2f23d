"""What guests dislike or like: the turns that ask it, the review sentences that state a complaint or praise, the
answer."""

from __future__ import annotations

import pytest

from clarion.data.dstc import Snippet, parse_knowledge
from clarion.dstc.assistant import Grounder
from clarion.dstc.models.pipeline import PipelineConfig
from clarion.respond.opinions import (
    ASKS_COMPLAINTS,
    asks_downsides,
    asks_upsides,
    complaints,
    downsides_response,
    praises,
    upsides_response,
)


def review(doc: int, text: str, sent: int = 0) -> Snippet:
    return Snippet("hotel", 1, doc, sent, "review", "", text, "ALPHA LODGE")


@pytest.mark.parametrize(
    "turn",
    [
        "What do people dislike about the ?",
        "What don't people like about the ?",
        "Are there any complaints about ?",
        "What are the downsides of staying at the ?",
        "Is there anything guests complain about?",
        "What did reviewers not like about ?",
        "Any negatives about the ?",
    ],
)
def test_a_turn_asking_what_guests_dislike_without_an_aspect(turn):
    assert asks_downsides(turn)


@pytest.mark.parametrize(
    "turn",
    [
        "Are there any complaints about the rooms at the ?",  # an aspect: the selector answers about the rooms
        "Has anyone complained about the noise at the ?",
        "I don't like noisy places. Is the  quiet?",
        "I don't like Chinese food, find me something else.",
        "What do people like about the ?",  # not what they dislike
        "Is it quiet?",
    ],
)
def test_a_turn_naming_an_aspect_or_not_asking_for_complaints_is_not_one(turn):
    assert not asks_downsides(turn)


def test_complaints_are_the_first_complaining_sentence_of_each_of_two_reviews():
    snippets = [
        review(0, "We arrived on a Monday."),
        review(0, "The food and drinks were great so no complaints there.", 1),  # "no complaints" is none
        review(1, "The room was a bit small."),
        review(1, "The wifi was extremely slow.", 1),  # a second one of the same review
        review(2, "Unfortunately, the breakfast was cold."),
        review(3, "The bed was not comfortable."),
    ]
    assert [s.body for s in complaints(snippets)] == [
        "The room was a bit small.",
        "Unfortunately, the breakfast was cold.",
    ]
    assert complaints(snippets[:2]) == []


def test_the_answer_reports_the_complaints_or_says_there_are_none():
    found = [review(1, "However, my room was a bit\nsmall."), review(2, "I wished the breakfast was hot.")]
    assert downsides_response("The Alpha Lodge", found) == (
        "Some guests of the Alpha Lodge had complaints: their room was a bit small, and they wished the breakfast "
        "was hot."
    )
    assert downsides_response("Alpha Lodge", []) == "The reviews I have of Alpha Lodge mention no complaints."


@pytest.mark.parametrize(
    ("question", "sentence", "answer", "flag"),
    [
        (
            "What do people dislike about the Alpha Lodge?",
            "The bed was uncomfortable.",
            "Some guests of Alpha Lodge had complaints: the bed was uncomfortable.",
            "downsides",
        ),
        (
            "What do people like about the Alpha Lodge?",
            "We loved the quiet garden.",
            "Some guests of Alpha Lodge had praise: they loved the quiet garden.",
            "upsides",
        ),
    ],
)
def test_the_assistant_answers_what_guests_dislike_or_like_from_those_sentences(
    tiny_model, monkeypatch, question, sentence, answer, flag
):
    from dstc_synthetic import knowledge

    kb = knowledge()
    kb["hotel"]["0"]["reviews"] = {"0": {"traveler_type": "Couples", "sentences": {"0": "We came.", "1": sentence}}}
    grounder = Grounder(tiny_model, parse_knowledge(kb, "knowledge.json"))
    monkeypatch.setattr(tiny_model.detector.config, "threshold", -1.0)  # every turn is knowledge-seeking
    reply = grounder.respond([question])
    assert reply.knowledge_seeking and [s.key for s in reply.snippets] == [("hotel", 0, 0, 1)]
    assert reply.response.startswith(answer)
    monkeypatch.delitem(grounder.model.config.rules, flag)
    assert grounder.respond([question]) != reply
    assert PipelineConfig().uses(flag) and not PipelineConfig.from_json({}).uses(flag)  # older models: off


def test_a_place_whose_reviews_hold_no_complaint_is_said_to_have_none(tiny_model, monkeypatch):
    from dstc_synthetic import knowledge

    grounder = Grounder(tiny_model, parse_knowledge(knowledge(), "knowledge.json"))
    monkeypatch.setattr(tiny_model.detector.config, "threshold", -1.0)  # every turn is knowledge-seeking
    none = grounder.respond(["What do people dislike about the Beta House Hotel?"])
    assert none.snippets == () and none.response.startswith("The reviews I have of Beta House Hotel mention no")


def test_a_question_whether_there_are_complaints_is_told_apart_from_a_dislike_said_in_passing():
    assert ASKS_COMPLAINTS.search("Are there any complaints about the rooms?")  # its answer gets no "Yes"
    assert ASKS_COMPLAINTS.search("Has anybody complained about the WiFi being unreliable?")
    assert not ASKS_COMPLAINTS.search("I don't like the noise, so is the hotel in a quiet part of town?")


@pytest.mark.parametrize(
    "turn",
    [
        "What do people like about the ?",
        "What do guests love most about ?",
        "What's good about the ?",
        "What are the highlights of ?",
        "What do reviewers praise at the ?",
        "What are the best things about the ?",
    ],
)
def test_a_turn_asking_what_guests_like_without_an_aspect(turn):
    assert asks_upsides(turn)


@pytest.mark.parametrize(
    "turn",
    [
        "Do people like the food at the ?",  # an aspect: the selector answers about the food
        "What do guests love about the rooms at ?",
        "I'd like to book a room at the .",
        "What do people dislike about the ?",  # the downsides
        "What don't people like about the ?",
        "Is it quiet?",
    ],
)
def test_a_turn_naming_an_aspect_or_not_asking_what_guests_like_is_not_one(turn):
    assert not asks_upsides(turn)


def test_praise_is_the_first_praising_sentence_of_each_of_two_reviews():
    snippets = [
        review(0, "We arrived on a Monday."),
        review(0, "The staff were not very friendly.", 1),  # a negation is none
        review(1, "The food was delicious but the room was a bit small."),  # a complaint's wording too: none
        review(1, "We loved the view from our room.", 1),
        review(1, "The staff were very friendly.", 2),  # a second one of the same review
        review(2, "Highly recommend."),  # says nothing of what was liked: none
        review(2, "I highly recommend the breakfast.", 1),
        review(3, "The bed was really comfortable."),
    ]
    assert [s.body for s in praises(snippets)] == [
        "We loved the view from our room.",
        "I highly recommend the breakfast.",
    ]
    assert praises(snippets[:3]) == []


def test_the_answer_reports_the_praise_or_says_there_is_none():
    found = [review(1, "We loved the view from our room."), review(2, "The staff were very friendly.")]
    assert upsides_response("The Alpha Lodge", found) == (
        "Some guests of the Alpha Lodge had praise: they loved the view from their room, and the staff were very "
        "friendly."
    )
    assert upsides_response("Alpha Lodge", []) == "The reviews I have of Alpha Lodge single out nothing in particular."

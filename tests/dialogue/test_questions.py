"""Questions written for requests the bank has nothing for, and answers that pick one of their options."""

from __future__ import annotations

import numpy as np
import pytest

from clarion.dialogue.options import picked, with_picks
from clarion.dialogue.questions import KINDS, QuestionWriter, options_in, senses, topic_of, with_options
from clarion.dialogue.state import Exchange, State


@pytest.mark.parametrize(
    ("request_", "topic"),
    [
        ("Give me a list of good coffee shops?", "good coffee shops"),
        ("Give me some Mother's Day gift ideas.", "mother's day gift"),
        ("where can i buy a bass", "bass"),
        ("need a new laptop for college, what should i get", "new laptop for college"),
        ("coffee shops near me", "coffee shops"),
    ],
)
def test_topic_of_drops_the_opening_and_the_closing(request_, topic):
    assert topic_of(request_) == topic


def test_options_round_trip_through_the_question_text():
    question = with_options("Which do you mean by mercury", ["the metallic element", "the Roman deity", "the planet"])
    assert question == "Which do you mean by mercury: the metallic element, the Roman deity, or the planet?"
    assert options_in(question) == ["the metallic element", "the Roman deity", "the planet"]
    assert options_in(with_options("Which one", ["tea", "coffee"])) == ["tea", "coffee"]
    assert options_in("Which city are you in?") == [] and options_in("Note: a statement.") == []


def test_senses_come_from_wordnet_domains():
    assert len(senses("mercury")) >= 2 and "the planet" not in senses("coffee")
    assert senses("boiling") == () or len(senses("boiling")) >= 2


def _writer():
    requests = ["coffee shops", "cafes to work from", "birthday present", "gift for an anniversary"] * 3
    kinds = ["place", "place", "recipient", "recipient"] * 3
    emb = np.zeros((len(requests), 384))
    return QuestionWriter.fit(requests, kinds, emb, C=10.0)


def test_the_writer_asks_for_what_is_missing_naming_the_topic():
    writer = _writer()
    place, gift = writer.write(["good coffee shops", "a birthday present"], np.zeros((2, 384)))
    assert place.text == KINDS["place"].format(topic="good coffee shops") and place.source == "kind:place"
    assert gift.source == "kind:recipient" and "birthday present" in gift.text and gift.options == []


def test_a_bare_word_with_several_senses_gets_a_question_with_options():
    written = _writer().write(["tell me about mercury"], np.zeros((1, 384)))[0]
    assert written.source == "senses" and len(written.options) >= 2
    assert options_in(written.text) == written.options


def test_only_a_bare_topic_is_asked_which_sense_it_means():
    bare, capital, asks_when = QuestionWriter().write(
        ["what is mercury", "what is the capital", "when should i see a doctor"], np.zeros((3, 384))
    )
    assert bare.source == "senses" and capital.source == "senses"  # an article leaves the topic bare
    assert asks_when.source.startswith("kind:") and asks_when.options == []  # one content word, not a bare topic


def test_without_a_kind_classifier_it_asks_about_the_scope():
    assert QuestionWriter().write(["hiking boots"], np.zeros((1, 384)))[0].text == KINDS["scope"].format(
        topic="hiking boots"
    )


OPTIONS = ["the metallic element", "the Roman deity", "the planet"]


@pytest.mark.parametrize(
    ("answer", "index"),
    [
        ("the second one", 1),
        ("2", 1),
        ("the last", 2),
        ("the planet please", 2),
        ("I mean the Roman god", 1),
        ("the car brand", None),
        ("no idea, first I need to think about what I want to do next week", None),
    ],
)
def test_an_answer_picks_an_option_by_position_or_words(answer, index):
    assert picked(answer, OPTIONS) == index


def test_a_picked_option_replaces_the_answer_for_understanding():
    question = with_options("Which do you mean by mercury", OPTIONS)
    state = State("tell me about mercury", (Exchange(question, "the third one"),), "the third one", True)
    read, picks = with_picks(state)
    assert picks == [2] and read.exchanges[0].answer == "the planet" and read.request == state.request
    unchanged = State("cheap flights", (Exchange("Which city are you flying from?", "Boston"),), "Boston", True)
    assert with_picks(unchanged) == (unchanged, [None])


def test_the_chat_lists_a_question_s_options_by_number():
    from clarion.cli.converse import chat_session
    from clarion.types import Decision

    class Asks:
        def reply(self, turns):
            if len(turns) == 1:
                return Decision("clarify", with_options("Which do you mean", OPTIONS), "mercury", options=OPTIONS)
            return Decision("answer", "Mercury is the closest planet to the sun.", "mercury the planet")

    lines, said = ["tell me about mercury", "3"], []

    def read(prompt):
        if not lines:
            raise EOFError
        return lines.pop(0)

    chat_session(Asks(), read=read, write=said.append)
    assert said[2:5] == ["  1. the metallic element", "  2. the Roman deity", "  3. the planet"]
    assert said[5] == "clarion> Mercury is the closest planet to the sun."

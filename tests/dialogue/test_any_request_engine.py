"""The engine on requests that are not ClariQ's: the model for any request decides, and writes the question."""

from __future__ import annotations

import pytest
from dialogue_fakes import BANK, FakeClarifier, bow_encode

from clarion.dialogue.questions import Written, with_options

OPTIONS = ["the metallic element", "the Roman deity", "the planet"]


class NewRequests(FakeClarifier):
    """A clarifier for which every request is new (not ClariQ's)."""

    def is_new(self, request):
        return True


class FakeAnyRequest:
    """P(unclear) 0.9 for a short request, 0.1 for a long one; a question with options for "mercury"."""

    def __init__(self):
        self.calls = 0

    def assess(self, requests):
        self.calls += 1
        out = []
        for r in requests:
            p = 0.9 if len(r.split()) <= 4 else 0.1
            if "mercury" in r:
                written = Written(with_options("Which do you mean by mercury", OPTIONS), list(OPTIONS), "senses")
            else:
                written = Written("Which city or area are you looking for coffee shops in?", [], "kind:place")
            out.append((p, written))
        return out

    def is_new_request(self, request, question, reply):
        return "flight" in reply and "flight" not in request


@pytest.fixture
def engine(bow_rewriter):
    from clarion.dialogue import Assistant
    from clarion.dialogue.choose import QuestionChooser

    chooser = QuestionChooser(list(BANK), bow_encode(list(BANK.values())))
    return Assistant(NewRequests(), bow_rewriter, chooser, cost=0.5, any_request=FakeAnyRequest())


def user(*texts):
    return [{"role": "user" if i % 2 == 0 else "system", "text": t} for i, t in enumerate(texts)]


def test_a_new_unclear_request_gets_the_written_question_with_its_options(engine):
    d = engine.reply(user("tell me about mercury"))
    assert d.action == "clarify" and d.options == OPTIONS and d.question_id is None
    assert d.scores["question_source"] == "senses" and d.scores["unclear_from"] == "any-request"
    assert d.scores["p_unclear"] == pytest.approx(0.9)


def test_a_new_clear_request_is_answered(engine):
    d = engine.reply(user("which coffee shops in seattle open before six"))
    assert d.action == "answer" and d.scores["p_unclear"] == pytest.approx(0.1)


def test_a_picked_option_narrows_the_query_and_the_question_is_not_asked_again(engine):
    question = engine.reply(user("tell me about mercury")).text
    d = engine.reply(user("tell me about mercury", question, "the second one"))
    assert d.scores["picked"] == "the Roman deity"
    assert "roman deity" in d.query.lower() and "mercury" in d.query.lower()
    assert d.action == "answer"


def test_an_answer_naming_something_else_narrows_the_query_too(engine):
    question = engine.reply(user("coffee shops")).text
    d = engine.reply(user("coffee shops", question, "in Lisbon, near the river"))
    assert "lisbon" in d.query.lower() and "picked" not in d.scores


def test_clariq_requests_keep_the_clariq_need_model_and_bank(bow_rewriter):
    from clarion.dialogue import Assistant
    from clarion.dialogue.choose import QuestionChooser

    chooser = QuestionChooser(list(BANK), bow_encode(list(BANK.values())))
    any_request = FakeAnyRequest()
    engine = Assistant(FakeClarifier(), bow_rewriter, chooser, cost=0.5, any_request=any_request)
    d = engine.reply(user("Tell me about hip roof design."))
    assert d.action == "clarify" and d.question_id in BANK and d.scores["question_source"] == "bank"
    assert d.scores["unclear_from"] == "clariq" and d.options == [] and any_request.calls == 0


def test_a_long_request_is_accepted(engine):
    d = engine.reply(user("Please help me plan a trip. " * 120))  # over 3,000 characters
    assert d.action in {"answer", "clarify"} and d.query


def test_a_new_request_after_a_question_is_read_as_the_request(engine):
    question = engine.reply(user("dinosaurs")).text
    d = engine.reply(user("dinosaurs", question, "i want to book a flight to paris"))
    assert d.scores["new_request"] is True and d.query == "i want to book a flight to paris"
    assert "dinosaurs" not in d.query and d.scores["questions_asked"] == 0


@pytest.mark.parametrize(
    ("query", "tidy"),
    [
        ("jaguar animal animal", "jaguar animal"),
        ("good coffee shops paris paris", "good coffee shops paris"),
        ("python tutorial no i mean the programming language no i mean the programming language",
         "python tutorial i mean the programming language"),
        ("no", "no"),  # nothing else left: as it was
        ("Tell me about hip roof design.", "Tell me about hip roof design."),
    ],
)  # fmt: skip
def test_the_understood_query_reads_like_a_request(query, tidy):
    from clarion.text import tidy_query

    assert tidy_query(query) == tidy


def test_every_decision_carries_the_tidy_understood_query(engine):
    question = engine.reply(user("coffee shops")).text
    d = engine.reply(user("coffee shops", question, "yes paris"))
    from clarion.text import tidy_query

    assert "yes" not in d.understood.split() and d.understood == tidy_query(d.query)


def test_an_answer_says_what_it_searches_for_as_a_person_would_write_it(engine):
    question = engine.reply(user("coffee shops")).text
    d = engine.reply(user("coffee shops", question, "yes paris paris"))  # one written question per request
    assert d.action == "answer" and not d.sources
    assert d.text == f"Searching for: {d.understood}"
    assert "paris paris" not in d.text.lower() and "yes" not in d.text.split()


def test_the_replies_of_concurrent_conversations_are_read_in_one_batch(bow_rewriter):
    from clarion.dialogue import Assistant
    from clarion.dialogue.choose import QuestionChooser

    class Batched(FakeAnyRequest):
        def __init__(self):
            super().__init__()
            self.batches: list[int] = []

        def new_requests_many(self, rows, encode=None):
            self.batches.append(len(rows))
            return [self.is_new_request(*row) for row in rows]

    model = Batched()
    chooser = QuestionChooser(list(BANK), bow_encode(list(BANK.values())))
    engine = Assistant(NewRequests(), bow_rewriter, chooser, cost=0.5, any_request=model)
    question = "Which city or area are you looking for coffee shops in?"
    decisions = engine.reply_many(
        [user("coffee shops", question, "in Lisbon"), user("dinosaurs", question, "i want to book a flight to rome")]
    )
    assert model.batches == [2]  # one call for both replies, none again while reading each conversation
    assert "new_request" not in decisions[0].scores and decisions[1].scores["new_request"] is True

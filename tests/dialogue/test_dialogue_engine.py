"""The engine's contract and policy, with a stand-in clarifier and a bag-of-words-trained answer model."""

from __future__ import annotations

import dataclasses

import pytest

from clarion.dialogue import Assistant, Decision
from clarion.errors import InputError

U, S = "user", "system"


def turns(*texts):
    return [{"role": U if i % 2 == 0 else S, "text": t} for i, t in enumerate(texts)]


def test_decision_contract(make_assistant):
    decision = make_assistant().reply(turns("Tell me about hip roof design."))
    assert isinstance(decision, Decision)
    fields = {"action", "text", "query", "need", "question_id", "sources", "scores", "options", "understood"}
    assert set(decision.to_dict()) == fields
    assert decision.action == "clarify" and decision.text.endswith("?") and decision.question_id == "Q1"
    assert decision.query == "Tell me about hip roof design."  # before any question: the request's meaning
    assert decision.need == 3 and decision.sources == [] and "p_unclear" in decision.scores
    with pytest.raises(dataclasses.FrozenInstanceError):
        decision.action = "stop"


def test_clear_request_is_answered(make_assistant):
    decision = make_assistant().reply(turns("What is the capital of France?"))
    assert decision.action == "answer" and decision.question_id is None
    assert "capital of France" in decision.text


def test_no_repeated_question_and_rewording_skipped(make_assistant):
    assistant = make_assistant(cost=0.0)
    history = turns("Tell me about hip roof design.")
    asked = []
    for answer in ("no", "no", "no"):
        decision = assistant.reply(history)
        if decision.action != "clarify":
            break
        asked.append(decision.question_id)
        history += [{"role": S, "text": decision.text}, {"role": U, "text": answer}]
    assert len(asked) == len(set(asked)) >= 2
    assert "Q4" not in asked  # a rewording of Q1, asked first


def test_stops_asking_after_three_questions(make_assistant):
    assistant = make_assistant(cost=0.0)
    history = turns("Tell me about hip roof design.")
    for _ in range(3):
        decision = assistant.reply(history)
        assert decision.action == "clarify"
        history += [{"role": S, "text": decision.text}, {"role": U, "text": "no"}]
    assert assistant.reply(history).action == "answer"


def test_settling_answer_stops_asking(make_assistant):
    history = turns("Tell me about hip roof design.", "Are you interested in more than one hip roof design?")
    decision = make_assistant(cost=0.5).reply([*history, {"role": U, "text": "no, I just want pictures of one"}])
    assert decision.action == "answer"
    assert "pictures" in decision.query


def test_closing_turn_is_stop(make_assistant):
    history = turns("Tell me about hip roof design.", "Are you interested in more than one hip roof design?")
    decision = make_assistant().reply([*history, {"role": U, "text": "ok thanks, bye"}])
    assert decision.action == "stop" and decision.text == ""


def test_cost_one_never_asks(make_assistant):
    assert make_assistant(cost=1.0).reply(turns("Tell me about hip roof design.")).action == "answer"


@pytest.mark.parametrize(
    ("bad", "field"),
    [
        ([], "turns"),
        ("hello", "turns"),
        ([{"role": "bot", "text": "hi"}], "turns[0].role"),
        ([{"role": "user", "text": ""}], "turns[0].text"),
        ([{"role": "user", "text": 3}], "turns[0].text"),
        (turns("hi", "What?"), "turns[1].role"),
        ([{"role": "user"}], "turns[0].text"),
        (["hi"], "turns[0]"),
    ],
)
def test_bad_turns_name_the_field(make_assistant, bad, field):
    with pytest.raises(InputError) as err:
        make_assistant().reply(bad)
    assert str(err.value).startswith(field) and "\n" not in str(err.value)


def test_bad_cost(make_assistant):
    with pytest.raises(InputError, match="cost"):
        make_assistant(cost=1.5)


def test_documents_answer_cites_id(make_assistant, documents_file, bow_dense):
    from clarion.dialogue.answer import DocumentAnswerer
    from clarion.retrieve.collection import Collection

    answerer = DocumentAnswerer(Collection.load(documents_file))
    decision = make_assistant(cost=1.0, answerer=answerer).reply(turns("pictures of hip roof designs"))
    assert decision.action == "answer"
    assert decision.sources and decision.sources[0]["id"] == "d2"
    assert "[d2]" in decision.text


def test_assistant_is_exported():
    import clarion

    assert clarion.Assistant is Assistant


class FakeGrounder:
    """Grounder.respond for three kinds of turn (its public Reply type)."""

    def respond(self, dialogue):
        from clarion.dstc.assistant import Reply
        from clarion.types import Snippet

        text = dialogue[-1].text.lower()
        assert all(t.role in ("user", "system") for t in dialogue)
        if "wifi" in text and "ashley" not in text:
            return Reply(True, (), "Which hotel do you mean: Ashley Hotel or Acorn House?")
        if "wifi" in text:
            snippet = Snippet("hotel", 1, 4, None, "faq", "Is there wifi?", "Yes, free wifi.", "Ashley Hotel")
            return Reply(True, (snippet,), "Yes, the Ashley Hotel has free wifi.")
        return Reply(False)


def test_knowledge_which_place_is_clarify_and_answer_has_sources(make_assistant):
    from clarion.dialogue.answer import KnowledgeAnswerer

    assistant = make_assistant(answerer=KnowledgeAnswerer(FakeGrounder()))
    which = assistant.reply(turns("Is there wifi at the hotel?"))
    assert which.action == "clarify" and which.text.startswith("Which hotel") and which.question_id is None
    grounded = assistant.reply(turns("Is there wifi at the Ashley Hotel?"))
    assert grounded.action == "answer" and grounded.sources[0]["id"] == "hotel/1/4"
    assert grounded.sources[0]["text"] == "Is there wifi? Yes, free wifi."
    other = assistant.reply(turns("Tell me about hip roof design."))  # not knowledge-seeking: the host's turn
    assert other.action == "answer" and other.question_id is None and other.scores["handoff"] is True
    assert other.text == "Searching for: Tell me about hip roof design." and not other.sources
    assert make_assistant().reply(turns("Tell me about hip roof design.")).question_id == "Q1"  # no knowledge: asked


@pytest.mark.parametrize(
    "request_, clear",
    [
        ("How many ounces are in a cup?", True),
        ("Who wrote Pride and Prejudice?", True),
        ("When did the Berlin Wall fall?", True),
        ("What is the capital of France?", True),
        ("what is the capital of a country", False),  # nothing named
        ("who invented music", False),
        ("What is a hip roof?", False),
        ("Tell me about jaguar.", False),
        ("apple", False),
    ],
)
def test_specific_question_rule(request_, clear):
    from clarion.dialogue import policy

    assert policy.specific_question(request_) is clear
    from clarion.rules import RULES, rules_of

    assert RULES["specific_question"].task == "converse" and "specific_question" in rules_of("converse")


def test_specific_question_is_answered_however_unclear_the_need_model_thinks(make_assistant):
    decision = make_assistant(p_clear=0.0, cost=0.5).reply(turns("Who designed the Sydney Opera House roof?"))
    assert decision.action == "answer" and decision.scores["p_unclear"] == 0.0
    from clarion.dialogue import policy

    request = "Who designed the Sydney Opera House?"
    assert policy.p_unclear(1.0, policy.Readings(), policy.ON, request) == 0.0
    rules = {k: v for k, v in policy.ON.items() if k != "specific_question"}  # switched off: left out
    assert policy.p_unclear(1.0, policy.Readings(), rules, request) == 1.0


def test_the_engine_takes_its_policy_rules_by_name_and_refuses_an_unknown_one(bow_rewriter):
    from dialogue_fakes import BANK, FakeClarifier, bow_encode

    from clarion.dialogue import policy
    from clarion.dialogue.choose import QuestionChooser

    chooser = QuestionChooser(list(BANK), bow_encode(list(BANK.values())))

    def engine(rules=None):
        return Assistant(FakeClarifier(p_clear=0.1), bow_rewriter, chooser, cost=0.5, rules=rules)

    assert engine().rules == policy.ON == {"closing": {}, "settled": {}, "specific_question": {}}
    history = turns("Tell me about hip roof design.", "Are you interested in more than one hip roof design?")
    closing = [*history, {"role": U, "text": "ok thanks, bye"}]
    assert engine().reply(closing).action == "stop"
    without = engine({"settled": {}, "specific_question": True, "closing": None})  # closing switched off
    assert without.rules == {"settled": {}, "specific_question": {}} and without.reply(closing).action != "stop"
    for bad in ({"ask_entity": {}}, {"downsides": None}):  # a DSTC rule; no rule at all
        with pytest.raises(InputError, match=f"^rules: no rule '{next(iter(bad))}'; rules: closing, settled, "):
            engine(bad)


def test_a_request_no_bank_question_fits_is_answered_however_unclear(bow_rewriter):
    """A command from outside ClariQ ("Set a timer for ten minutes."): the ranker offers no question scoring at
    least FIT, so the engine answers instead of asking an ill-fitting one; it asks for fitting proposals."""
    from dialogue_fakes import BANK, FakeClarifier, bow_encode

    from clarion.dialogue.choose import QuestionChooser

    class NothingFits(FakeClarifier):
        def rank(self, request, k=30, fitting=False):
            self.fitting = fitting
            return [] if fitting else super().rank(request, k)

    clarifier = NothingFits(p_clear=0.0)
    chooser = QuestionChooser(list(BANK), bow_encode(list(BANK.values())))
    decision = Assistant(clarifier, bow_rewriter, chooser, cost=0.5).reply(turns("Set a timer for ten minutes."))
    assert clarifier.fitting is True
    assert decision.action == "answer" and decision.question_id is None and decision.scores["p_unclear"] > 0.5
    assert decision.query == "Set a timer for ten minutes."

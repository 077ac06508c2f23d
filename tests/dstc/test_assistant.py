"""The assistant API (`clarion.dstc.assistant.Grounder`): one dialogue at a time, answered as `dstc predict` does."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from clarion.bounds import MAX_TURN_CHARS
from clarion.dstc.assistant import Grounder, Reply, after_clarifying, as_turns
from clarion.dstc.models.modeldir import save_model
from clarion.dstc.models.pipeline import DstcModel, PipelineConfig
from clarion.errors import InputError, ModelError
from clarion.types import Turn
from dstc_synthetic import write_synthetic


@pytest.fixture(scope="module")
def grounder(tiny_model, synthetic):
    return Grounder(tiny_model, synthetic.knowledge)


def dicts(context) -> list[dict]:
    return [{"role": t.role, "text": t.text} for t in context.turns]


def test_respond_answers_as_predict_does(grounder, synthetic):
    predictions = grounder.model.predict(synthetic)
    replies = [grounder.respond(dicts(c)) for c in synthetic.contexts]
    assert [r.knowledge_seeking for r in replies] == [p.target for p in predictions]
    assert [tuple(s.key for s in r.snippets) for r in replies] == [p.knowledge for p in predictions]
    assert [r.response for r in replies] == [p.response if p.target else None for p in predictions]
    assert grounder.respond_many([dicts(c) for c in synthetic.contexts]) == replies


def test_replies_ground_knowledge_turns_and_leave_the_others(grounder, synthetic):
    seeking = [i for i, g in enumerate(synthetic.labels) if g.target]
    booking = [i for i, g in enumerate(synthetic.labels) if not g.target]
    reply = grounder.respond(dicts(synthetic.contexts[seeking[0]]))
    assert reply.knowledge_seeking and reply.snippets and reply.response
    assert all(s.entity_name == reply.snippets[0].entity_name for s in reply.snippets)
    assert grounder.respond(dicts(synthetic.contexts[booking[0]])) == Reply(False)


def test_a_chain_named_without_its_branch_gets_its_branches_offered(tiny_model):
    from clarion.data.dstc import parse_knowledge
    from dstc_synthetic import knowledge

    kb = knowledge()
    for eid, branch in (("7", "CENTRE"), ("8", "NORTH")):
        kb["restaurant"][eid] = dict(kb["restaurant"]["2"], name=f"PIZZA PALACE {branch}")
    grounder = Grounder(tiny_model, parse_knowledge(kb, "knowledge.json"))
    dialogue = ["I want pizza.", "There are several good choices.", "Is Pizza Palace quiet at night?"]
    reply = grounder.respond(dialogue)
    assert reply == Reply(True, (), "Which Pizza Palace do you mean: Pizza Palace Centre or Pizza Palace North?")
    # the user's answer picks a branch, and the original question is answered about it
    for answer, branch in (("The north one.", "PIZZA PALACE NORTH"), ("the first one", "PIZZA PALACE CENTRE")):
        picked = grounder.respond([*dialogue, reply.response, answer])
        assert picked.knowledge_seeking and picked.snippets, answer
        assert {s.entity_name for s in picked.snippets} == {branch}, answer
        assert picked == grounder.respond([*dialogue[:2], answer, f"{branch.title()}.", dialogue[-1]])
    # an answer that picks none, or a question of its own, is read as it is
    for answer in ("not sure", "Actually, is Alpha Lodge quiet at night?"):
        turns = [*dialogue, reply.response, answer]
        assert after_clarifying(as_turns(turns), grounder.prepared.tracker, grounder.knowledge.entity_names) == (
            as_turns(turns)
        )


def test_the_place_named_after_which_place_answers_the_question_asked_before_it(grounder):
    dialogue = ["I want a hotel number 0 for quiet.", "There are several good choices.", "Is it quiet at night?"]
    asked = grounder.respond(dialogue)
    assert asked.response == "Which hotel or restaurant are you asking about?"
    named = grounder.respond([*dialogue, asked.response, "Alpha Lodge."])
    assert named.knowledge_seeking and named.snippets
    assert {s.entity_name for s in named.snippets} == {"ALPHA LODGE"}


def test_a_question_about_no_named_place_gets_asked_which_place(grounder):
    dialogue = ["I want a hotel number 0 for quiet.", "There are several good choices.", "Is it quiet at night?"]
    assert PipelineConfig().uses("ask_entity")
    reply = grounder.respond(dialogue)
    assert reply == Reply(True, (), "Which hotel or restaurant are you asking about?")
    config = grounder.model.config
    try:
        config.set_rule("ask_entity", None)  # off: the entity of the lexically closest snippet answers
        guessed = grounder.respond(dialogue)
    finally:
        config.set_rule("ask_entity", {})
    assert guessed.knowledge_seeking and guessed.snippets and guessed.response
    named = grounder.respond(["I want a hotel number 0 for quiet.", "Alpha Lodge is a good choice.", dialogue[-1]])
    assert named.snippets and named.snippets[0].entity_name == "ALPHA LODGE"


def test_a_turn_only_the_faq_rule_flags_with_no_place_named_gets_asked_which_place(grounder, monkeypatch):
    dialogue = ["I want a hotel number 0 for quiet.", "There are several good choices.", "Is it quiet at night?"]

    class EveryTurn:  # an FAQ rule flagging every turn (the tiny model's knowledge has none)
        penalties = None

        def matches(self, emb):
            return np.ones(len(emb), dtype=bool)

    monkeypatch.setattr(grounder, "prepared", dataclasses.replace(grounder.prepared, faq_rule=EveryTurn()))
    monkeypatch.setattr(grounder.model.detector, "predict", lambda texts, emb=None: np.zeros(len(texts), dtype=bool))
    assert grounder.respond(dialogue) == Reply(True, (), "Which hotel or restaurant are you asking about?")
    monkeypatch.setattr(grounder.model.detector, "predict", lambda texts, emb=None: np.ones(len(texts), dtype=bool))
    assert grounder.respond(dialogue) == Reply(True, (), "Which hotel or restaurant are you asking about?")


def test_string_turns_alternate_and_end_with_the_user(grounder, synthetic):
    context = synthetic.contexts[1]
    texts = [t.text for t in context.turns]
    assert as_turns(texts) == tuple(Turn(r, t) for r, t in zip(("user", "system", "user"), texts, strict=True))
    assert as_turns(texts[1:]) == (Turn("system", texts[1]), Turn("user", texts[2]))
    assert as_turns([{"role": "user", "text": texts[0]}]) == as_turns([{"speaker": "U", "text": texts[0]}])
    assert grounder.respond(texts) == grounder.respond(dicts(context))
    assert grounder.respond(list(context.turns)) == grounder.respond(texts)


@pytest.mark.parametrize(
    ("dialogue", "message"),
    [
        ("Is it quiet?", "list of turns"),
        ([], "empty"),
        ([""], "turn 0: text must be a non-empty string"),
        (["hello", 3], "turn 1: expected a string"),
        ([{"speaker": "X", "text": "hi"}], "turn 0: speaker must be 'U'"),
        ([{"speaker": "U"}], "turn 0: text must be"),
        ([{"speaker": "U", "text": "hi"}, {"speaker": "S", "text": "Hello."}], "last turn must be the user's"),
        (["x" * (MAX_TURN_CHARS + 1)], "more than the 8,000"),
        (["Is there wifi \ud800 at the hotel?"], "turn 0: text is not valid Unicode"),
        (["Hello.", "Hi!", "?!"], "turn 2: the user's turn has no letter or digit"),
        ([Turn("user", "Is it quiet?", nbest="abc")], "turn 0: nbest must be a list of"),
        ([Turn("user", "Is it quiet?", nbest=((None, 1.0),))], "turn 0: nbest must be a list of"),
    ],
)
def test_bad_dialogues_are_refused_naming_the_turn(grounder, dialogue, message):
    with pytest.raises(InputError, match=message):
        grounder.respond(dialogue)


def test_respond_many_names_the_dialogue(grounder):
    with pytest.raises(InputError, match="dialogue 1: turn 0"):
        grounder.respond_many([["Is it quiet?"], [""]])
    with pytest.raises(InputError, match="non-empty list"):
        grounder.respond_many([])


def test_load_reads_a_saved_model_and_knowledge_file_or_dir(grounder, synthetic, tmp_path):
    save_model(grounder.model, tmp_path / "model", "fp")
    root = write_synthetic(tmp_path / "data")
    dialogue = dicts(synthetic.contexts[1])
    for knowledge in (root, root / "knowledge.json", synthetic.knowledge):
        loaded = Grounder.load(tmp_path / "model", knowledge)
        assert loaded.respond(dialogue) == grounder.respond(dialogue)
    with pytest.raises(ModelError, match="no meta.json"):
        Grounder.load(tmp_path / "data", root)
    with pytest.raises(InputError, match="model_dir must be a path"):
        Grounder.load(5, root)
    with pytest.raises(InputError, match="knowledge .* must be a path"):
        Grounder.load(tmp_path / "model", {"hotel": {}})


def test_a_model_of_the_other_task_is_named_as_such(grounder, synthetic, tmp_path):
    import shutil

    from clarion.clariq.clarifier import Clarifier

    save_model(grounder.model, tmp_path / "dstc", "fp")
    with pytest.raises(ModelError, match="a DSTC model, not a ClariQ one"):
        Clarifier.load(tmp_path / "dstc")
    clariq_like = tmp_path / "clariq"  # a finished model directory holding a question ranker, no state.json
    (clariq_like / "ranker").mkdir(parents=True)
    shutil.copy(tmp_path / "dstc" / "meta.json", clariq_like / "meta.json")
    with pytest.raises(ModelError, match="a ClariQ model, not a DSTC one"):
        Grounder.load(clariq_like, synthetic.knowledge)


def test_load_trains_the_default_model_when_absent(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("CLARION_TINY", "1")
    monkeypatch.setenv("CLARION_CACHE_DIR", str(tmp_path / "cache"))
    write_synthetic(tmp_path / "data" / "dstc11_track5")
    first = Grounder.load(data_dir=tmp_path / "data")
    assert "training it on dstc11_track5" in capsys.readouterr().err
    again = Grounder.load(data_dir=tmp_path / "data")
    assert capsys.readouterr().err == "" and again.directory == first.directory
    assert again.respond(["Is the staff friendly at Alpha Lodge?"]).knowledge_seeking


def test_load_refuses_a_progress_that_is_not_callable(synthetic, tmp_path):
    with pytest.raises(InputError, match="progress must be a callable"):
        Grounder.load(tmp_path / "model", synthetic.knowledge, progress=None)


def test_naming_the_place_in_the_question_does_not_change_what_is_selected(grounder, monkeypatch):
    """Selection reads the user's turn without entity names (the tracker already knows the place): a review that
    merely shares the name must not outrank the one that answers ("Are the rooms at the Acorn Guest House clean?"
    had been answered with quiet-room reviews). Here the parking FAQ repeats the name."""
    seen = []
    answer = DstcModel._answer

    def spy(self, index, q_emb, q_tfidf, *args, **kwargs):
        seen.append((np.array(q_emb), q_tfidf.toarray()))
        return answer(self, index, q_emb, q_tfidf, *args, **kwargs)

    monkeypatch.setattr(DstcModel, "_answer", spy)
    opening = ["I want a hotel number 1 for clean.", "Alpha Lodge is a good choice."]
    plain = grounder.respond([*opening, "Are the bathrooms clean?"])
    named = grounder.respond([*opening, "Are the bathrooms at Alpha Lodge clean?"])
    assert len(seen) == 2 and all(np.array_equal(a, b) for a, b in zip(*seen, strict=True))
    assert plain.snippets and named == plain

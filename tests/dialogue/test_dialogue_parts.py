"""State reading, answer understanding, question choice, the simulator, the collection and the run writer."""

from __future__ import annotations

import numpy as np
import pytest
from dialogue_fakes import BANK, bow_encode

from clarion.dialogue.choose import QuestionChooser
from clarion.dialogue.state import as_question, check_turns, read_state
from clarion.errors import DataError
from clarion.types import Candidate


def test_state_starts_over_after_an_answer():
    turns = check_turns(
        [
            {"role": "user", "text": "hip roof"},
            {"role": "system", "text": "Do you want pictures?"},
            {"role": "user", "text": "yes"},
            {"role": "system", "text": "Here are pictures of hip roofs."},
            {"role": "user", "text": "lump in the throat"},
        ]
    )
    state = read_state(turns, lambda text: None)
    assert state.request == "lump in the throat" and state.exchanges == ()


def test_state_reads_exchanges_and_bank_ids():
    ids = {"are you interested in more than one hip roof design": "Q1"}
    turns = check_turns(
        [
            {"role": "user", "text": "hip roof"},
            {"role": "system", "text": "Are you interested in more than one hip roof design?"},
            {"role": "user", "text": "no"},
        ]
    )
    state = read_state(turns, lambda t: ids.get(t.lower().rstrip("?")))
    assert state.request == "hip roof" and state.asked == ("Q1",) and state.pending


def test_turns_may_be_mappings_or_turns_and_are_read_as_turns():
    from clarion.errors import InputError
    from clarion.types import Turn

    mixed = check_turns(
        [Turn("user", "hip roof"), {"role": "system", "text": "Pictures?"}, {"role": "user", "text": "yes"}]
    )
    assert mixed == [Turn("user", "hip roof"), Turn("system", "Pictures?"), Turn("user", "yes")]
    with pytest.raises(InputError, match=r"turns\[1\]: expected an object with role and text"):
        check_turns([Turn("user", "hip roof"), "yes"])


def test_as_question():
    assert as_question("do you want pictures") == "Do you want pictures?"


def test_answers_flip_the_query(bow_rewriter):
    """The same question, accepted or turned down with content of the user's own, gives different queries."""
    request, question = "Tell me about hip roof design.", "are you interested in more than one hip roof design"
    refused, chosen_refused, _ = bow_rewriter.rewrite(request, question, "no, I just want pictures of one")
    accepted, _, _ = bow_rewriter.rewrite(request, question, "yes")
    assert "pictures" in refused and "pictures" not in accepted
    assert "hip roof design" in refused and "hip roof design" in accepted  # the topic is kept, its frame may go
    throat, _, _ = bow_rewriter.rewrite(
        "lump in throat", "would you like to know how to fix a lump in the throat", "yes, what the remedies are"
    )
    assert "remedies" in throat


def test_rewriter_cross_validation_is_recorded(bow_rewriter):
    cv = bow_rewriter.meta["cv"]
    assert 0 < cv["chosen"] <= cv["oracle"] <= 1 and "P+A" in cv


def test_chooser_skips_asked_rewordings_and_ruled_out():
    chooser = QuestionChooser(list(BANK), bow_encode(list(BANK.values())))
    proposals = [Candidate("Q00001", "", 11.0)] + [Candidate(q, t, 10.0 - i) for i, (q, t) in enumerate(BANK.items())]
    assert chooser.choose(proposals, [], []).question.id == "Q1"
    second = chooser.choose(proposals, ["Q1"], []).question.id
    assert second not in ("Q1", "Q4", "Q00001")
    assert chooser.choose(proposals[:1], [], []) is None  # "ask nothing" is not a question


def test_chooser_drops_questions_like_a_refused_one():
    bank = {"A": "do you want pictures of hip roofs", "B": "do you want pictures of hip roof designs", "C": "cost"}
    chooser = QuestionChooser(list(bank), bow_encode(list(bank.values())))
    proposals = [Candidate(q, t, 3.0 - i) for i, (q, t) in enumerate(bank.items())]
    assert chooser.choose(proposals, ["A"], ["A"]).question.id == "C"


def test_simulator_answers_recorded_then_learned(clariq_dir):
    from clarion.data.clariq import ClariQ
    from clarion.dialogue.simulate import UserSimulator

    data = ClariQ(clariq_dir)
    train = data.labels("train")
    small = train.only(list(train.requests)[:20])
    simulator = UserSimulator.fit(small, small, bow_encode)
    facet, qid = next((f, q) for (f, q), a in small.answers.items() if a.strip() and q != "Q00001")
    assert simulator.answer(facet, small.question_text[qid], qid) == small.answers[(facet, qid)]
    assert simulator.answer(facet, "would you like a recipe for banana bread", None) in ("yes", "no")


def test_collection_search_and_bad_lines(tmp_path, documents_file, bow_dense):
    from clarion.retrieve.collection import Collection, read_documents

    hits = Collection.load(documents_file).search("remedies for a throat lump", k=2)
    assert hits[0].id == "d3" and hits[0].score >= hits[1].score
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"id": "x", "text": "fine"}\n{"id": "x", "text": "again"}\n')
    with pytest.raises(DataError, match=r"bad.jsonl:2: id"):
        read_documents(bad)
    bad.write_text('{"id": "y", "text": ""}\n')
    with pytest.raises(DataError, match=r"bad.jsonl:1: text"):
        read_documents(bad)


def test_multi_turn_run_lines(make_assistant, tmp_path):
    import json

    from clarion.data.clariq import read_multi_turn_run
    from clarion.dialogue.runs import write_run

    contexts = {
        "7": {"initial_request": "hip roof", "conversation_context": []},
        "8": {
            "initial_request": "hip roof",
            "conversation_context": [{"question": BANK["Q1"], "answer": "no"}],
        },
    }
    path = tmp_path / "contexts.json"
    path.write_text(json.dumps(contexts))
    out = tmp_path / "run"
    assert write_run(make_assistant(), path, out) == 2
    rows = read_multi_turn_run(out)
    assert [r.query_id for r in rows] == ["7", "8"]
    assert rows[0].doc_id == BANK["Q1"] and rows[1].doc_id not in (BANK["Q1"], BANK["Q4"])
    assert np.isfinite(rows[1].score)


def test_bare_no_keeps_the_topic(bow_rewriter):
    request, question = "Tell me about hip roof design.", "are you interested in more than one hip roof design"
    for answer in ("no", "No.", "nope", "i dont know"):
        query, _, _ = bow_rewriter.rewrite(request, question, answer)
        assert "hip roof design" in query.lower(), (answer, query)


def test_request_frame_is_learned_from_requests_and_left_out_of_pc():
    from clarion.dialogue.understand import Features, Vocabulary

    requests = [f"Tell me about {topic}." for topic in ("hip roofs", "dinosaurs", "the moon", "jaguars")]
    vocabulary = Vocabulary.learn(["do you want pictures"], ["yes"], share=0.5, requests=requests)
    assert {"tell", "me", "about"} <= set(vocabulary.request_frame) and "dinosaurs" not in vocabulary.request_frame
    parts = Features(vocabulary).parts("Tell me about hip roof design.", "do you want pictures", "no, just one")
    assert parts["P"] == "Tell me about hip roof design." and parts["Pc"] == "hip roof design"
    assert Vocabulary.learn(["q"], ["a"]).request_frame == []  # no requests given: Pc is the whole query


def test_a_content_only_candidate_keeps_the_topic_only_when_there_is_content():
    from clarion.dialogue.understand import Rewriter

    assert Rewriter.keeps_topic({"Pc": "hip roof", "Ac": ""}, "Pc+A")
    assert not Rewriter.keeps_topic({"Pc": "", "Ac": ""}, "Pc+A")  # a request all frame words, a bare "no"
    assert Rewriter.keeps_topic({"Pc": "", "Ac": "pictures"}, "Pc+A")
    assert Rewriter.keeps_topic({"Pc": "", "Ac": ""}, "P+A")


def test_a_rewriter_of_another_feature_set_is_refused_in_one_line(bow_rewriter, tmp_path):
    import json

    from clarion.dialogue.training import load, save
    from clarion.store import write_meta

    save(bow_rewriter, tmp_path)
    write_meta(tmp_path, {}, "data", {})
    assert load(tmp_path).rewrite("hip roof", "do you want pictures", "yes") == bow_rewriter.rewrite(
        "hip roof", "do you want pictures", "yes"
    )
    vocabulary = json.loads((tmp_path / "vocabulary.json").read_text())
    vocabulary["common"].append("another")  # one feature more than the saved model was trained with
    (tmp_path / "vocabulary.json").write_text(json.dumps(vocabulary))
    with pytest.raises(DataError, match="rewriter.txt: an answer-understanding model with") as err:
        load(tmp_path)
    assert "\n" not in str(err.value)

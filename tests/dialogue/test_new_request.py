"""Replies that start a new request instead of answering the question."""

from __future__ import annotations

import numpy as np
from dialogue_fakes import bow_encode

from clarion.data.ambiguous import read_followups
from clarion.dialogue.new_request import FEATURES, NewRequestDetector, features, restarted
from clarion.dialogue.state import Exchange, State


def test_the_follow_up_set_is_read_and_has_both_kinds():
    rows = read_followups()
    assert len(rows) >= 200 and 0.3 < np.mean([r.new_request for r in rows]) < 0.6
    assert all(r.understood for r in rows)


def test_features_see_how_far_the_reply_is_from_the_request_and_question():
    X = features(
        ["dinosaurs", "dinosaurs"],
        ["which aspect of dinosaurs do you mean?"] * 2,
        ["dinosaurs extinction", "book a flight to paris"],
        encode=bow_encode,
    )
    assert X.shape == (2, len(FEATURES))
    cos_request = FEATURES.index("cos_request")
    assert X[0, cos_request] > 0.5 and X[1, cos_request] == 0.0


def test_the_detector_learns_from_labelled_replies():
    rows = read_followups()
    X = features([r.request for r in rows], [r.question for r in rows], [r.reply for r in rows], encode=bow_encode)
    y = np.asarray([r.new_request for r in rows], dtype=int)
    train = np.arange(len(y)) % 4 != 0
    detector = NewRequestDetector.fit(X[train], y[train])
    accuracy = np.mean((detector.probability(X[~train]) >= 0.5) == y[~train])
    assert accuracy > max(y[~train].mean(), 1 - y[~train].mean()) + 0.1  # well above always saying the majority
    again = NewRequestDetector.from_arrays(detector.arrays("x_"), "x_")
    assert np.allclose(again.probability(X[:5]), detector.probability(X[:5]))


def test_restarted_reads_from_the_last_new_request():
    state = State(
        "dinosaurs",
        (Exchange("Which aspect?", "their extinction"), Exchange("Anything else?", "book a flight to paris")),
        "book a flight to paris",
        True,
    )
    read, found = restarted(state, lambda request, question, reply: "flight" in reply)
    assert found and read.request == "book a flight to paris" and read.exchanges == () and not read.pending
    same, found = restarted(state, lambda *_: False)
    assert same is state and not found


def test_encode_known_takes_the_embeddings_given_and_encodes_the_others_in_order(monkeypatch):
    import clarion.retrieve.dense as dense
    from clarion.dialogue.new_request import encode_known

    asked = []

    def fake_encode(texts, batch_size=None):
        asked.extend(texts)
        return np.asarray([[float(len(t)), 1.0] for t in texts], dtype=np.float32)

    monkeypatch.setattr(dense, "encode_queries", fake_encode)
    known = np.asarray([9.0, 9.0], dtype=np.float32)
    out = encode_known(["a", "bb", "ccc"], [None, known, None])
    assert asked == ["a", "ccc"]  # the known text is not encoded
    assert out.tolist() == [[1.0, 1.0], [9.0, 9.0], [3.0, 1.0]]
    assert encode_known(["x"], [known]).tolist() == [[9.0, 9.0]] and asked == ["a", "ccc"]

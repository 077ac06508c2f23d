"""The model endpoints through TestClient: what they answer, and a one-line 4xx for every kind of bad input."""

from __future__ import annotations

import json

import pytest

from clarion.bounds import MAX_TURN_CHARS
from clarion.serve.config import MAX_BODY_BYTES, MAX_TURNS

AMBIGUOUS = [{"role": "user", "text": "Tell me about hip roofs."}]


def test_health_says_ok_and_lists_the_loaded_models(client):
    response = client.get("/health")
    assert response.status_code == 200
    body = response.json()
    assert body["status"] == "ok" and body["system"] == "clarion"
    assert set(body["features"]) == {"converse", "clarify", "respond", "replies"} and body["evaluation"] is True
    assert body["sources"] is False  # the engine answers with the understood query: never with sources
    assert body["clariq_models"] is None  # the test's stand-in clarifier has no model directory


def test_health_says_which_clariq_models_answer(tmp_path):
    """A first run's starter models are named as such (from the model directory's meta.json)."""
    from types import SimpleNamespace

    from clarion.serve.config import Feature
    from clarion.serve.services import Services
    from clarion.store import write_meta

    def with_model(config):
        directory = tmp_path / str(len(list(tmp_path.iterdir())))
        directory.mkdir()
        write_meta(directory, config, "test")
        return Services({Feature.converse: SimpleNamespace(clarifier=SimpleNamespace(directory=directory))})

    assert with_model({"splits": ["train", "dev"], "starter": True}).clariq_models() == "starter train+dev"
    assert with_model({"splits": ["train"]}).clariq_models() == "train"
    assert Services({}).clariq_models() is None


def test_converse_clarifies_an_ambiguous_request_with_a_bank_question(client):
    response = client.post("/v1/converse", json={"turns": AMBIGUOUS})
    assert response.status_code == 200, response.text
    decision = response.json()
    assert decision["action"] == "clarify"
    assert decision["question_id"] in {"Q1", "Q2", "Q3", "Q4"} and decision["text"].endswith("?")
    assert decision["need"] == 3 and decision["query"]


def test_converse_answers_after_the_answer_to_its_question(client):
    first = client.post("/v1/converse", json={"turns": AMBIGUOUS}).json()
    turns = [*AMBIGUOUS, {"role": "system", "text": first["text"]}, {"role": "user", "text": "yes, pictures please"}]
    decision = client.post("/v1/converse", json={"turns": turns}).json()
    assert decision["action"] in {"clarify", "answer"}
    assert decision["scores"]["questions_asked"] == 1  # the history was read: one question asked so far


def test_converse_answers_a_knowledge_question_with_its_sources(make_client, grounded_services):
    grounded = make_client(grounded_services)
    assert grounded.get("/health").json()["sources"] is True  # answers from a knowledge base
    turns = [{"role": "user", "text": "Is the ALPHA LODGE quiet at night?"}]
    decision = grounded.post("/v1/converse", json={"turns": turns}).json()
    assert decision["action"] == "answer" and decision["text"]
    assert decision["sources"] and all({"id", "title", "text"} <= set(s) for s in decision["sources"])
    which = grounded.post("/v1/converse", json={"turns": [{"role": "user", "text": "Is it quiet at night?"}]}).json()
    assert which["action"] == "clarify" and which["question_id"] is None  # which place? (no bank question)
    assert grounded.get("/health").json()["features"] == ["converse"]


def test_converse_stops_when_the_user_closes(client):
    turns = [*AMBIGUOUS, {"role": "system", "text": "Do you want pictures?"}, {"role": "user", "text": "thanks, bye"}]
    assert client.post("/v1/converse", json={"turns": turns}).json()["action"] == "stop"


def test_clarify_gives_need_and_ranked_questions(client):
    response = client.post("/v1/clarify", json={"request": "How do I build a hip roof?", "k": 3})
    assert response.status_code == 200, response.text
    body = response.json()
    assert body["need"] == 3 and body["should_clarify"] is True and set(body["probabilities"]) == {"1", "2", "3", "4"}
    assert [q["id"] for q in body["questions"]][0] == "Q4" and len(body["questions"]) == 3
    clear = client.post("/v1/clarify", json={"request": "What is the capital of France?", "threshold": 0.5}).json()
    assert clear["need"] == 1 and clear["should_clarify"] is False


def test_respond_grounds_a_knowledge_seeking_turn(client):
    turns = [{"role": "user", "text": "Is the ALPHA LODGE quiet at night?"}]
    body = client.post("/v1/respond", json={"turns": turns}).json()
    assert body["target"] is True and body["response"]
    assert body["knowledge"] and body["knowledge"][0]["domain"] == "hotel"
    booking = client.post("/v1/respond", json={"turns": [{"role": "user", "text": "Please book it for 3 people."}]})
    assert booking.status_code == 200 and booking.json()["target"] is False


def test_replies_are_scored_and_ordered(client):
    context = ["I am planning a trip to Italy.", "Where should I go first?"]
    replies = ["Purple elephants calculate quietly.", "Start in Rome, then travel north to Florence and Venice."]
    body = client.post("/v1/replies/rank", json={"context": context, "replies": replies}).json()
    assert len(body["scores"]) == 2 and body["order"] == [1, 0]
    assert body["scores"][1] > body["scores"][0]


@pytest.mark.parametrize(
    "body, words",
    [
        ({"context": [], "replies": ["a"]}, "context"),
        ({"context": ["hi"], "replies": []}, "replies"),
        ({"context": ["hi"], "replies": [""]}, "replies.0"),
        ({"context": ["hi"], "replies": ["a"] * (MAX_TURNS + 1)}, "replies"),
        ({"context": "hi", "replies": ["a"]}, "context"),
    ],
)
def test_bad_reply_ranking_requests_get_a_422(client, body, words):
    response = client.post("/v1/replies/rank", json=body)
    assert response.status_code == 422 and words in response.json()["detail"]


def test_an_endpoint_whose_model_is_not_loaded_answers_503(make_client, grounded_services):
    only_converse = make_client(grounded_services)
    response = only_converse.post("/v1/replies/rank", json={"context": ["hi"], "replies": ["hello", "no"]})
    assert response.status_code == 503 and "not loaded" in response.json()["detail"]
    assert only_converse.post("/v1/clarify", json={"request": "hip roofs"}).status_code == 503


BAD_CONVERSATIONS = {
    "empty conversation": ({"turns": []}, 422, "turns"),
    "no turns field": ({}, 422, "turns: Field required"),
    "ends with the system": ({"turns": [*AMBIGUOUS, {"role": "system", "text": "Hi"}]}, 422, "last turn"),
    "unknown role": ({"turns": [{"role": "bot", "text": "Hi"}]}, 422, "turns.0.role"),
    "blank text": ({"turns": [{"role": "user", "text": "   "}]}, 422, "turns.0.text"),
    "empty text": ({"turns": [{"role": "user", "text": ""}]}, 422, "turns.0.text"),
    "text not a string": ({"turns": [{"role": "user", "text": 5}]}, 422, "turns.0.text"),
    "turn too long": (
        {"turns": [{"role": "user", "text": "a" * (MAX_TURN_CHARS + 1)}]},
        422,
        f"at most {MAX_TURN_CHARS}",
    ),
    "too many turns": ({"turns": [{"role": "user", "text": "hi"}] * (MAX_TURNS + 1)}, 422, "at most 50"),
    "unknown field": ({"turns": AMBIGUOUS, "session": 1}, 422, "session"),
    "turns not a list": ({"turns": "hello"}, 422, "turns"),
    "body not an object": ([1, 2], 422, "body"),
}


@pytest.mark.parametrize("endpoint", ["/v1/converse", "/v1/respond"])
@pytest.mark.parametrize("case", list(BAD_CONVERSATIONS))
def test_bad_conversations_get_a_one_line_4xx(client, endpoint, case):
    body, status, words = BAD_CONVERSATIONS[case]
    response = client.post(endpoint, json=body)
    assert response.status_code == status, response.text
    detail = response.json()["detail"]
    assert isinstance(detail, str) and "\n" not in detail and words in detail


def test_a_turn_the_engine_refuses_is_a_422_naming_it(client):
    """A text that passes the schema but not the engine (no letter or digit to answer) is refused by the engine."""
    response = client.post("/v1/respond", json={"turns": [{"role": "user", "text": "?!"}]})
    assert response.status_code == 422 and "turn 0" in response.json()["detail"]


@pytest.mark.parametrize(
    "body, words",
    [
        ({"request": ""}, "request"),
        ({"request": "hip roofs", "k": 0}, "k:"),
        ({"request": "hip roofs", "k": 50}, "k must be at most"),  # beyond what the model ranks: the model says so
        ({"request": "hip roofs", "threshold": 0}, "threshold"),
        ({"request": "hip roofs", "threshold": "high"}, "threshold"),
        ({"request": "x" * (MAX_TURN_CHARS + 1)}, "request"),
    ],
)
def test_bad_clarify_requests_get_a_422(client, body, words):
    response = client.post("/v1/clarify", json=body)
    assert response.status_code == 422, response.text
    assert words in response.json()["detail"]


@pytest.mark.parametrize("raw", [b"{", b'{"turns": [}', b"not json", b"\xff\xfe", b""])
def test_malformed_json_gets_a_400(client, raw):
    response = client.post("/v1/converse", content=raw, headers={"content-type": "application/json"})
    assert response.status_code in (400, 422), response.text
    assert response.json()["detail"]
    if raw:
        assert response.status_code == 400 and response.json()["detail"].startswith("malformed JSON")


def test_an_oversized_body_gets_a_413_and_the_server_goes_on(client):
    turns = [{"role": "user", "text": "a" * (MAX_BODY_BYTES + 1)}]
    response = client.post("/v1/converse", json={"turns": turns})
    assert response.status_code == 413 and f"{MAX_BODY_BYTES:,} bytes" in response.json()["detail"]

    def chunks():  # no Content-Length: the limit is checked as the body streams in
        for _ in range(MAX_BODY_BYTES // 1024 + 2):
            yield b" " * 1024

    streamed = client.post("/v1/converse", content=chunks(), headers={"content-type": "application/json"})
    assert streamed.status_code == 413
    assert client.post("/v1/converse", json={"turns": AMBIGUOUS}).status_code == 200


def test_a_body_just_under_the_limit_is_read(client):
    padding = " " * (MAX_BODY_BYTES - 200)
    raw = json.dumps({"turns": AMBIGUOUS}).encode()[:-1] + padding.encode() + b"}"
    assert len(raw) <= MAX_BODY_BYTES
    response = client.post("/v1/converse", content=raw, headers={"content-type": "application/json"})
    assert response.status_code == 200, response.text


def test_a_request_of_the_longest_accepted_length_is_answered(client):
    text = ("Tell me about dinosaurs, their extinction and the museums that show them. " * 120)[:MAX_TURN_CHARS]
    response = client.post("/v1/converse", json={"turns": [{"role": "user", "text": text}]})
    assert response.status_code == 200, response.text


def test_the_pages_take_as_long_a_message_as_the_service(client):
    import re

    for page in ("/", "/eval"):
        html = client.get(page).text
        assert re.findall(r'maxlength="(\d+)"', html) and set(re.findall(r'maxlength="(\d+)"', html)) == {
            str(MAX_TURN_CHARS)
        }, page


def test_openapi_documents_every_endpoint(client):
    paths = client.get("/openapi.json").json()["paths"]
    for path in ("/health", "/v1/converse", "/v1/clarify", "/v1/respond", "/v1/replies/rank", "/v1/eval/sessions"):
        assert path in paths
    assert client.get("/docs").status_code == 200

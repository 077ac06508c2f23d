"""The evaluation endpoints: sessions, turns stored as they happen, ratings, finish, export behind a token."""

from __future__ import annotations

import json
import sqlite3

import pytest

from clarion.bounds import MAX_TURN_CHARS

TOKEN = "a-token-of-sixteen+"


def _start(client, **body) -> dict:
    response = client.post("/v1/eval/sessions", json=body)
    assert response.status_code == 200, response.text
    return response.json()


def _rows(db, sql, *args):
    """Read the database from another connection, as another process would: only committed data shows."""
    with sqlite3.connect(db) as other:
        return other.execute(sql, args).fetchall()


@pytest.fixture(scope="module")
def eval_client(make_client, tmp_path_factory):
    db = tmp_path_factory.mktemp("eval") / "eval.sqlite"
    return make_client(db=db, admin_token=TOKEN), db


def test_a_session_is_chatted_rated_finished_and_stored_as_it_goes(eval_client):
    client, db = eval_client
    started = _start(client, kind="clariq")
    session, need = started["session_id"], started["need"]
    assert need["kind"] == "clariq" and need["text"] and need["level"] in {"2", "3"}
    reply = client.post(f"/v1/eval/sessions/{session}/turns", json={"text": "Tell me about hip roofs."}).json()
    assert reply["index"] == 1 and reply["decision"]["action"] == "clarify"
    # committed before the reply came back: another connection sees both turns
    assert _rows(db, "SELECT idx, role FROM turns WHERE session_id = ? ORDER BY idx", session) == [
        (0, "user"),
        (1, "system"),
    ]
    second = client.post(f"/v1/eval/sessions/{session}/turns", json={"text": "yes, pictures of them"}).json()
    assert second["index"] == 3 and second["decision"]["scores"]["questions_asked"] == 1  # the stored history was read
    for index, useful in ((1, True), (3, False)):
        rated = client.post(
            f"/v1/eval/sessions/{session}/ratings", json={"index": index, "useful": useful, "natural": True}
        )
        assert rated.status_code == 200, rated.text
    again = client.post(f"/v1/eval/sessions/{session}/ratings", json={"index": 3, "useful": True, "natural": False})
    assert again.status_code == 200  # a second rating of a turn replaces the first
    assert _rows(db, "SELECT idx, useful, natural FROM turn_ratings WHERE session_id = ? ORDER BY idx", session) == [
        (1, 1, 1),
        (3, 1, 0),
    ]
    done = client.post(f"/v1/eval/sessions/{session}/finish", json={"rating": 4, "satisfied": True, "comment": "ok"})
    assert done.json() == {"session_id": session, "status": "finished"}
    assert _rows(db, "SELECT rating, satisfied, comment FROM sessions WHERE id = ?", session) == [(4, 1, "ok")]
    record = client.get(f"/v1/eval/sessions/{session}").json()
    assert [t["role"] for t in record["turns"]] == ["user", "system", "user", "system"]
    assert record["turns"][3]["rating"] == {"useful": True, "natural": False} and record["rating"] == 4
    assert record["turns"][1]["decision"]["action"] == "clarify" and record["turns"][1]["latency_ms"] > 0
    # a finished session takes nothing more
    for path, body in (("turns", {"text": "hello?"}), ("finish", {"rating": 1, "satisfied": False})):
        late = client.post(f"/v1/eval/sessions/{session}/{path}", json=body)
        assert late.status_code == 409 and "finished" in late.json()["detail"]


def test_needs_are_spread_over_kinds_and_needs(eval_client):
    client, _ = eval_client
    kinds = [_start(client)["need"]["kind"] for _ in range(4)]
    assert set(kinds) == {"clariq", "dstc"}  # the kind with fewer sessions first
    ids = {_start(client, kind="dstc")["need"]["id"] for _ in range(2)}
    assert len(ids) == 2  # the least-used scenario first: two new sessions, two scenarios


@pytest.mark.parametrize(
    "path, body, status, words",
    [
        ("ratings", {"index": 0, "useful": True, "natural": True}, 409, "no system turn 0"),  # a user turn
        ("ratings", {"index": 7, "useful": True, "natural": True}, 409, "no system turn 7"),
        ("ratings", {"index": 1, "useful": "maybe", "natural": True}, 422, "useful"),
        ("ratings", {"index": -1, "useful": True, "natural": True}, 422, "index"),
        ("finish", {"rating": 6, "satisfied": True}, 422, "rating"),
        ("finish", {"rating": 0, "satisfied": True}, 422, "rating"),
        ("finish", {"rating": 3}, 422, "satisfied"),
        ("turns", {"text": ""}, 422, "text"),
        ("turns", {"text": "x" * (MAX_TURN_CHARS + 1)}, 422, "text"),
        ("turns", {"words": "hi"}, 422, "text"),
    ],
)
def test_bad_evaluation_requests_get_a_one_line_4xx(eval_client, path, body, status, words):
    client, _ = eval_client
    session = _start(client)["session_id"]
    client.post(f"/v1/eval/sessions/{session}/turns", json={"text": "Tell me about hip roofs."})
    response = client.post(f"/v1/eval/sessions/{session}/{path}", json=body)
    assert response.status_code == status, response.text
    assert words in response.json()["detail"] and "\n" not in response.json()["detail"]


def test_unknown_and_malformed_sessions(eval_client):
    client, _ = eval_client
    missing = client.post(f"/v1/eval/sessions/{'0' * 32}/turns", json={"text": "hi"})
    assert missing.status_code == 404 and "does not exist" in missing.json()["detail"]
    assert client.get(f"/v1/eval/sessions/{'0' * 32}").status_code == 404
    assert client.post("/v1/eval/sessions/../../etc/turns", json={"text": "hi"}).status_code in (404, 422)
    assert client.post("/v1/eval/sessions/XYZ/turns", json={"text": "hi"}).status_code == 422
    assert client.post("/v1/eval/sessions", json={"kind": "trec"}).status_code == 422


@pytest.mark.parametrize("error, status", [("refused", 422), ("crashed", 500)])
def test_a_turn_the_engine_refuses_or_fails_on_is_taken_back(eval_client, assistant, monkeypatch, error, status):
    from clarion.errors import InputError

    def reply_many(conversations):  # what the service calls, with the concurrent requests gathered
        raise InputError("turns[0].text: refused") if error == "refused" else RuntimeError("engine bug")

    client, db = eval_client
    session = _start(client)["session_id"]
    with monkeypatch.context() as patch:
        patch.setattr(assistant, "reply_many", reply_many)
        failed = client.post(f"/v1/eval/sessions/{session}/turns", json={"text": "hip roofs"})
    assert failed.status_code == status and "\n" not in failed.json()["detail"]
    assert _rows(db, "SELECT COUNT(*) FROM turns WHERE session_id = ?", session) == [(0,)]
    assert client.post(f"/v1/eval/sessions/{session}/turns", json={"text": "hip roofs"}).json()["index"] == 1


def test_a_session_has_at_most_max_turns(eval_client, monkeypatch):
    from clarion.serve import evaluation

    monkeypatch.setattr(evaluation, "MAX_TURNS", 4)
    client, _ = eval_client
    session = _start(client)["session_id"]
    for text in ("Tell me about hip roofs.", "pictures"):
        assert client.post(f"/v1/eval/sessions/{session}/turns", json={"text": text}).status_code == 200
    full = client.post(f"/v1/eval/sessions/{session}/turns", json={"text": "more"})
    assert full.status_code == 409 and "finish it" in full.json()["detail"]


def test_export_needs_the_admin_token(eval_client, make_client):
    client, _ = eval_client
    assert client.get("/v1/eval/export").status_code == 401
    assert client.get("/v1/eval/export", headers={"Authorization": "Bearer wrong-token-of-length"}).status_code == 401
    response = client.get("/v1/eval/export", headers={"Authorization": f"Bearer {TOKEN}"})
    assert response.status_code == 200 and response.headers["content-type"].startswith("application/x-ndjson")
    records = [json.loads(line) for line in response.text.splitlines()]
    assert records and all({"session_id", "system", "need", "turns", "rating", "satisfied"} <= set(r) for r in records)
    assert any(r["rating"] == 4 and r["satisfied"] is True for r in records)
    without = make_client()  # no admin token: export over HTTP is off
    off = without.get("/v1/eval/export", headers={"Authorization": f"Bearer {TOKEN}"})
    assert off.status_code == 404 and "admin token" in off.json()["detail"]


def test_the_pages_are_served_with_their_local_assets_only(client):
    for page in ("/", "/eval"):
        response = client.get(page)
        assert response.status_code == 200 and response.headers["content-type"].startswith("text/html")
        assert "http://" not in response.text and "https://" not in response.text  # nothing from the network
    for asset in ("chat.js", "eval.js", "style.css"):
        served = client.get(f"/static/{asset}")
        assert served.status_code == 200 and "https://" not in served.text

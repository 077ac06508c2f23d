"""The evaluation endpoints (``/v1/eval/...``): a session per evaluator and need, its turns, ratings and finish.

Every turn is stored (committed) as it happens: the user's before the engine is asked, the system's as soon as it
has answered, so a server killed mid-dialogue keeps all that was said. A turn the engine refuses as input (a
one-line 422) or fails on is taken back, so the stored dialogue stays one the engine accepts.
"""

from __future__ import annotations

import hmac
import json
import time
from typing import Annotated

from fastapi import APIRouter, Header, Path, Request
from fastapi.responses import StreamingResponse
from starlette.concurrency import run_in_threadpool

from clarion.serve import schemas
from clarion.serve.api import decide
from clarion.serve.config import MAX_TURNS
from clarion.serve.storage import Conflict, NotFound

router = APIRouter(prefix="/v1/eval", tags=["evaluation"])

SessionId = Annotated[str, Path(pattern=r"^[0-9a-f]{32}$", description="The id POST /v1/eval/sessions returned.")]


@router.post("/sessions", response_model=schemas.EvalSession)
async def start(body: schemas.EvalStart, request: Request) -> dict:
    """A new evaluation session: the information need the evaluator is to satisfy by chatting."""
    state = request.app.state
    system = state.config.system
    counts = await run_in_threadpool(state.store.need_counts, system)
    need = state.needs.choose(counts, body.kind)
    session = await run_in_threadpool(state.store.start, system, need)
    return {"session_id": session, "system": system, "need": need}


@router.post("/sessions/{session_id}/turns", response_model=schemas.EvalReply)
async def turn(session_id: SessionId, body: schemas.EvalTurn, request: Request) -> dict:
    """The evaluator's next turn; the system's reply (rate it by its ``index``)."""
    store = request.app.state.store
    await run_in_threadpool(store.open_session, session_id)
    stored = await run_in_threadpool(store.turns, session_id)
    if len(stored) + 2 > MAX_TURNS:
        raise Conflict(f"session {session_id!r} has reached {MAX_TURNS} turns; finish it")
    user = len(stored)
    await run_in_threadpool(store.add_turn, session_id, user, "user", body.text)
    history = [{"role": t["role"], "text": t["text"]} for t in stored] + [{"role": "user", "text": body.text}]
    began = time.perf_counter()
    try:
        decision = await decide(request, history)
    except BaseException:  # refused or failed: the turn is taken back; the evaluator can send it (or another) again
        await run_in_threadpool(store.drop_turn, session_id, user)
        raise
    latency = (time.perf_counter() - began) * 1000
    await run_in_threadpool(store.add_turn, session_id, user + 1, "system", decision["text"], decision, latency)
    return {"index": user + 1, "decision": decision}


@router.post("/sessions/{session_id}/ratings", response_model=schemas.Done)
async def rate(session_id: SessionId, body: schemas.TurnRating, request: Request) -> dict:
    """Rate one system turn: was it useful, was it natural (a second rating of a turn replaces the first)."""
    await run_in_threadpool(request.app.state.store.rate_turn, session_id, body.index, body.useful, body.natural)
    return {"session_id": session_id, "status": "rated"}


@router.post("/sessions/{session_id}/finish", response_model=schemas.Done)
async def finish(session_id: SessionId, body: schemas.Finish, request: Request) -> dict:
    """Rate the whole dialogue (1-5) and say whether you got what you needed; the session then closes."""
    await run_in_threadpool(request.app.state.store.finish, session_id, body.rating, body.satisfied, body.comment)
    return {"session_id": session_id, "status": "finished"}


@router.get("/sessions/{session_id}")
async def show(session_id: SessionId, request: Request) -> dict:
    """One session as ``clarion eval export`` writes it."""
    record = await run_in_threadpool(request.app.state.store.record, session_id)
    if record is None:
        raise NotFound(f"session {session_id!r} does not exist")
    return record


@router.get("/export", response_class=StreamingResponse)
async def export(request: Request, authorization: Annotated[str | None, Header()] = None):
    """Every session as JSON lines, for ``Authorization: Bearer <admin token>`` only (off without a token)."""
    from fastapi import HTTPException

    token = request.app.state.config.admin_token
    if token is None:
        raise HTTPException(404, "export over HTTP is off: start the server with an admin token")
    given = (authorization or "").removeprefix("Bearer ").strip()
    if not hmac.compare_digest(given.encode(), token.encode()):
        raise HTTPException(401, "a valid admin token is required (Authorization: Bearer <token>)")
    records = await run_in_threadpool(lambda: list(request.app.state.store.export()))
    lines = (json.dumps(r, ensure_ascii=False) + "\n" for r in records)
    return StreamingResponse(lines, media_type="application/x-ndjson")

"""The model endpoints: ``/health``, ``/v1/converse``, ``/v1/clarify``, ``/v1/respond``, ``/v1/replies/rank``."""

from __future__ import annotations

from fastapi import APIRouter, Request

from clarion import __version__
from clarion.serve import schemas
from clarion.serve.config import Feature
from clarion.serve.limits import NotLoaded
from clarion.types import Turn

router = APIRouter()


def _needs(request: Request, feature: Feature):
    services = request.app.state.services
    if not services.has(feature):
        raise NotLoaded(f"{feature.value} is not loaded by this server (start it with that feature)")
    return services


async def decide(request: Request, turns: list[dict[str, str]]) -> dict:
    """The conversation engine's decision for ``turns``, as a plain dict (run in the pool)."""
    _needs(request, Feature.converse)
    decision = await request.app.state.batchers[Feature.converse].submit(turns)
    return decision.to_dict()


@router.get("/health", response_model=schemas.Health, tags=["service"])
async def health(request: Request) -> dict:
    """200 once the models are loaded (the server accepts no request before)."""
    state = request.app.state
    return {
        "status": "ok",
        "version": __version__,
        "system": state.config.system,
        "features": [f.value for f in state.services.models],
        "workers": state.pool.workers,
        "processes": state.config.processes,
        "evaluation": bool(state.needs) and state.services.has(Feature.converse),
        "sources": state.services.sources(),
        "clariq_models": state.clariq_models,
    }


@router.post("/v1/converse", response_model=schemas.Decision, tags=["conversation"])
async def converse(body: schemas.Conversation, request: Request) -> dict:
    """Clarify, answer or stop for the conversation's last user turn. Stateless: send the whole history."""
    return await decide(request, body.as_dicts())


@router.post("/v1/clarify", response_model=schemas.Clarification, tags=["clariq"])
async def clarify(body: schemas.ClarifyRequest, request: Request) -> dict:
    """One request's clarification need (1 clear ... 4 very ambiguous) and best clarifying questions: the object
    ``clarion clariq clarify --json`` prints."""
    _needs(request, Feature.clarify)
    return await request.app.state.batchers[Feature.clarify].submit((body.request, body.k, body.threshold))


@router.post("/v1/respond", response_model=schemas.Grounding, tags=["dstc"])
async def respond(body: schemas.Conversation, request: Request) -> dict:
    """DSTC knowledge-grounded answer for the last user turn: is it knowledge-seeking, which snippets, what
    response (the object ``clarion dstc respond --json`` prints)."""
    from clarion.dstc.assistant import grounding_reply

    services = _needs(request, Feature.respond)
    dialogue = [Turn(t.role, t.text) for t in body.turns]
    reply, _ = await request.app.state.pool.run(services.locked, Feature.respond, grounding_reply, dialogue)
    return reply


@router.post("/v1/replies/rank", response_model=schemas.RankedReplies, tags=["replies"])
async def rank_replies(body: schemas.RankRequest, request: Request) -> dict:
    """Scores of candidate replies to a dialogue context (higher is better) and their order, best first."""
    services = _needs(request, Feature.replies)
    scores = await request.app.state.pool.run(services.call, Feature.replies, "score", body.context, body.replies)
    scores = [float(s) for s in scores]
    order = sorted(range(len(scores)), key=lambda i: (-scores[i], i))
    return {"scores": scores, "order": order}

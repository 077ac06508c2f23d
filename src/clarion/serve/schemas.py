"""The service's request and response bodies (pydantic; FastAPI documents them at ``/docs``).

Limits live here, so a bad body is refused with one line naming the field before any model sees it: a turn's text
is 1 to :data:`~clarion.serve.config.MAX_TURN_CHARS` characters, a conversation 1 to
:data:`~clarion.serve.config.MAX_TURNS` turns ending with the user's, and no body takes fields it does not know.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from clarion.serve.config import MAX_TURN_CHARS, MAX_TURNS

Role = Literal["user", "system"]
Text = Annotated[str, Field(min_length=1, max_length=MAX_TURN_CHARS)]


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


def _has_words(text: str) -> str:
    if not text.strip():
        raise ValueError("must not be blank")
    return text


class Turn(Strict):
    role: Role
    text: Text

    _words = field_validator("text")(_has_words)


class Conversation(Strict):
    """The conversation so far, oldest turn first, ending with the user's (the service keeps no history)."""

    turns: list[Turn] = Field(min_length=1, max_length=MAX_TURNS)

    @field_validator("turns")
    @classmethod
    def _ends_with_user(cls, turns: list[Turn]) -> list[Turn]:
        if turns[-1].role != "user":
            raise ValueError("the last turn must be the user's (role 'user')")
        return turns

    def as_dicts(self) -> list[dict[str, str]]:
        return [{"role": t.role, "text": t.text} for t in self.turns]


class Source(BaseModel):
    id: str
    title: str = ""
    text: str = ""


class Decision(BaseModel):
    """What the assistant does next: ``clarify`` (``text`` is the question), ``answer`` (``text`` grounded in
    ``sources``) or ``stop``; ``query`` is the user's need as understood so far, as one standalone search query."""

    model_config = ConfigDict(extra="allow")

    action: str
    text: str
    query: str = ""
    need: int | None = None
    question_id: str | None = None
    sources: list[Source] = Field(default_factory=list)
    scores: dict[str, Any] = Field(default_factory=dict)
    options: list[str] = Field(default_factory=list, description="The options a clarifying question offers.")
    understood: str = Field("", description="The query as a person would write it (no yes/no, no repeats).")


class ClarifyRequest(Strict):
    request: Text
    k: int = Field(5, ge=1, le=101, description="Clarifying questions to return (at most shortlist + 1).")
    threshold: float = Field(0.5, gt=0, le=1, description="Ask when P(need >= 2) reaches this.")

    _words = field_validator("request")(_has_words)


class Question(BaseModel):
    id: str
    text: str
    score: float


class KnownRequest(BaseModel):
    request: str
    cosine: float


class Clarification(BaseModel):
    """The same object as ``clarion clariq clarify --json``."""

    need: int
    ranked_as: KnownRequest | None
    whole_bank: bool
    probabilities: dict[str, float]
    should_clarify: bool
    fits: bool
    questions: list[Question]


class Knowledge(BaseModel):
    model_config = ConfigDict(extra="allow")

    domain: str
    entity_id: int | str
    doc_id: int
    entity_name: str | None = None
    text: str


class Grounding(BaseModel):
    """The same object as ``clarion dstc respond --json``: the DSTC tasks' target, knowledge and response."""

    target: bool
    knowledge: list[Knowledge]
    response: str | None


class RankRequest(Strict):
    context: list[Text] = Field(min_length=1, max_length=MAX_TURNS)
    replies: list[Text] = Field(min_length=1, max_length=MAX_TURNS)


class RankedReplies(BaseModel):
    scores: list[float]
    order: list[int]


class Health(BaseModel):
    status: Literal["ok"]
    version: str
    system: str
    features: list[str]
    workers: int
    processes: int = Field(description="server processes behind the port (clarion serve --processes), this one of them")
    evaluation: bool
    sources: bool = Field(
        description="whether the engine's answers can come with sources (a knowledge base or documents is loaded)"
    )
    clariq_models: str | None = Field(
        default=None,
        description='the ClariQ models that answer: "train+dev", "train", or "starter train+dev" (the lighter models '
        "a first run trains when none is cached; `clarion chat --prepare` trains the full ones)",
    )


class Need(BaseModel):
    """An information need an evaluator is asked to satisfy by chatting."""

    kind: str
    id: str
    level: str
    text: str
    opener: str | None = None


class EvalStart(Strict):
    kind: str | None = Field(None, max_length=20, description="clariq or dstc; default: the least-rated need.")


class EvalSession(BaseModel):
    session_id: str
    system: str
    need: Need


class EvalTurn(Strict):
    text: Text

    _words = field_validator("text")(_has_words)


class EvalReply(BaseModel):
    index: int = Field(description="The system turn's index in the session (rate it by this index).")
    decision: Decision


class TurnRating(Strict):
    index: int = Field(ge=0, lt=MAX_TURNS)
    useful: bool
    natural: bool


class Finish(Strict):
    rating: int = Field(ge=1, le=5, description="The whole dialogue, 1 (bad) to 5 (excellent).")
    satisfied: bool = Field(description="Did you get what you needed?")
    comment: str = Field("", max_length=MAX_TURN_CHARS)


class Done(BaseModel):
    session_id: str
    status: str

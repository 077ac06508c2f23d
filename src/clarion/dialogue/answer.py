"""Answering once the need is clear: from a document collection, a DSTC knowledge base, or with the query alone.

Every answerer returns an :class:`Answer` (what the system says and the sources behind it), or ``None`` when it has
nothing to say for the turn, in which case the engine answers with the resolved query. A DSTC knowledge base
answers through :class:`clarion.dstc.assistant.Grounder`; its "which place do you mean?" reply is a clarifying
question (:attr:`Answer.clarify`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from clarion.types import Turn


@dataclass(frozen=True)
class Answer:
    text: str
    sources: list[dict] = field(default_factory=list)
    clarify: bool = False
    scores: dict = field(default_factory=dict)


def query_answer(query: str) -> Answer:
    """With neither knowledge nor documents: what the assistant would search for."""
    return Answer(f"Searching for: {query}")


class DocumentAnswerer:
    """The best passage of a :class:`~clarion.retrieve.collection.Collection` for the query, citing its id."""

    def __init__(self, collection):
        self.collection = collection

    def __call__(self, turns: Sequence[Mapping[str, str]], query: str) -> Answer | None:
        hits = self.collection.search(query, k=1)
        if not hits:
            return None
        doc = hits[0].document
        head = f"{doc.title}: " if doc.title else ""
        return Answer(f"{head}{doc.text} [{doc.id}]", [doc.to_dict()], scores={"document_score": hits[0].score})


def _asks_which(response: str | None, snippets: Sequence) -> bool:
    """Whether the Grounder's reply asks which place is meant: a question with no knowledge behind it."""
    return bool(response) and not snippets and response.rstrip().endswith("?")


class KnowledgeAnswerer:
    """The DSTC Grounder's grounded answer for a knowledge-seeking turn (None for any other turn)."""

    reads_turns = True

    def __init__(self, grounder):
        self.grounder = grounder

    def __call__(self, turns: Sequence[Turn], query: str) -> Answer | None:
        reply = self.grounder.respond(turns)
        if not reply.knowledge_seeking or not reply.response:
            return None
        sources = [
            {"id": "/".join(str(part) for part in s.key), "title": s.entity_name or s.title, "text": s.text}
            for s in reply.snippets
        ]
        clarify = _asks_which(reply.response, reply.snippets)
        return Answer(reply.response, sources, clarify, {"knowledge_seeking": True, "snippets": len(sources)})

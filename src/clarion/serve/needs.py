"""Information needs shown to evaluators (ClariQ Stage 2's protocol: a person is given a need, then chats).

Two kinds, both read from data, never written by hand:

- ``clariq``: a facet of a ClariQ dev topic. The evaluator sees the facet's description (what they really want) and
  the topic's initial request as a suggested opening; the need level is the topic's clarification need (1-4).
- ``dstc``: a scenario from the served knowledge base: a place and one of its FAQ questions ("You are considering
  <place> (<domain>). Find out: <question>"); need level ``scenario``.

A new session gets the kind with the fewest sessions so far, then, of that kind, a need with the fewest (ties
broken at random), so ratings spread over the needs.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from pathlib import Path

from clarion.errors import InputError

DSTC_LEVEL = "scenario"


def clariq_needs(data_dir: str | Path | None = None, split: str = "dev") -> list[dict]:
    """One need per facet of the ``split`` topics."""
    from clarion.data.clariq import ClariQ

    labels = ClariQ.load(data_dir).labels(split)
    return [
        {
            "kind": "clariq",
            "id": facet,
            "level": str(labels.need[topic]),
            "text": labels.facet_desc[facet],
            "opener": request,
        }
        for topic, request in labels.requests.items()
        for facet in labels.facets[topic]
        if labels.facet_desc.get(facet, "").strip()
    ]


def dstc_needs(knowledge) -> list[dict]:
    """One scenario per named entity's FAQ in ``knowledge`` (a :class:`clarion.data.dstc.Knowledge`)."""
    out = []
    for snippet in knowledge.snippets():
        if snippet.sent_id is not None or not snippet.title.strip() or not snippet.entity_name:
            continue
        out.append(
            {
                "kind": "dstc",
                "id": "/".join(str(part) for part in snippet.key),
                "level": DSTC_LEVEL,
                "text": f"You are considering {snippet.entity_name} ({snippet.domain}). Find out: {snippet.title}",
                "opener": None,
            }
        )
    return out


class NeedPool:
    """The needs a server offers, by kind, and the least-covered choice."""

    def __init__(self, needs: list[dict], seed: int | None = None):
        self.by_kind: dict[str, list[dict]] = {}
        for need in needs:
            self.by_kind.setdefault(need["kind"], []).append(need)
        self._random = random.Random(seed)

    def __bool__(self) -> bool:
        return bool(self.by_kind)

    def choose(self, counts: dict[str, int], kind: str | None = None) -> dict:
        """A need of ``kind`` (any kind when None) with the fewest sessions in ``counts`` (need id -> sessions)."""
        if kind is not None and kind not in self.by_kind:
            offered = ", ".join(sorted(self.by_kind)) or "none"
            raise InputError(f"kind must be one of the needs this server offers ({offered}), got {kind!r}")
        if not self.by_kind:
            raise InputError("this server has no information needs to offer (no ClariQ data, no knowledge base)")
        used: Callable[[str], int] = lambda k: sum(counts.get(n["id"], 0) for n in self.by_kind[k])  # noqa: E731
        chosen_kind = kind or min(sorted(self.by_kind), key=used)
        needs = self.by_kind[chosen_kind]
        fewest = min(counts.get(n["id"], 0) for n in needs)
        return dict(self._random.choice([n for n in needs if counts.get(n["id"], 0) == fewest]))

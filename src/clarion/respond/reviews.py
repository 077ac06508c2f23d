"""Answers made from a place's reviews themselves: a dish asked about, what guests disliked or liked.

A mixin of :class:`clarion.dstc.models.pipeline.DstcModel` (rules ``dish_answers``, ``downsides``, ``upsides``,
``detail_penalty``).
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cached_property

from clarion.data.dstc import Label, Snippet, key_entities
from clarion.dialogue.entities import EntityTracker
from clarion.respond.faq_answers import dishes
from clarion.respond.follow_up import closed, follow_up_for
from clarion.respond.names import display_name
from clarion.respond.opinions import (
    ASKS_DOWNSIDES,
    ASKS_UPSIDES,
    asks_downsides,
    asks_upsides,
    complaints,
    downsides_response,
    praises,
    upsides_response,
)
from clarion.respond.pool import Pool, foreign_details
from clarion.respond.template import snippets_response
from clarion.retrieve.knowledge import KnowledgeIndex
from clarion.text import words_of

DISH_SHARE = 0.2
"""A dish the user names (:meth:`DstcModel._dish_snippets`) is a word in the knowledge of at most this share of the
places ("biryani", "mussels", "risotto"; not "chicken", in 35% of them, nor "meal", in half)."""


class ReviewAnswers:
    """The review-answer rules of :class:`~clarion.dstc.models.pipeline.DstcModel`."""

    def _reported(self, index: KnowledgeIndex, snippets: Sequence[Snippet], keys: list[tuple]) -> Label:
        """The answer about ``keys`` that puts ``snippets`` into reported speech (:func:`snippets_response`), with the
        follow-up question for ``keys``."""
        answer = snippets_response(snippets, index.knowledge.entity_names)
        question = follow_up_for(keys, self.config.uses("entity_follow_up"), self.bank.closings)
        return Label(True, tuple(keys), closed(answer, question, self.bank.closings))

    @staticmethod
    def _dish_snippets(
        index: KnowledgeIndex, snippets: Sequence[Snippet], turn: str, tracker: EntityTracker | None
    ) -> list[Snippet]:
        """The ``snippets`` that name a dish the turn names (:func:`~clarion.respond.faq_answers.dishes`; ``turn``
        and the snippets with entity names cut: "Pizza Hut City Centre has some good food portion sizes." names no
        pizza). A borrowed answer about the drinks or the portions had answered "Does the Royal Standard have
        delicious Leeks Vinaigrette on their menu?", and one about another place's dish ("... only a few cocktails")
        "How are the cocktails at Zizzi Avonford?"; the selected snippets naming the dish answer instead
        (``PipelineConfig.dish_answers``)."""
        asked = dishes(turn, index.specific_words(DISH_SHARE), index.name_words())
        if not asked:
            return []
        plain = tracker.strip_names if tracker is not None else str
        named = [s for s in snippets if not asked.isdisjoint(words_of(s.text))]  # the cheap test first
        return [s for s in named if not asked.isdisjoint(words_of(plain(s.text)))]

    @cached_property
    def _common_response_words(self) -> frozenset[str]:
        """Words of the training responses about more than 5% of their places ("according", "reviews"): how answers
        are written, never a detail of one place."""
        from collections import Counter

        by_entity: dict[tuple, set[str]] = {}
        for response, keys in zip(self.bank.responses, self.bank.keys or [], strict=False):
            for entity in key_entities(keys):
                by_entity.setdefault(entity, set()).update(words_of(response))
        df = Counter(w for words in by_entity.values() for w in words)
        return frozenset(w for w, n in df.items() if n > 0.05 * max(len(by_entity), 1))

    def _foreign_details(self, index: KnowledgeIndex, pool: Pool, keys, turn_text: str) -> list[list[str]]:
        """Per choosable body of ``pool``, its :func:`~clarion.respond.pool.foreign_details`."""
        allowed = set(words_of(turn_text)).union(*(index.words(e) for e in key_entities(keys)))
        specific = index.specific_words(common=self._common_response_words)
        out = []
        for j in range(pool.choosable):
            if not any(w in specific and w not in allowed for w in words_of(pool.bodies[j])):
                out.append([])  # the usual case: no rare word the selection lacks, no source to look up
                continue
            source = frozenset().union(*(index.words(e) for e in key_entities(self.bank.keys[pool.sources[j]])))
            out.append(foreign_details(pool.bodies[j], source, allowed, specific))
        return out

    def _asks_opinion(self, text: str, tracker: EntityTracker) -> str | None:
        """``"downsides"`` (with ``downsides``) when the turn asks what guests dislike about a place, ``"upsides"``
        (with ``upsides``) when it asks what they like, naming no aspect
        (:func:`~clarion.respond.opinions.asks_downsides`, :func:`~clarion.respond.opinions.asks_upsides`,
        names cut); else None."""
        if self.config.uses("downsides") and ASKS_DOWNSIDES.search(text):  # most turns: no names to cut
            return "downsides" if asks_downsides(tracker.strip_names(text)) else None
        if self.config.uses("upsides") and ASKS_UPSIDES.search(text):
            return "upsides" if asks_upsides(tracker.strip_names(text)) else None
        return None

    def _opinions(self, index: KnowledgeIndex, entity: tuple, opinion: str) -> Label:
        """The answer to what guests dislike (``opinion`` ``"downsides"``) or like (``"upsides"``) about ``entity``:
        its reviews' complaints or praise (:func:`~clarion.respond.opinions.complaints`,
        :func:`~clarion.respond.opinions.praises`) in reported speech, or that there are none."""
        name = display_name(index.knowledge.entity_names.get(entity))
        if opinion == "downsides":
            found = complaints(index.snippets(entity))
            body = downsides_response(name, found)
        else:
            found = praises(index.snippets(entity))
            body = upsides_response(name, found)
        closings = self.bank.closings
        question = follow_up_for([entity], False, closings)
        return Label(True, tuple(s.key for s in found), closed(body, question, closings))

"""When a place's FAQ answers instead of the selector's choice of snippets.

A stage of :class:`clarion.dstc.models.pipeline.DstcModel`: a turn the gated FAQ rule flagged is answered from the
tracked place's FAQ it paraphrases when the detector did not flag it or the selector is unsure
(:meth:`FaqAnswers.route`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from clarion.data.dstc import Label
from clarion.detect.faq_rule import ENTITY_FAQ_COSINE, FaqRule
from clarion.respond.follow_up import closed, follow_up_for
from clarion.respond.template import snippets_response
from clarion.retrieve.knowledge import KnowledgeIndex
from clarion.types import Snippet

FAQ_FALLBACK_CONFIDENCE = 0.5
"""DSTC11-format knowledge: a turn that paraphrases an FAQ question (the gated rule) is answered from that FAQ when
the detector did not flag it or the selector's best score (a probability) is below this. The selector learnt
DSTC11's questions, nearly all about reviews; on an FAQ question of a kind the training dialogues never ask ("Is
there a lift?") it is often unsure, and its best guess is then an unrelated review."""


@dataclass(frozen=True)
class FaqAnswers:
    """Answering from a place's FAQ. ``closings``: the closing questions of the training responses (the neighbour
    bank's); ``follow_up``: rule ``entity_follow_up`` is on; ``entity_cosine``: ``DetectConfig.entity_faq_cosine``."""

    closings: Sequence[str]
    follow_up: bool
    entity_cosine: float | None = None

    def answer(self, index: KnowledgeIndex, faq: Snippet) -> Label:
        """The answer from ``faq``: its answer text and the follow-up question
        (:func:`~clarion.respond.follow_up.follow_up_for`)."""
        keys = [faq.key]
        body = snippets_response([faq], index.knowledge.entity_names)
        follow_up = follow_up_for(keys, self.follow_up, self.closings)
        return Label(True, tuple(keys), closed(body, follow_up, self.closings))

    def route(
        self, index: KnowledgeIndex, scores: np.ndarray, rule: FaqRule, view: np.ndarray, snippets, detected: bool
    ) -> Label | None:
        """The label of a turn the gated ``rule`` flagged when the detector did not flag it (``detected``) or the
        selector is unsure (:data:`FAQ_FALLBACK_CONFIDENCE`): the answer from the tracked place's FAQ whose question
        the turn (``view``: as the rule sees it) is closest to within :data:`ENTITY_FAQ_COSINE` (else, when the
        entity gate took the turn, below that floor: the closest FAQ the gate fires on, whether or not the detector
        flagged the turn). A turn only the rule flagged whose
        place has no such FAQ is not knowledge-seeking after all. None: the selector's choice stands."""
        if detected and scores.max() >= FAQ_FALLBACK_CONFIDENCE:
            return None
        faq = rule.best_faq(view, snippets)
        entity_cosine = self.entity_cosine
        if faq is None and entity_cosine is not None and entity_cosine < ENTITY_FAQ_COSINE:
            faq = rule.best_faq(view, snippets, entity_cosine, gated=True)  # the FAQ the entity gate fired on
        if faq is not None:
            return self.answer(index, faq)
        return None if detected else Label(False)  # no such FAQ: left to the dialogue manager, as without the rule

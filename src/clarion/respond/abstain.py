"""Saying that nothing was found, rather than answering from snippets that do not answer the turn.

A mixin of :class:`clarion.dstc.models.pipeline.DstcModel` (rules ``abstain``, ``abstain_unrelated``,
``unknown_aspect``, ``review_floor``, ``last_resort_faq``).
"""

from __future__ import annotations

import numpy as np

from clarion.data.dstc import Label, key_entities
from clarion.detect.faq_rule import (
    FaqRule,
)
from clarion.dialogue.entities import EntityTracker
from clarion.respond.names import display_name
from clarion.respond.template import snippets_used
from clarion.retrieve.knowledge import KnowledgeIndex

NEAR_FAQ_COSINE = 0.5
"""The least cosine (names cut) between the turn and the tracked place's FAQ that answers a turn no selected snippet
fits (``last_resort_faq``), or that tells the place answers the aspect (``unknown_aspect``); below
:data:`~clarion.detect.faq_rule.ENTITY_FAQ_COSINE`, where the gated rule's own answers stop: "Do they speak French?"
is 0.52 from the Lensfield Hotel's "What languages are spoken at this location?", whose answer lists French."""

REVIEW_ASPECT_GAP = 0.2
"""With :attr:`PipelineConfig.review_floor`: how much closer to the turn the other places' reviews (the mean of their
10 closest sentences) must be than the tracked place's closest, for the turn to be about an aspect reviews discuss
elsewhere and the place's never touch."""


class Abstaining:
    """The abstaining rules of :class:`~clarion.dstc.models.pipeline.DstcModel`."""

    def _unrelated(self, chosen_emb: np.ndarray, turn_emb: np.ndarray) -> bool:
        """Whether none of the chosen snippets is within cosine ``abstain_cosine`` of the turn (names cut): the
        selector ranks the snippets it has, and a question none of them is about ("Is the Allenbell noisy at
        night?", no review mentions noise) still gets a best one."""
        threshold = self.config.param("abstain_unrelated", "cosine")
        if threshold is None or not self.config.dense or len(chosen_emb) == 0:
            return False
        return float((chosen_emb @ turn_emb).max()) < threshold

    def _unknown_aspect(self, rule: FaqRule | None, turn_emb: np.ndarray, snippets, chosen_emb: np.ndarray) -> bool:
        """Whether the turn asks about something places answer in an FAQ (it reaches a knowledge-base FAQ question at
        the gated rule's own cosine, with its margin) that the tracked place has no FAQ about (none within
        :data:`NEAR_FAQ_COSINE`), and no chosen snippet is within ``unknown_aspect_cosine`` of the turn: "Do
        they allow dogs at the Golden Curry?" was answered "Yes, the Golden Curry does have a great outdoor dining
        area" from its outdoor-seating FAQ (cosine 0.28 to the turn)."""
        threshold = self.config.param("unknown_aspect", "cosine")
        if threshold is None or rule is None or rule.penalties is None or not self.config.dense or len(chosen_emb) == 0:
            return False
        if float((chosen_emb @ turn_emb).max()) >= threshold or not rule.reaches(turn_emb[None, :], rule.threshold)[0]:
            return False
        return rule.best_faq(turn_emb, snippets, NEAR_FAQ_COSINE) is None

    def _absent_review_aspect(self, index: KnowledgeIndex, turn_emb: np.ndarray, snippets, group, chosen) -> bool:
        """Whether the chosen snippets are reviews of one place none of whose review sentences is within
        ``review_floor`` of the turn (names cut), while the other places of its domain have reviews about it (their 10
        closest sentences :data:`REVIEW_ASPECT_GAP` closer on average): "Is it noisy?" about Zizzi Avonford, whose
        reviews never mention noise, music or atmosphere, got a borrowed answer from four unrelated sentences (best
        cosine 0.20, above ``abstain_cosine``). Every train turn answered from one place's reviews has a review of
        that place at least 0.258 from it (scratch ``/work/notes/exp/s60/feas2.py``); in train CV it fired once in
        1,240 answered turns, wrongly (a wordy comparison, "which one of those would have the best decorations?")."""
        floor = self.config.param("review_floor", "cosine")
        picked = [snippets[j] for j in chosen]
        if floor is None or not self.config.dense or not picked or any(s.doc_type != "review" for s in picked):
            return False
        places = key_entities(s.key for s in picked)
        if len(places) != 1:
            return False
        entity = places[0]
        own = [j for j, s in enumerate(snippets) if s.doc_type == "review" and (s.domain, s.entity_id) == entity]
        best = float((group.snippets[own] @ turn_emb).max())
        if best >= floor:
            return False
        return index.reviews_elsewhere(turn_emb, entity) >= best + REVIEW_ASPECT_GAP

    def _apology(
        self,
        index: KnowledgeIndex,
        entities: list[tuple],
        rule: FaqRule | None,
        view,
        snippets,
        turn: str = "",
        tracker: EntityTracker | None = None,
    ) -> tuple[Label, None]:
        """``(label, None)`` for a turn no selected snippet fits: the tracked places' snippets naming a dish the turn
        (``turn``, names cut) names answer it (with ``dish_answers``: "How are the spring rolls at HK Fusion?" had been
        told "I could not find any information about that", though a review names them), else the tracked place's FAQ
        whose question is closest to the turn within :data:`NEAR_FAQ_COSINE` (with ``last_resort_faq``), else
        :meth:`_no_answer`. "Do they allow pets?" at the Lensfield Hotel had been told "I could not find any
        information about that": the selector was unsure, its FAQ "Can I bring my dog?" (cosine 0.53) below the
        answering floor, and the chosen reviews unrelated to the turn."""
        named = self._dish_snippets(index, snippets, turn, tracker) if self.config.uses("dish_answers") and turn else []
        dish = snippets_used(named)
        if dish:
            return self._reported(index, dish, [s.key for s in dish]), None
        if self.config.uses("last_resort_faq") and rule is not None:
            faq = rule.best_faq(view, snippets, NEAR_FAQ_COSINE)
            if faq is not None:
                return self._faq_answer(index, faq), None
        return self._no_answer(index, entities), None

    @staticmethod
    def _no_answer(index: KnowledgeIndex, entities: list[tuple]) -> Label:
        """Knowledge-seeking, but no snippet of the tracked entities answers it (the selector's best probability is
        below ``abstain_below``): say so rather than answer from the closest snippets ("Do they have a sauna?" was
        answered with a review of clean bathrooms)."""
        names = [display_name(index.knowledge.entity_names.get(entity)) for entity in entities[:2]]
        about = " or ".join(names) if names else "this place"
        return Label(True, (), f"I'm sorry, I could not find any information about that for {about}.")

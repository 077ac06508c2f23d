"""When a place's FAQ answers instead of (or beside) the selector's choice of snippets.

A mixin of :class:`clarion.dstc.models.pipeline.DstcModel`: the FAQ a turn paraphrases outranks an unsure or
unremembered choice (``faq_outranks_memory``, ``outrank_by_question``, ``unsure_outranking``); FAQs about a topic the
turn does not ask are kept apart (``accessibility_apart``, ``age_apart``, ``stay_ends_apart``); each part of a
coordinated question gets its FAQ (``coordinated_faqs``); every tracked place gets its closest FAQ
(``faq_every_place``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from clarion.data.dstc import Label, Snippet, key_entities
from clarion.detect.anchors import anchored, anchors, aspect_stems
from clarion.detect.faq_rule import (
    ENTITY_FAQ_COSINE,
    GATE_MARGIN,
    FaqRule,
    answering_faqs,
    asks_accessibility,
    asks_age,
    other_end_of_stay,
    stay_end,
)
from clarion.detect.knowledge import (
    coordinated_parts,
)
from clarion.dialogue.entities import EntityTracker
from clarion.dstc.models.turns import embed_queries
from clarion.respond.faq_answers import with_faq_answers
from clarion.respond.follow_up import closed, follow_up_for, split_follow_up
from clarion.respond.opinions import (
    asks_opinion,
)
from clarion.respond.template import snippets_response
from clarion.retrieve.knowledge import KnowledgeIndex

FAQ_FALLBACK_CONFIDENCE = 0.5
"""DSTC11-format knowledge: a turn that paraphrases an FAQ question (the gated rule) is answered from that FAQ when
the detector did not flag it or the selector's best score (a probability) is below this. The selector learnt
DSTC11's questions, nearly all about reviews; on an FAQ question of a kind the training dialogues never ask ("Is
there a lift?") it is often unsure, and its best guess is then an unrelated review."""

FAQ_OUTRANKS = 0.2
"""How much closer to the turn (MiniLM cosine, names cut) the FAQ it paraphrases must be than every snippet the
selector chose, for :attr:`PipelineConfig.faq_fallback_memory` to answer from the FAQ instead."""


OUTRANKING_FAQ_COSINE = 0.5
"""The least cosine (names cut) between the turn and the place's FAQ that may outrank the selector's choice
(:meth:`DstcModel._outranked`); below :data:`~clarion.detect.faq_rule.ENTITY_FAQ_COSINE`, where the gated rule's
own answers stop: "Do they speak French?" is 0.52 from the Lensfield Hotel's "What languages are spoken at this
location?", whose answer lists French, and the selector chose reviews about noise (train CV: no turn changes)."""


class FaqChoice:
    """The FAQ-choice rules of :class:`~clarion.dstc.models.pipeline.DstcModel`."""

    def _faq_label(self, index: KnowledgeIndex, faqs: Sequence[Snippet]) -> Label:
        """The answer from FAQs (one per place): their answer texts and the follow-up question
        (:func:`~clarion.respond.follow_up.follow_up_for`)."""
        keys, closings = [faq.key for faq in faqs], self.bank.closings
        body = snippets_response(list(faqs), index.knowledge.entity_names)
        return Label(True, tuple(keys), closed(body, follow_up_for(keys, closings), closings))

    @staticmethod
    def _other_places_faqs(rule: FaqRule, view: np.ndarray, snippets, faq: Snippet, floor: float, gated: bool):
        """For a turn answered from ``faq``, the closest FAQ of each other tracked place at the same ``floor`` (and
        gate): "Do the Gonville Hotel and the Lensfield Hotel have gyms?" had been answered from the Lensfield's
        alone ("Yes, fitness center and gym are available onsite."); DSTC11 answers such a turn place by place."""
        places: dict[tuple, list] = {}
        for snippet in snippets:
            places.setdefault((snippet.domain, snippet.entity_id), []).append(snippet)
        answered = (faq.domain, faq.entity_id)
        others = (rule.best_faq(view, own, floor, gated=gated) for place, own in places.items() if place != answered)
        return [other for other in others if other is not None]

    @property
    def _apart(self) -> tuple[Callable[[str], bool], ...]:
        """The topics whose FAQs answer only a turn asking about them (``accessibility_apart``, ``age_apart``)."""
        return (asks_accessibility, asks_age) if self.config.uses("age_apart") else (asks_accessibility,)

    def _other_end_of_stay(self, snippets: Sequence[Snippet], turn_text: str) -> np.ndarray:
        """With ``stay_ends_apart``: which of ``snippets`` are FAQs about the end of a stay the turn does not ask about
        (:func:`~clarion.detect.faq_rule.other_end_of_stay`: "Can I check in early?" and "What time is
        check-out?"), which neither the selector nor the FAQ rule may answer it from."""
        out = np.zeros(len(snippets), dtype=bool)
        if self.config.uses("stay_ends_apart") and stay_end(turn_text) is not None:  # most turns name neither end
            for i, snippet in enumerate(snippets):
                out[i] = snippet.doc_type == "faq" and other_end_of_stay(turn_text, snippet.title)
        return out

    def _anchored_faq(self, index: KnowledgeIndex, rule, view, choices, scores, snippets, plain_turn: str, group):
        """With ``aspect_anchors`` (off by default: docs/dstc.md): the FAQ among ``choices`` that an aspect
        word of the turn (``plain_turn``, names cut; :mod:`.anchors`) names, closest to the turn (``view``) within the
        entity gate's floor and by its question at least ``GATE_MARGIN`` closer than the chosen snippets (``group``)
        are by theirs, unless the selector chose such an FAQ already or the turn asks an opinion. "My wife only eats
        halal, is the Golden Curry an option?" had got an answer about its food."""
        if not self.config.uses("aspect_anchors") or rule is None or view is None or asks_opinion(plain_turn):
            return None
        names = index.knowledge.entity_names
        if index.aspect_stems is None:
            faqs = {e: [s for s in index.snippets(e) if s.doc_type == "faq"] for e in index.entities()}
            index.aspect_stems = aspect_stems(faqs, names, rule.rows, rule.questions)
        stems = anchors(plain_turn, index.aspect_stems, self.detector.word_stems())
        found = anchored(choices, stems, names) if stems else []
        if not found:
            return None
        chosen = self.selector.choose(scores)
        if any(s.key in {snippets[j].key for j in chosen} for s in found):
            return None
        floor = self.config.detect.entity_faq_cosine
        faq = rule.best_faq(view, found, ENTITY_FAQ_COSINE if floor is None else floor)
        if faq is None:
            return None
        chosen_cosine = float((group.snippets @ group.query)[chosen].max())
        closeness = float(rule.questions[rule.rows[faq.title.strip()]] @ view)
        return faq if closeness >= chosen_cosine + GATE_MARGIN else None  # not when the chosen answer is nearer

    def _outranked(
        self, group, scores: np.ndarray, snippets, faq, rule=None, query=None, view=None, plain_turn: str = ""
    ) -> bool:
        """Whether the tracked entity's FAQ whose question the turn is closest to (``faq``, within cosine
        :data:`OUTRANKING_FAQ_COSINE`) should answer it over the selector's choice, on any
        detected turn: it is not chosen, no chosen snippet was the gold of a training turn within cosine
        ``faq_fallback_memory`` of this one (the key memory's ``best``), and the FAQ is closer to the turn than every
        chosen snippet by :data:`FAQ_OUTRANKS`. "Does Charlie Chan have high chairs?" chose the outdoor-seating FAQ
        (cosine 0.38, never chosen for such a question) over the high-chairs FAQ (0.67), "Is Charlie Chan halal?" drink
        reviews over the halal FAQ: DSTC11's dialogues never ask about high chairs, halal food, a gym or a lift, and the
        selector learnt to trust its memory of what they ask.

        With ``memory_elsewhere`` (and the gated ``rule``, the turn's selection embedding ``query`` and the rule's
        ``view`` of it), a memory counts only when one of its training questions is about as close to the FAQ's
        question as this turn (within ``memory_elsewhere``): "Do they offer room service?" remembered "Do they offer
        big rooms?" (cosine 0.76), whose gold was a room-size review, though the room-service FAQ's question is 0.87
        from the turn and 0.69 from that question.

        With ``outrank_by_question``, an unremembered choice of reviews also yields to an FAQ whose question the turn
        paraphrases (:meth:`_paraphrased`): "Is the front desk open all night?" at the Gonville Hotel chose views
        reviews (0.53), and its FAQ "What time does your front desk close?" is 0.71 from the turn as a question but
        0.66 as a snippet (question and answer), not :data:`FAQ_OUTRANKS` ahead."""
        floor = self.config.param("faq_outranks_memory", "cosine")
        if floor is None or faq is None or group.key_memory is None:
            return False
        chosen = self.selector.choose(scores)
        at = next(j for j, s in enumerate(snippets) if s.key == faq.key)
        if at in chosen:
            return False
        remembered = [j for j in chosen if float(group.key_memory[j, 0]) >= floor]
        if remembered and not self._memory_elsewhere(remembered, snippets, faq, rule, query, view):
            return False
        if (
            self.config.uses("outrank_by_question")
            and not remembered
            and self._paraphrased(chosen, snippets, faq, rule, view, plain_turn)
        ):
            return True
        cosines = group.snippets @ group.query
        return float(cosines[chosen].max()) < float(cosines[at]) - FAQ_OUTRANKS

    @staticmethod
    def _paraphrased(chosen, snippets, faq, rule, view, plain_turn: str) -> bool:
        """With ``outrank_by_question`` (see :meth:`_outranked`), for a choice no training question backs: whether the
        choice holds no FAQ, the turn (``plain_turn``, names cut) asks no opinion (:func:`asks_opinion`) and is within
        :data:`ENTITY_FAQ_COSINE` of ``faq``'s question as the gated ``rule`` sees it (``view``)."""
        if (
            rule is None
            or view is None
            or any(snippets[j].doc_type == "faq" for j in chosen)
            or asks_opinion(plain_turn)
        ):
            return False
        row = rule.rows.get(faq.title.strip())
        return row is not None and float(rule.questions[row] @ view) >= ENTITY_FAQ_COSINE

    def _memory_elsewhere(self, remembered, snippets, faq, rule, query, view) -> bool:
        """Whether every training question remembered for the chosen snippets ``remembered`` is more than
        ``memory_elsewhere`` farther from ``faq``'s question than the turn is (see :meth:`_outranked`)."""
        margin, memory = self.config.param("faq_outranks_memory", "elsewhere"), self.selector.memory
        row = rule.rows.get(faq.title.strip()) if rule is not None and rule.rows else None
        if margin is None or memory is None or row is None or query is None or view is None:
            return False
        question = rule.questions[row]
        bar = float(question @ view) - margin
        floor = self.config.param("faq_outranks_memory", "cosine")
        for j in remembered:
            found = memory.remembered(query, snippets[j].key, floor)
            if len(found) and float((found @ question).max()) >= bar:
                return False
        return True

    def _faq_answer(
        self, index: KnowledgeIndex, rule: FaqRule, view, snippets, faq: Snippet, floor: float, gated: bool = False
    ) -> Label:
        """The answer from ``faq``, with each other tracked place's closest FAQ at the same ``floor`` and gate when
        ``faq_every_place`` (:meth:`_other_places_faqs`)."""
        faqs = [faq]
        if self.config.uses("faq_every_place"):
            faqs += self._other_places_faqs(rule, view, snippets, faq, floor, gated)
        return self._faq_label(index, faqs)

    def _coordinated_faqs(
        self, index: KnowledgeIndex, rule: FaqRule, tracker: EntityTracker, text: str, label: Label
    ) -> Label:
        """``label`` with, for a turn asking about two things of one place ("Do they have a pool and a gym?", which
        had been answered from the pool FAQ alone) and answered from an FAQ, the place's FAQ closest to each part of
        the question (:func:`~clarion.detect.knowledge.coordinated_parts`, names cut) within
        :data:`~clarion.detect.faq_rule.ENTITY_FAQ_COSINE` that is not selected yet: its key joins the snippets
        and its answer the response unless the response holds all of its words (check-in's answer is not covered by
        check-out's, though they share half their stems)."""
        places = key_entities(label.knowledge)
        if not label.target or len(places) != 1 or label.response is None:
            return label
        if not any(index.knowledge.snippet(key).doc_type == "faq" for key in label.knowledge):
            return label  # a review answer: "the bed and breakfast", "beds and mattress" are one thing asked
        parts = coordinated_parts(tracker.strip_names(text))
        if len(parts) < 2:
            return label
        snippets = index.snippets(places[0])
        keys, added = list(label.knowledge), []
        for part in embed_queries(parts, self.config.dense):
            choices = (
                answering_faqs(rule, part, snippets, text, self._apart)
                if self.config.uses("accessibility_apart")
                else snippets
            )
            faq = rule.best_faq(part, choices)
            if faq is not None and faq.key not in keys:
                keys.append(faq.key)
                added.append((faq.body, faq.entity_name))
        if not added:
            return label
        body, follow_up = split_follow_up(label.response)
        body = with_faq_answers(body, added, 1.0)
        return Label(True, tuple(keys), closed(body, follow_up or "", self.bank.closings))

    def _faq_choices(self, rule, view, snippets, turn_text: str):
        """The FAQs the gated rule may answer from (rules ``accessibility_apart``, ``age_apart``), without those about
        the end of a stay the turn does not ask about (``stay_ends_apart``), and which snippets those are."""
        choices = snippets
        if rule is not None and self.config.uses("accessibility_apart"):
            choices = answering_faqs(rule, view, snippets, turn_text, self._apart)
        other_end = self._other_end_of_stay(snippets, turn_text)  # FAQs about the end of the stay not asked about
        if other_end.any():
            apart = {s.key for s, other in zip(snippets, other_end, strict=True) if other}
            choices = [s for s in choices if s.key not in apart]
        return choices, other_end

    def _faq_route(self, index, group, scores, snippets, rule, view, choices, plain_turn, q_emb, detected, fired):
        """The label when the place's FAQ the turn paraphrases answers instead of the selector's choice: the gated rule
        fired (``fired``) and the detector did not flag the turn (``detected``) or the selector is unsure
        (:data:`FAQ_FALLBACK_CONFIDENCE`); an aspect word names the FAQ (``aspect_anchors``); or the FAQ outranks the
        choice (:meth:`_outranked`). A turn only the rule flagged whose place has no such FAQ is not knowledge-seeking
        after all. None: the selector's choice stands."""
        floor, gated = ENTITY_FAQ_COSINE, False
        faq = rule.best_faq(view, choices)
        entity_cosine = self.config.detect.entity_faq_cosine
        below = entity_cosine is not None and entity_cosine < ENTITY_FAQ_COSINE
        if faq is None and fired and not detected and below:
            # the entity gate alone took the turn, below the answering floor: an FAQ it fires on answers
            floor, gated = entity_cosine, True
            faq = rule.best_faq(view, choices, floor, gated=True)
        unsure = fired and (not detected or scores.max() < FAQ_FALLBACK_CONFIDENCE)
        if faq is None and (not unsure or (detected and self.config.uses("unsure_outranking"))):
            floor = OUTRANKING_FAQ_COSINE  # the outranking test looks further than the rule's answers
            faq = rule.best_faq(view, choices, floor)
            unsure = False
        anchor = self._anchored_faq(index, rule, view, choices, scores, snippets, plain_turn, group)
        if anchor is not None:  # a word of an aspect the training turns never asked names the place's FAQ
            return self._faq_answer(index, rule, view, choices, anchor, ENTITY_FAQ_COSINE)
        if unsure or self._outranked(group, scores, snippets, faq, rule, q_emb, view, plain_turn):
            if faq is not None:
                return self._faq_answer(index, rule, view, choices, faq, floor, gated)
            if not detected:  # the entity has no such FAQ: left to the dialogue manager, as without the rule
                return Label(False)
        return None

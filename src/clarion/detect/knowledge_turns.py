"""Knowledge-seeking turn detection beyond the trained detector: the rules that flag or resolve a turn.

A mixin of :class:`clarion.dstc.models.pipeline.DstcModel`: elliptical follow-ups ("How about the other one?"),
requests about an aspect of a place, turns near a tracked place's FAQ, coordinated questions.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from clarion.data.dstc import Dataset
from clarion.data.dstc_schema import Format
from clarion.detect.knowledge import (
    as_question,
    asks_preference_only,
    coordinated_parts,
    follow_up_question,
    might_ask_preference,
)
from clarion.dialogue.entities import EntityTracker
from clarion.dstc.models.turns import context_texts, embed_queries, embed_without_names, query_texts
from clarion.respond.names import display_name, swap_entity
from clarion.respond.opinions import REVIEW_CUE

if TYPE_CHECKING:
    from clarion.dstc.models.pipeline import PreparedKnowledge


@dataclass
class TurnViews:
    """A batch of user turns as the stages see them (:meth:`TurnDetection._detect`)."""

    texts: list[str]
    q_emb: np.ndarray
    detected: np.ndarray
    """The trained detector's verdict, OR'ed with the detection rules'."""
    gated: object | None = None
    """The gated FAQ rule (DSTC11-format knowledge), or None."""
    gate_emb: np.ndarray | None = None
    """The turns as the gated FAQ rule sees them (names cut when it strips them)."""
    faq_turns: np.ndarray | None = None
    """The turns the FAQ rule flags."""
    targets: np.ndarray | None = None
    """Knowledge-seeking: detected or flagged, minus the turns the rules take back."""
    q_tfidf: object = None
    sel_emb: np.ndarray | None = None
    """The turns as selection and generation see them (names cut with ``SelectConfig.strip_names``)."""
    sel_tfidf: object = None
    _unnamed: np.ndarray | None = None

    def without_names(self, tracker: EntityTracker, dense: bool) -> np.ndarray:
        """The turns' embeddings with entity names cut (embedded once, when first needed)."""
        if self._unnamed is None:
            self._unnamed = embed_without_names(self.texts, self.q_emb, tracker, dense)
        return self._unnamed


def _review_cue_turns(model, texts: list[str], dataset, prepared) -> np.ndarray:
    """Rule ``review_cues``: a turn asking what reviews say about a tracked place."""
    return np.array(
        [
            bool(REVIEW_CUE.search(text)) and bool(prepared.tracker.track(context_texts(c)))
            for text, c in zip(texts, dataset.contexts, strict=True)
        ],
        dtype=bool,
    )


def _aspect_request_turns(model, texts: list[str], dataset, prepared) -> np.ndarray:
    """Rule ``aspect_requests``: "Tell me about the X at P" read as "How is the X at P?"."""
    return model._aspect_requests(texts, dataset, prepared.tracker)


DETECTION_RULES: dict[str, Callable] = {"review_cues": _review_cue_turns, "aspect_requests": _aspect_request_turns}
"""Rules that flag more turns as knowledge-seeking (DSTC11-format knowledge), by name: each returns a flag per turn,
OR'ed with the detector's verdict when the model's config uses the rule."""


class TurnDetection:
    """The detection rules of :class:`~clarion.dstc.models.pipeline.DstcModel` (``follow_ups``, ``aspect_requests``,
    the FAQ rule's entity gate, ``coordinated_detection``)."""

    def _detect(self, dataset: Dataset, prepared: PreparedKnowledge, progress) -> TurnViews:
        """The batch's turns as the stages see them, with the knowledge-seeking ones (:attr:`TurnViews.targets`):
        the trained detector OR'ed with :data:`DETECTION_RULES` and the FAQ-paraphrase rule; a turn with no letter
        or digit (an empty ASR hypothesis, "...") asks nothing, nor does "Which one is better?"
        (``preference_apart``)."""
        dstc11 = dataset.format is Format.DSTC11
        texts = query_texts(dataset)
        if self.config.uses("follow_ups") and dstc11:
            texts = self._follow_ups(dataset, texts, prepared)
        advance = progress("encoding user turns", 1)
        q_emb = embed_queries(texts, self.config.dense)
        advance(1)
        views = TurnViews(texts, q_emb, self.detector.predict(texts, q_emb))
        for name, flags in DETECTION_RULES.items():
            if dstc11 and self.config.uses(name):
                views.detected = views.detected | flags(self, texts, dataset, prepared)
        rule = prepared.faq_rule
        views.gated = rule if rule is not None and rule.penalties is not None else None
        strip_gate = views.gated is not None and self._strips_names()  # the gated rule's view of the turns
        views.gate_emb = views.without_names(prepared.tracker, self.config.dense) if strip_gate else q_emb
        views.faq_turns = rule.matches(views.gate_emb) if rule is not None else np.zeros(len(texts), dtype=bool)
        if views.gated is not None and self.config.detect.entity_faq_cosine is not None:
            views.faq_turns |= self._entity_faq_turns(
                dataset, prepared, views.gate_emb, views.detected | views.faq_turns
            )
        if views.gated is not None and self.config.uses("coordinated_detection"):
            views.faq_turns |= self._coordinated_turns(dataset, prepared, texts, views.detected | views.faq_turns)
        wordless = np.array([not any(c.isalnum() for c in text) for text in texts], dtype=bool)
        views.targets = (views.detected | views.faq_turns) & ~wordless
        if self.config.uses("preference_apart"):  # "Which one is better?": which place to choose, no aspect asked
            tracker = prepared.tracker
            for i in np.flatnonzero(views.targets):  # names cut only for the turns that could be such a request
                if might_ask_preference(texts[i]) and asks_preference_only(tracker.strip_names(texts[i])):
                    views.targets[i] = False
        return views

    @staticmethod
    def _follow_ups(dataset: Dataset, texts: list[str], prepared: PreparedKnowledge) -> list[str]:
        """``texts`` with each elliptical follow-up about another place read as the question it follows
        (:func:`~clarion.detect.knowledge.follow_up_question`), that question's place swapped for the one named
        now: "How about at the Gonville Hotel?" after "Do they have free parking at the Lensfield Hotel?" asks "Do
        they have free parking at the Gonville Hotel?" (with several places on either side, the question's names are
        cut; the tracker has the new ones from the turn itself). A follow-up pointing at a place ("And the other
        one?") is one only when the tracker resolves where it points (:meth:`EntityTracker.pointed_at`)."""
        tracker, names = prepared.tracker, prepared.knowledge.entity_names
        out = list(texts)
        for i, context in enumerate(dataset.contexts):
            users = [turn.text for turn in context.turns if turn.speaker == "U"]
            question = follow_up_question(users, tracker.mentions, tracker.strip_names)
            if question is None:
                continue
            old, new = tracker.mentions(question), tracker.mentions(users[-1])
            if not new:
                pointed = tracker.pointed_at(context_texts(context))
                if pointed is None:
                    continue
                new = [pointed]
            if len(old) == 1 and len(new) == 1:
                question = swap_entity(question, names.get(old[0]), display_name(names.get(new[0])))
            elif old:
                question = tracker.strip_names(question)
            out[i] = question
        return out

    def _aspect_requests(self, texts: list[str], dataset: Dataset, tracker: EntityTracker) -> np.ndarray:
        """Turns that request information about an aspect of a tracked place in another form than a question
        ("Tell me about the breakfast at the Alexander B&B.", :func:`~clarion.detect.knowledge.as_question`) and
        that the detector finds knowledge-seeking when asked as one ("How is the breakfast at ...?"). In the train
        split of dstc11_track5, 90 of the 101 last user turns opening so are booking requests about a place itself
        ("Tell me about the Portuguese restaurant", "What about the one in the north?"), which the detector learnt;
        its question forms of the same aspects it reads well."""
        out = np.zeros(len(texts), dtype=bool)
        asked = {}
        for i, text in enumerate(texts):
            question = as_question(text, lambda head: bool(tracker.mentions(head)))
            if question is not None and tracker.track(context_texts(dataset.contexts[i])):
                asked[i] = question
        if asked:
            questions = list(asked.values())
            out[list(asked)] = self.detector.predict(questions, embed_queries(questions, self.config.dense))
        return out

    def _entity_faq_turns(
        self, dataset: Dataset, prepared: PreparedKnowledge, gate_emb: np.ndarray, known: np.ndarray
    ) -> np.ndarray:
        """The turns not in ``known`` that the gated FAQ rule matches against a tracked place's own FAQs at the
        lower cosine ``DetectConfig.entity_faq_cosine`` (:meth:`FaqRule.matches_entity`)."""
        out = np.zeros(len(known), dtype=bool)
        cosine = self.config.detect.entity_faq_cosine
        rule = prepared.faq_rule
        for i in np.flatnonzero(~known & rule.reaches(gate_emb, cosine)):  # tracking only where an FAQ is near
            entities = prepared.tracker.track(context_texts(dataset.contexts[i]))
            snippets = [s for entity in entities for s in prepared.index.snippets(entity)]
            out[i] = rule.matches_entity(gate_emb[i], snippets, cosine)
        return out

    def _coordinated_turns(
        self, dataset: Dataset, prepared: PreparedKnowledge, texts: list[str], known: np.ndarray
    ) -> np.ndarray:
        """The turns not in ``known`` whose last question joins parts with "and" (:func:`~clarion.detect.knowledge.
        coordinated_parts`, names cut) of which one meets the gated FAQ rule as a turn would (its threshold, or a
        tracked place's own FAQ at ``DetectConfig.entity_faq_cosine``): "Can you tell me whether the Gonville Hotel
        has a gym and whether it has a pool?" is as far from either FAQ as a whole as it is near each in parts."""
        out = np.zeros(len(known), dtype=bool)
        rule, tracker = prepared.faq_rule, prepared.tracker
        asked = {}
        for i in np.flatnonzero(~known):
            parts = coordinated_parts(tracker.strip_names(texts[i]))
            if len(parts) > 1:
                asked[int(i)] = parts
        if not asked:
            return out
        rows = embed_queries([part for parts in asked.values() for part in parts], self.config.dense)
        cosine = self.config.detect.entity_faq_cosine
        start = 0
        for i, parts in asked.items():
            embedded, start = rows[start : start + len(parts)], start + len(parts)
            if rule.matches(embedded).any():
                out[i] = True
            elif cosine is not None and rule.reaches(embedded, cosine).any():
                places = tracker.track(context_texts(dataset.contexts[i]))
                snippets = [s for place in places for s in prepared.index.snippets(place)]
                out[i] = any(rule.matches_entity(row, snippets, cosine) for row in embedded)
        return out

"""Knowledge-seeking turn detection beyond the trained detector: the FAQ-paraphrase rule and its entity gate.

The detection stage of :class:`clarion.dstc.models.pipeline.DstcModel` (:class:`TurnDetector`): the trained
detector's verdict OR'ed with the turns that paraphrase an FAQ question (:mod:`clarion.detect.faq_rule`), or, with
``DetectConfig.entity_faq_cosine``, a tracked place's own FAQ at a lower cosine.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from clarion.data.dstc import Dataset
from clarion.detect.knowledge import Detector
from clarion.dstc.models.turns import context_texts, embed_queries, embed_without_names, query_texts
from clarion.ground.entities import EntityTracker

if TYPE_CHECKING:
    from clarion.dstc.models.pipeline import PreparedKnowledge


@dataclass
class TurnViews:
    """A batch of user turns as the stages see them (:meth:`TurnDetector.predict`)."""

    texts: list[str]
    q_emb: np.ndarray
    detected: np.ndarray
    """The trained detector's verdict."""
    gated: object | None = None
    """The gated FAQ rule (DSTC11-format knowledge), or None."""
    gate_emb: np.ndarray | None = None
    """The turns as the gated FAQ rule sees them (names cut when it strips them)."""
    faq_turns: np.ndarray | None = None
    """The turns the FAQ rule flags."""
    targets: np.ndarray | None = None
    """Knowledge-seeking: detected or flagged by the FAQ rule, and holding a letter or digit."""
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


@dataclass(frozen=True)
class TurnDetector:
    """The trained detector and the FAQ rule (with its entity gate). ``dense``: turns are embedded with MiniLM;
    ``strip_names``: the gated rule compares turns with entity names cut; ``entity_faq_cosine``: the entity gate's
    cosine (``DetectConfig.entity_faq_cosine``; None: no gate)."""

    detector: Detector
    dense: bool = True
    strip_names: bool = False
    entity_faq_cosine: float | None = None

    def predict(self, dataset: Dataset, prepared: PreparedKnowledge, progress) -> TurnViews:
        """The batch's turns as the stages see them, with the knowledge-seeking ones (:attr:`TurnViews.targets`):
        the trained detector OR'ed with the FAQ-paraphrase rule; a turn with no letter or digit (an empty ASR
        hypothesis, "...") asks nothing."""
        texts = query_texts(dataset)
        advance = progress("encoding user turns", 1)
        q_emb = embed_queries(texts, self.dense)
        advance(1)
        views = TurnViews(texts, q_emb, self.detector.predict(texts, q_emb))
        rule = prepared.faq_rule
        views.gated = rule if rule is not None and rule.penalties is not None else None
        strip_gate = views.gated is not None and self.strip_names  # the gated rule's view of the turns
        views.gate_emb = views.without_names(prepared.tracker, self.dense) if strip_gate else q_emb
        views.faq_turns = rule.matches(views.gate_emb) if rule is not None else np.zeros(len(texts), dtype=bool)
        if views.gated is not None and self.entity_faq_cosine is not None:
            views.faq_turns |= self._entity_faq_turns(dataset, prepared, views.gate_emb, views.faq_turns)
        wordless = np.array([not any(c.isalnum() for c in text) for text in texts], dtype=bool)
        views.targets = (views.detected | views.faq_turns) & ~wordless
        return views

    def _entity_faq_turns(
        self, dataset: Dataset, prepared: PreparedKnowledge, gate_emb: np.ndarray, known: np.ndarray
    ) -> np.ndarray:
        """The turns not in ``known`` (those the gated FAQ rule took already) that it matches against a tracked
        place's own FAQs at the lower cosine ``DetectConfig.entity_faq_cosine`` (:meth:`FaqRule.matches_entity`),
        the detector's turns included: they are answered from that FAQ when the selector is unsure."""
        out = np.zeros(len(known), dtype=bool)
        cosine = self.entity_faq_cosine
        rule = prepared.faq_rule
        for i in np.flatnonzero(~known & rule.reaches(gate_emb, cosine)):  # tracking only where an FAQ is near
            entities = prepared.tracker.track(context_texts(dataset.contexts[i]))
            snippets = [s for entity in entities for s in prepared.index.snippets(entity)]
            out[i] = rule.matches_entity(gate_emb[i], snippets, cosine)
        return out

"""The DSTC pipeline: detect -> track the entity -> select snippets -> respond (DESIGN.md's pipeline shape).

:func:`train` fits a :class:`DstcModel` on a labelled :class:`~clarion.data.dstc.Dataset`; :meth:`DstcModel.predict`
returns one :class:`~clarion.data.dstc.Label` per context, for either track format (DSTC9/10 predictions rank
``rank_k`` snippets and answer with the template, i.e. the best FAQ's answer, since the neighbour bank holds
DSTC11 review summaries; DSTC11 predictions keep every snippet above the calibrated threshold). The detector
is OR'ed with the FAQ-paraphrase rule of :mod:`.faq_rule` (for DSTC11-format knowledge its gated form); a DSTC11
turn the gated rule fires on and for which the selector is unsure (no snippet reaches
:data:`~clarion.dstc.faq_choice.FAQ_FALLBACK_CONFIDENCE`) is answered from the FAQ it paraphrases.
:meth:`DstcModel.prepare` binds a model to a knowledge base once (snippet index, entity tracker, FAQ rule) for
callers that predict turn by turn.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from pathlib import Path

import numpy as np
from threadpoolctl import threadpool_limits

from clarion.data.dstc import Dataset, Knowledge, Label
from clarion.data.dstc_schema import Format
from clarion.detect.faq_rule import (
    FaqRule,
    faq_questions,
)
from clarion.detect.knowledge import (
    Detector,
)
from clarion.dstc.faq_choice import FaqAnswers
from clarion.dstc.knowledge_turns import TurnDetector, TurnViews
from clarion.dstc.models.config import PipelineConfig
from clarion.dstc.models.turns import context_texts
from clarion.dstc.which import closest_entity, which_entity
from clarion.errors import ModelError
from clarion.ground.entities import EntityTracker
from clarion.ground.names import display_name
from clarion.rerank.response_memory import memory_features
from clarion.rerank.snippets import Selector, keep_known_set
from clarion.respond.consensus import Generator, NeighbourBank, lm_consensus_response
from clarion.respond.follow_up import follow_up_for
from clarion.respond.generation import Query, Responder
from clarion.respond.lm import lm_prompt
from clarion.respond.pool import Pool
from clarion.retrieve.knowledge import KnowledgeIndex
from clarion.retrieve.packaged import N_DENSE
from clarion.store import Progress, no_progress


class DataSplit(str, Enum):
    """Which contexts of a data directory a command uses (the split is by dialogue, see clarion.data.dstc_split)."""

    all = "all"
    train = "train"
    dev = "dev"


def apply_split(dataset: Dataset, split: DataSplit | str) -> Dataset:
    """``dataset`` itself for ``all``, else its train or dev side (:func:`clarion.data.dstc_split.split_dataset`)."""
    from clarion.data.dstc_split import split_dataset

    split = DataSplit(split)
    return dataset if split is DataSplit.all else split_dataset(dataset, split.value)


@dataclass(frozen=True)
class PreparedKnowledge:
    """A knowledge base with the snippet index and entity tracker :meth:`DstcModel.predict` uses."""

    knowledge: Knowledge
    index: KnowledgeIndex
    tracker: EntityTracker
    faq_rule: FaqRule | None = None
    """The FAQ-paraphrase rule OR'ed with the detector (:mod:`.faq_rule`; gated for DSTC11-format knowledge)."""


@dataclass
class DstcModel:
    """A trained pipeline: detector, selection TF-IDF + selector, and the neighbour bank; it predicts by composing
    its stages: :attr:`turns` (detection), the selector, :attr:`faqs` (answers from an FAQ), :attr:`responder`."""

    config: PipelineConfig
    detector: Detector
    selector: Selector
    vectorizer: object
    bank: NeighbourBank
    lm: object | None = None
    """The fine-tuned :class:`~clarion.respond.lm.LmGenerator` (models trained with ``--generator lm``)."""
    lm_dir: Path | None = None
    """Where :attr:`lm` is loaded from on first use (a saved model whose directory holds ``lm.safetensors``)."""
    faq_negatives: np.ndarray | None = None
    """MiniLM embeddings of the training turns that are not knowledge-seeking (:mod:`.faq_rule`'s negatives)."""
    faq_negatives_stripped: np.ndarray | None = None
    """The same turns embedded with entity names removed (the gated rule's negatives; ``DetectConfig.strip_names``)."""

    @property
    def turns(self) -> TurnDetector:
        """The detection stage: which turns seek knowledge."""
        detect = self.config.detect
        return TurnDetector(self.detector, self.config.dense, self._strips_names(), detect.entity_faq_cosine)

    @property
    def faqs(self) -> FaqAnswers:
        """Answering from a place's FAQ when the gated FAQ rule says so."""
        follow_up = self.config.uses("entity_follow_up")
        return FaqAnswers(self.bank.closings, follow_up, self.config.detect.entity_faq_cosine)

    @property
    def responder(self) -> Responder:
        """The respond stage: the configured generator."""
        return Responder(self.config, self.bank)

    def prepare(self, knowledge: Knowledge, progress: Progress = no_progress) -> PreparedKnowledge:
        """The per-knowledge-base state :meth:`predict` builds (snippet index, entity tracker and the FAQ rule);
        pass it to :meth:`predict` to reuse it across calls on the same knowledge."""
        tracker = EntityTracker.from_knowledge(knowledge)
        return PreparedKnowledge(
            knowledge,
            KnowledgeIndex(knowledge, self.vectorizer, self.config.dense),
            tracker,
            self._faq_rule(knowledge, tracker, progress),
        )

    def _strips_names(self) -> bool:
        """Whether the gated FAQ rule compares texts without entity names (models trained before keep names)."""
        return self.config.detect.strip_names and self.faq_negatives_stripped is not None

    def _faq_rule(self, knowledge: Knowledge, tracker: EntityTracker, progress: Progress) -> FaqRule | None:
        usable = self.config.dense and self.config.detect.faq_rule and self.faq_negatives is not None
        if not usable:
            return None
        from clarion.retrieve.dense import encode_cached

        questions = faq_questions(knowledge)
        strip = knowledge.format is not Format.DSTC9 and self._strips_names()  # the gated rule compares names cut
        texts = [tracker.strip_names(q) for q in questions] if strip else questions
        name = "dstc-faq-questions-stripped" if strip else "dstc-faq-questions"
        advance = progress("encoding FAQ questions", 1)
        embeddings = encode_cached(texts, name=name) if questions else np.zeros((0, N_DENSE))
        advance(1)
        if knowledge.format is Format.DSTC9:
            return FaqRule.calibrate(embeddings, self.faq_negatives)
        return FaqRule.gated(questions, embeddings, self.faq_negatives_stripped if strip else self.faq_negatives)

    def predict(
        self, dataset: Dataset, progress: Progress = no_progress, prepared: PreparedKnowledge | None = None
    ) -> list[Label]:
        """One :class:`Label` per context of ``dataset`` (labels, if any, are ignored). ``prepared``: the
        result of :meth:`prepare` on ``dataset.knowledge`` (built here when absent)."""
        use_lm = self.config.generator is Generator.lm and dataset.format is not Format.DSTC9
        if use_lm and self.lm is None and self.lm_dir is None:
            raise ModelError("this model has no fine-tuned LM; train one with `clarion dstc train --generator lm`")
        if prepared is None:
            prepared = self.prepare(dataset.knowledge, progress)
        elif prepared.knowledge is not dataset.knowledge:
            raise ValueError("prepared knowledge belongs to another knowledge base")
        views = self.turns.predict(dataset, prepared, progress)
        index, tracker = prepared.index, prepared.tracker
        positive = [int(i) for i in np.flatnonzero(views.targets)]
        tracked = {i: tracker.track(context_texts(dataset.contexts[i])) for i in positive}
        needed = sorted({e for ents in tracked.values() for e in ents if index.snippets(e)}, key=str)
        index.prepare(needed, progress("encoding entity snippets", len(needed)))
        views.q_tfidf = self.vectorizer.transform(views.texts)
        views.sel_emb, views.sel_tfidf = views.q_emb, views.q_tfidf  # the turn as selection and generation see it
        if self.config.select.strip_names and positive:  # no knowledge-seeking turn: nothing to embed again
            views.sel_emb = views.without_names(tracker, self.config.dense)
            stripped = [tracker.strip_names(t) if views.targets[i] else t for i, t in enumerate(views.texts)]
            views.sel_tfidf = self.vectorizer.transform(stripped)
        out = [Label(False) for _ in views.texts]
        pools: dict[int, Pool] = {}  # lm generator: each turn's consensus pool
        advance = progress("selecting and responding", len(positive))
        with threadpool_limits(limits=1, user_api="blas"):  # small products: BLAS threads only spin
            for i in positive:
                out[i], pool = self._respond_turn(i, dataset, prepared, views, tracked[i])
                if pool is not None:
                    pools[i] = pool
                advance(1)
        if use_lm:
            self._lm_responses(dataset, out, pools, [i for i in positive if out[i].knowledge and i in pools], progress)
        return out

    def _respond_turn(
        self, i: int, dataset: Dataset, prepared: PreparedKnowledge, views: TurnViews, tracked: list[tuple]
    ) -> tuple[Label, Pool | None]:
        """The label of knowledge-seeking turn ``i`` (and its consensus pool, for the ``lm`` generator): which place
        is meant when none is named (rule ``ask_entity``), else the selected snippets and the response
        (:meth:`_answer`)."""
        index, tracker, text = prepared.index, prepared.tracker, views.texts[i]
        ranked = dataset.format is Format.DSTC9
        if not tracked and not ranked and self.config.uses("ask_entity"):
            return which_entity(index, tracker.chain_named(context_texts(dataset.contexts[i]))), None
        return self._answer(
            index,
            views.sel_emb[i],
            views.sel_tfidf[i],
            tracked or closest_entity(index, views.q_tfidf[i]),
            ranked,
            views.gated if views.faq_turns[i] else None,
            views.detected[i],
            views.gate_emb[i],
            tracker,
            text,
        )

    def _lm_responses(
        self, dataset: Dataset, out: list[Label], pools: dict, turns: list[int], progress: Progress
    ) -> None:
        """Answer ``turns`` with the fine-tuned LM (the selected snippets in the prompt): its candidates, chosen
        by MBR against each other and the turn's consensus pool (:func:`lm_consensus_response`)."""
        if self.lm is None and self.lm_dir is not None:
            from clarion.respond.lm import LmGenerator

            self.lm = LmGenerator.load(self.lm_dir, self.config.lm)
        names = dataset.knowledge.entity_names
        prompts = [
            lm_prompt(
                dataset.knowledge,
                dataset.contexts[i],
                out[i].knowledge,
                display_name(names.get(out[i].knowledge[0][:2])),
            )
            for i in turns
        ]
        generated = self.lm.generate(prompts, progress)
        weight = self.config.lm.pool_weight
        with threadpool_limits(limits=1, user_api="blas"):  # the MBR products only, not the LM's decoding
            for i, candidates in zip(turns, generated, strict=True):
                pool = pools[i]
                keys = out[i].knowledge
                closings = self.bank.closings
                follow_up = follow_up_for(keys, self.config.uses("entity_follow_up"), closings)
                response = lm_consensus_response(
                    candidates, pool.bodies, pool.weights, keys, weight, follow_up, closings
                )
                out[i] = Label(True, out[i].knowledge, response)

    def _answer(
        self,
        index: KnowledgeIndex,
        q_emb,
        q_tfidf,
        entities,
        ranked: bool,
        faq_fallback: FaqRule | None = None,
        detected: bool = True,
        gate_emb: np.ndarray | None = None,
        tracker: EntityTracker | None = None,
        turn_text: str = "",
    ) -> tuple[Label, Pool | None]:
        """Select snippets and respond: ``(label, None)``; for the ``lm`` generator ``(label without response,
        the turn's consensus pool)``, the response is generated for the whole batch (:meth:`_lm_responses`).
        ``faq_fallback``: the gated FAQ rule (DSTC11-format knowledge), when it fired on this turn; the turn is
        answered from the tracked entity's FAQ it paraphrases (``gate_emb``: the turn as the rule sees it) when the
        detector did not flag it (``detected``) or the selector is unsure (:meth:`FaqAnswers.route`); a turn only the
        rule flagged whose entity has no such FAQ is not knowledge-seeking after all. ``tracker``: the knowledge
        base's names (cut from the turn)."""
        group, snippets = index.group(q_emb, q_tfidf, entities)
        if not snippets:
            return Label(True, (), "I'm sorry, I could not find information about that."), None
        view = q_emb if gate_emb is None else gate_emb  # the turn as the FAQ rule sees it
        if ranked and self.config.select.faq_cosine and self.config.dense:  # FAQ-only knowledge: zero-shot
            scores = group.snippets @ group.query
        else:
            group.memory = memory_features(self.bank, q_emb, group.snippets)
            if self.selector.memory is not None:
                group.key_memory = self.selector.memory.features(q_emb, [s.key for s in snippets])
            scores = self.selector.scores(group)
            if faq_fallback is not None:
                routed = self.faqs.route(index, scores, faq_fallback, view, snippets, detected)
                if routed is not None:
                    return routed, None
        chosen = self.selector.choose(scores, ranked=ranked)
        if not ranked and self.config.uses("known_sets"):
            faqs = [s.doc_type == "faq" for s in snippets]
            chosen = keep_known_set(chosen, scores, [s.key for s in snippets], self.bank.answer_sets(), faqs)
        turn = Query(q_emb, turn_text)
        return self.responder.respond(index, [snippets[j] for j in chosen], group.snippets[chosen], ranked, turn)

"""The DSTC pipeline: detect -> track the entity -> select snippets -> respond (DESIGN.md's pipeline shape).

:func:`train` fits a :class:`DstcModel` on a labelled :class:`~clarion.dstc.io.Dataset`; :meth:`DstcModel.predict`
returns one :class:`~clarion.dstc.io.Label` per context, for either track format (DSTC9/10 predictions rank
``rank_k`` snippets and answer with the template, i.e. the best FAQ's answer, since the neighbour bank holds
DSTC11 review summaries; DSTC11 predictions keep every snippet above the calibrated threshold). The detector
is OR'ed with the FAQ-paraphrase rule of :mod:`.faq_rule` (for DSTC11-format knowledge its gated form); a DSTC11
turn the gated rule fires on and for which the selector is unsure (no snippet reaches
:data:`FAQ_FALLBACK_CONFIDENCE`) is answered from the FAQ it paraphrases.
:meth:`DstcModel.prepare` binds a model to a knowledge base once (snippet index, entity tracker, FAQ rule) for
callers that predict turn by turn.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from enum import Enum
from functools import cached_property
from itertools import takewhile
from pathlib import Path

import numpy as np
from threadpoolctl import threadpool_limits

from clarion.dstc.io import Dataset, Knowledge, Label, Snippet, key_entities
from clarion.dstc.models.anchors import anchored, anchors, aspect_stems
from clarion.dstc.models.candidates import KnowledgeIndex
from clarion.dstc.models.config import PipelineConfig
from clarion.dstc.models.detect import (
    Detector,
    as_question,
    asks_preference_only,
    coordinated_parts,
    follow_up_question,
    might_ask_preference,
)
from clarion.dstc.models.downsides import (
    ASKS_COMPLAINTS,
    ASKS_DOWNSIDES,
    ASKS_UPSIDES,
    REVIEW_CUE,
    asks_downsides,
    asks_opinion,
    asks_upsides,
    complaints,
    downsides_response,
    praises,
    upsides_response,
)
from clarion.dstc.models.entities import EntityTracker
from clarion.dstc.models.faq_rule import (
    ENTITY_FAQ_COSINE,
    GATE_MARGIN,
    FaqRule,
    answering_faqs,
    asks_accessibility,
    asks_age,
    faq_questions,
    other_end_of_stay,
    stay_end,
)
from clarion.dstc.models.generate import (
    Generator,
    NeighbourBank,
    Pool,
    agreeing,
    closed,
    consensus_choice,
    consensus_pool,
    dishes,
    display_name,
    faq_answers,
    faq_claims,
    follow_up_for,
    foreign_details,
    lm_consensus_response,
    mean_embedding,
    neighbour_response,
    snippets_response,
    snippets_used,
    split_follow_up,
    swap_entity,
    with_detail_penalty,
    with_faq_answers,
    words_of,
)
from clarion.dstc.models.lm import lm_prompt
from clarion.dstc.models.memory import memory_features
from clarion.dstc.models.progress import Progress, no_progress
from clarion.dstc.models.select import N_DENSE, Selector
from clarion.dstc.schema import Format
from clarion.errors import ModelError

DISH_SHARE = 0.2
"""A dish the user names (:meth:`DstcModel._dish_snippets`) is a word in the knowledge of at most this share of the
places ("biryani", "mussels", "risotto"; not "chicken", in 35% of them, nor "meal", in half)."""
FAQ_FALLBACK_CONFIDENCE = 0.5
"""DSTC11-format knowledge: a turn that paraphrases an FAQ question (the gated rule) is answered from that FAQ when
the detector did not flag it or the selector's best score (a probability) is below this. The selector learnt
DSTC11's questions, nearly all about reviews; on an FAQ question of a kind the training dialogues never ask ("Is
there a lift?") it is often unsure, and its best guess is then an unrelated review."""


MAX_BRANCHES = 5
"""The most branches of a chain offered when a dialogue names the chain alone (more: which place, generally)."""
FAQ_OUTRANKS = 0.2
"""How much closer to the turn (MiniLM cosine, names cut) the FAQ it paraphrases must be than every snippet the
selector chose, for :attr:`PipelineConfig.faq_fallback_memory` to answer from the FAQ instead."""
REVIEW_ASPECT_GAP = 0.2
"""With :attr:`PipelineConfig.review_floor`: how much closer to the turn the other places' reviews (the mean of their
10 closest sentences) must be than the tracked place's closest, for the turn to be about an aspect reviews discuss
elsewhere and the place's never touch."""
OUTRANKING_FAQ_COSINE = 0.5
"""The least cosine (names cut) between the turn and the place's FAQ that may outrank the selector's choice
(:meth:`DstcModel._outranked`); below :data:`~clarion.dstc.models.faq_rule.ENTITY_FAQ_COSINE`, where the gated rule's
own answers stop: "Do they speak French?" is 0.52 from the Lensfield Hotel's "What languages are spoken at this
location?", whose answer lists French, and the selector chose reviews about noise (train CV: no turn changes)."""


class DataSplit(str, Enum):
    """Which contexts of a data directory a command uses (the split is by dialogue, see clarion.dstc.split)."""

    all = "all"
    train = "train"
    dev = "dev"


def apply_split(dataset: Dataset, split: DataSplit | str) -> Dataset:
    """``dataset`` itself for ``all``, else its train or dev side (:func:`clarion.dstc.split.split_dataset`)."""
    from clarion.dstc.split import split_dataset

    split = DataSplit(split)
    return dataset if split is DataSplit.all else split_dataset(dataset, split.value)


def embed_queries(texts: list[str], dense: bool, cached: bool = False) -> np.ndarray:
    """MiniLM embeddings of the user turns (zeros when ``dense`` is off)."""
    if not dense:
        return np.zeros((len(texts), N_DENSE), dtype=np.float32)
    from clarion.retrieve.dense import encode, encode_cached

    return encode_cached(texts, name="dstc-queries") if cached else encode(texts)


def query_texts(dataset: Dataset) -> list[str]:
    return [c.last_user_text for c in dataset.contexts]


def embed_without_names(texts: list[str], embeddings: np.ndarray, tracker: EntityTracker, dense: bool) -> np.ndarray:
    """``embeddings`` of ``texts`` with every text that names an entity embedded again without the name
    (:meth:`EntityTracker.strip_names`); the others are reused as they are."""
    stripped = [tracker.strip_names(t) for t in texts]
    named = [i for i, (text, plain) in enumerate(zip(texts, stripped, strict=True)) if text != plain]
    if not named:
        return embeddings
    out = embeddings.copy()
    out[named] = embed_queries([stripped[i] for i in named], dense)
    return out


def context_texts(context) -> list[str]:
    return [t.text for t in context.turns]


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
    """A trained pipeline: detector, selection TF-IDF + selector, and the neighbour bank."""

    config: PipelineConfig
    detector: Detector
    selector: Selector
    vectorizer: object
    bank: NeighbourBank
    lm: object | None = None
    """The fine-tuned :class:`~clarion.dstc.models.lm.LmGenerator` (models trained with ``--generator lm``)."""
    lm_dir: Path | None = None
    """Where :attr:`lm` is loaded from on first use (a saved model whose directory holds ``lm.safetensors``)."""
    faq_negatives: np.ndarray | None = None
    """MiniLM embeddings of the training turns that are not knowledge-seeking (:mod:`.faq_rule`'s negatives)."""
    faq_negatives_stripped: np.ndarray | None = None
    """The same turns embedded with entity names removed (the gated rule's negatives; ``DetectConfig.strip_names``)."""

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
        texts = query_texts(dataset)
        if self.config.uses("follow_ups") and dataset.format is Format.DSTC11:
            texts = self._follow_ups(dataset, texts, prepared)
        advance = progress("encoding user turns", 1)
        q_emb = embed_queries(texts, self.config.dense)
        advance(1)
        detected = self.detector.predict(texts, q_emb)
        if self.config.uses("review_cues") and dataset.format is Format.DSTC11:
            detected = detected | np.array(
                [
                    bool(REVIEW_CUE.search(text) or self._asks_opinion(text, prepared.tracker))
                    and bool(prepared.tracker.track(context_texts(c)))
                    for text, c in zip(texts, dataset.contexts, strict=True)
                ],
                dtype=bool,
            )
        if self.config.uses("aspect_requests") and dataset.format is Format.DSTC11:
            detected = detected | self._aspect_requests(texts, dataset, prepared.tracker)
        faq_turns = np.zeros(len(texts), dtype=bool)
        gated = prepared.faq_rule if prepared.faq_rule is not None and prepared.faq_rule.penalties is not None else None
        strip_gate = gated is not None and self._strips_names()
        strip_select = self.config.select.strip_names
        unnamed: list[np.ndarray] = []  # the turns without entity names: embedded once, when first needed

        def without_names() -> np.ndarray:
            if not unnamed:
                unnamed.append(embed_without_names(texts, q_emb, prepared.tracker, self.config.dense))
            return unnamed[0]

        gate_emb = without_names() if strip_gate else q_emb  # the gated rule's view of the turns
        if prepared.faq_rule is not None:
            faq_turns = prepared.faq_rule.matches(gate_emb)
        if gated is not None and self.config.detect.entity_faq_cosine is not None:
            faq_turns |= self._entity_faq_turns(dataset, prepared, gate_emb, detected | faq_turns)
        if gated is not None and self.config.uses("coordinated_detection"):
            faq_turns |= self._coordinated_turns(dataset, prepared, texts, detected | faq_turns)
        # A last user turn with no letter or digit (an empty ASR hypothesis, "...") asks nothing: not knowledge-seeking.
        wordless = np.array([not any(c.isalnum() for c in text) for text in texts], dtype=bool)
        targets = (detected | faq_turns) & ~wordless
        index, tracker = prepared.index, prepared.tracker
        if self.config.uses("preference_apart"):  # "Which one is better?": which place to choose, no aspect asked about
            for i in np.flatnonzero(targets):  # names cut only for the flagged turns that could be such a request
                if might_ask_preference(texts[i]) and asks_preference_only(tracker.strip_names(texts[i])):
                    targets[i] = False
        positive = [i for i, t in enumerate(targets) if t]
        tracked = {i: tracker.track(context_texts(dataset.contexts[i])) for i in positive}
        needed = sorted({e for ents in tracked.values() for e in ents if index.snippets(e)}, key=str)
        index.prepare(needed, progress("encoding entity snippets", len(needed)))
        q_tfidf = self.vectorizer.transform(texts)
        sel_emb, sel_tfidf = q_emb, q_tfidf  # the turn as selection and generation see it
        if strip_select and positive:  # no knowledge-seeking turn: nothing to select, nothing to embed again
            sel_emb = without_names()
            sel_tfidf = self.vectorizer.transform(
                [tracker.strip_names(t) if targets[i] else t for i, t in enumerate(texts)]
            )
        ranked = dataset.format is Format.DSTC9
        outranking = (
            gated is not None and self.config.param("faq_outranks_memory", "cosine") is not None
        )  # on every detected turn
        out = [Label(False) for _ in texts]
        pools: dict[int, Pool] = {}  # lm generator: each turn's consensus pool
        advance = progress("selecting and responding", len(positive))
        with threadpool_limits(limits=1, user_api="blas"):  # small products: BLAS threads only spin
            for i in positive:
                if not tracked[i] and not ranked and self.config.uses("ask_entity"):
                    if not detected[i] and self.config.uses(
                        "rule_needs_place"
                    ):  # the FAQ rule's turn, no place's FAQ to
                        advance(1)  # answer from: "Is there a 4 star guesthouse with free parking?" is a search
                        continue
                    out[i] = self._which_entity(index, tracker.chain_named(context_texts(dataset.contexts[i])))
                    advance(1)
                    continue
                if tracked[i] and not ranked and (opinion := self._asks_opinion(texts[i], tracker)):
                    out[i] = self._opinions(index, tracked[i][0], opinion)
                    advance(1)
                    continue
                entities = tracked[i] or self._fallback_entity(index, q_tfidf[i])
                fallback = gated if faq_turns[i] or outranking else None
                out[i], pool = self._answer(
                    index,
                    sel_emb[i],
                    sel_tfidf[i],
                    entities,
                    ranked,
                    fallback,
                    detected[i],
                    gate_emb[i],
                    tracker,
                    bool(faq_turns[i]),
                    texts[i],
                )
                if gated is not None and self.config.uses("coordinated_faqs") and not ranked:
                    out[i] = self._coordinated_faqs(index, gated, tracker, texts[i], out[i])
                if pool is not None:
                    pools[i] = pool
                advance(1)
        if use_lm:
            self._lm_responses(dataset, out, pools, [i for i in positive if out[i].knowledge and i in pools], progress)
        return out

    @staticmethod
    def _follow_ups(dataset: Dataset, texts: list[str], prepared: PreparedKnowledge) -> list[str]:
        """``texts`` with each elliptical follow-up about another place read as the question it follows
        (:func:`~clarion.dstc.models.detect.follow_up_question`), that question's place swapped for the one named
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
        ("Tell me about the breakfast at the Alexander B&B.", :func:`~clarion.dstc.models.detect.as_question`) and
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

    def _foreign_details(self, index: KnowledgeIndex, pool: Pool, keys, turn_text: str) -> list[list[str]]:
        """Per choosable body of ``pool``, its :func:`~clarion.dstc.models.generate.foreign_details`."""
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

    @staticmethod
    def _dish_snippets(
        index: KnowledgeIndex, snippets: Sequence[Snippet], turn: str, tracker: EntityTracker | None
    ) -> list[Snippet]:
        """The ``snippets`` that name a dish the turn names (:func:`~clarion.dstc.models.generate.dishes`; ``turn``
        and the snippets with entity names cut: "Pizza Hut City Centre has some good food portion sizes." names no
        pizza). A borrowed answer about the drinks or the portions had answered "Does the Royal Standard have
        delicious Leeks Vinaigrette on their menu?", and one about another place's dish ("... only a few cocktails")
        "How are the cocktails at Zizzi Cambridge?"; the selected snippets naming the dish answer instead
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
        """The turns not in ``known`` whose last question joins parts with "and" (:func:`~clarion.dstc.models.detect.
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

    def _lm_responses(
        self, dataset: Dataset, out: list[Label], pools: dict, turns: list[int], progress: Progress
    ) -> None:
        """Answer ``turns`` with the fine-tuned LM (the selected snippets in the prompt): its candidates, chosen
        by MBR against each other and the turn's consensus pool (:func:`lm_consensus_response`)."""
        if self.lm is None and self.lm_dir is not None:
            from clarion.dstc.models.lm import LmGenerator

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
                follow_up = follow_up_for(keys, self.config.uses("entity_follow_up"))
                response = lm_consensus_response(candidates, pool.bodies, pool.weights, keys, weight, follow_up)
                out[i] = Label(True, out[i].knowledge, response)

    @staticmethod
    def _faq_label(index: KnowledgeIndex, faqs: Sequence[Snippet], by_entities: bool = False) -> Label:
        """The answer from FAQs (one per place): their answer texts and the follow-up question (``by_entities``:
        "... either of them?" for two places, :func:`~clarion.dstc.models.generate.follow_up_for`)."""
        keys = [faq.key for faq in faqs]
        response = closed(snippets_response(list(faqs), index.knowledge.entity_names), follow_up_for(keys, by_entities))
        return Label(True, tuple(keys), response)

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
        (:func:`~clarion.dstc.models.faq_rule.other_end_of_stay`: "Can I check in early?" and "What time is
        check-out?"), which neither the selector nor the FAQ rule may answer it from."""
        out = np.zeros(len(snippets), dtype=bool)
        if self.config.uses("stay_ends_apart") and stay_end(turn_text) is not None:  # most turns name neither end
            for i, snippet in enumerate(snippets):
                out[i] = snippet.doc_type == "faq" and other_end_of_stay(turn_text, snippet.title)
        return out

    def _anchored_faq(self, index: KnowledgeIndex, rule, view, choices, scores, snippets, plain_turn: str, group):
        """With ``aspect_anchors`` (off by default: docs/dstc_detection.md): the FAQ among ``choices`` that an aspect
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
        :data:`OUTRANKING_FAQ_COSINE`), and no chosen snippet is within ``unknown_aspect_cosine`` of the turn: "Do
        they allow dogs at the Golden Curry?" was answered "Yes, the Golden Curry does have a great outdoor dining
        area" from its outdoor-seating FAQ (cosine 0.28 to the turn)."""
        threshold = self.config.param("unknown_aspect", "cosine")
        if threshold is None or rule is None or rule.penalties is None or not self.config.dense or len(chosen_emb) == 0:
            return False
        if float((chosen_emb @ turn_emb).max()) >= threshold or not rule.reaches(turn_emb[None, :], rule.threshold)[0]:
            return False
        return rule.best_faq(turn_emb, snippets, OUTRANKING_FAQ_COSINE) is None

    def _absent_review_aspect(self, index: KnowledgeIndex, turn_emb: np.ndarray, snippets, group, chosen) -> bool:
        """Whether the chosen snippets are reviews of one place none of whose review sentences is within
        ``review_floor`` of the turn (names cut), while the other places of its domain have reviews about it (their 10
        closest sentences :data:`REVIEW_ASPECT_GAP` closer on average): "Is it noisy?" about Zizzi Cambridge, whose
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
        whose question is closest to the turn within :data:`OUTRANKING_FAQ_COSINE` (with ``last_resort_faq``; each
        other tracked place's too, as ``faq_every_place`` does), else :meth:`_no_answer`. "Do they allow pets?" at the
        Lensfield Hotel had been told "I could not find any information about that": the selector was unsure, its FAQ
        "Can I bring my dog?" (cosine 0.53) below the answering floor, and the chosen reviews unrelated to the turn."""
        named = self._dish_snippets(index, snippets, turn, tracker) if self.config.uses("dish_answers") and turn else []
        dish = snippets_used(named)
        if dish:
            return self._reported(index, dish, [s.key for s in dish]), None
        if self.config.uses("last_resort_faq") and rule is not None:
            faq = rule.best_faq(view, snippets, OUTRANKING_FAQ_COSINE)
            if faq is not None:
                return self._faq_answer(index, rule, view, snippets, faq, OUTRANKING_FAQ_COSINE), None
        return self._no_answer(index, entities), None

    def _reported(self, index: KnowledgeIndex, snippets: Sequence[Snippet], keys: list[tuple]) -> Label:
        """The answer about ``keys`` that puts ``snippets`` into reported speech (:func:`snippets_response`), with the
        follow-up question for ``keys``."""
        answer = snippets_response(snippets, index.knowledge.entity_names)
        return Label(True, tuple(keys), closed(answer, follow_up_for(keys, self.config.uses("entity_follow_up"))))

    def _faq_answer(
        self, index: KnowledgeIndex, rule: FaqRule, view, snippets, faq: Snippet, floor: float, gated: bool = False
    ) -> Label:
        """The answer from ``faq``, with each other tracked place's closest FAQ at the same ``floor`` and gate when
        ``faq_every_place`` (:meth:`_other_places_faqs`)."""
        faqs = [faq]
        if self.config.uses("faq_every_place"):
            faqs += self._other_places_faqs(rule, view, snippets, faq, floor, gated)
        return self._faq_label(index, faqs, self.config.uses("entity_follow_up"))

    def _coordinated_faqs(
        self, index: KnowledgeIndex, rule: FaqRule, tracker: EntityTracker, text: str, label: Label
    ) -> Label:
        """``label`` with, for a turn asking about two things of one place ("Do they have a pool and a gym?", which
        had been answered from the pool FAQ alone) and answered from an FAQ, the place's FAQ closest to each part of
        the question (:func:`~clarion.dstc.models.detect.coordinated_parts`, names cut) within
        :data:`~clarion.dstc.models.faq_rule.ENTITY_FAQ_COSINE` that is not selected yet: its key joins the snippets
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
        return Label(True, tuple(keys), closed(body, follow_up or ""))

    def _asks_opinion(self, text: str, tracker: EntityTracker) -> str | None:
        """``"downsides"`` (with ``downsides``) when the turn asks what guests dislike about a place, ``"upsides"``
        (with ``upsides``) when it asks what they like, naming no aspect
        (:func:`~clarion.dstc.models.downsides.asks_downsides`, :func:`~clarion.dstc.models.downsides.asks_upsides`,
        names cut); else None."""
        if self.config.uses("downsides") and ASKS_DOWNSIDES.search(text):  # most turns: no names to cut
            return "downsides" if asks_downsides(tracker.strip_names(text)) else None
        if self.config.uses("upsides") and ASKS_UPSIDES.search(text):
            return "upsides" if asks_upsides(tracker.strip_names(text)) else None
        return None

    def _opinions(self, index: KnowledgeIndex, entity: tuple, opinion: str) -> Label:
        """The answer to what guests dislike (``opinion`` ``"downsides"``) or like (``"upsides"``) about ``entity``:
        its reviews' complaints or praise (:func:`~clarion.dstc.models.downsides.complaints`,
        :func:`~clarion.dstc.models.downsides.praises`) in reported speech, or that there are none."""
        name = display_name(index.knowledge.entity_names.get(entity))
        if opinion == "downsides":
            found = complaints(index.snippets(entity))
            body = downsides_response(name, found)
        else:
            found = praises(index.snippets(entity))
            body = upsides_response(name, found)
        return Label(True, tuple(s.key for s in found), closed(body, follow_up_for([entity])))

    @staticmethod
    def _no_answer(index: KnowledgeIndex, entities: list[tuple]) -> Label:
        """Knowledge-seeking, but no snippet of the tracked entities answers it (the selector's best probability is
        below ``abstain_below``): say so rather than answer from the closest snippets ("Do they have a sauna?" was
        answered with a review of clean bathrooms)."""
        names = [display_name(index.knowledge.entity_names.get(entity)) for entity in entities[:2]]
        about = " or ".join(names) if names else "this place"
        return Label(True, (), f"I'm sorry, I could not find any information about that for {about}.")

    @staticmethod
    def _which_entity(index: KnowledgeIndex, branches: Sequence[tuple] = ()) -> Label:
        """Knowledge-seeking, but no hotel, restaurant, ... is named anywhere in the dialogue ("Do any of them offer
        free wifi?" after "We have 18 moderately priced hotels"): ask which one rather than answer about the entity
        of the lexically closest snippet, which named the wrong place on 5 of the 6 such turns of dstc11_track5's train
        and dev. A chain named without its branch (``branches``: :meth:`EntityTracker.chain_named`, at most
        :data:`MAX_BRANCHES` of them) gets its branches offered, by name: "Which Pizza Hut do you mean: Pizza Hut Cherry
        Hinton, Pizza Hut City Centre or Pizza Hut Fen Ditton?"."""
        names = index.knowledge.entity_names
        offered = sorted(display_name(names.get(key)) for key in branches)
        if 1 < len(offered) <= MAX_BRANCHES:
            columns = zip(*(o.split() for o in offered), strict=False)  # the words the names open with alike
            chain = " ".join(c[0] for c in takewhile(lambda c: len(set(c)) == 1, columns))
            listed = f"{', '.join(offered[:-1])} or {offered[-1]}"
            return Label(True, (), f"Which {chain or 'one'} do you mean: {listed}?")
        domains = sorted({domain for domain, entity in names if entity != "*"})
        return Label(True, (), f"Which {' or '.join(domains) or 'place'} are you asking about?")

    def _fallback_entity(self, index: KnowledgeIndex, q_tfidf) -> list[tuple]:
        """No name in the context: the entity of the lexically closest snippet (cheap, no encoding)."""
        best, best_score = [], -1.0
        for entity in index.entities():
            matrix = index.tfidf(entity)
            if matrix.shape[0] == 0:
                continue
            score = float((matrix @ q_tfidf.T).max())
            if score > best_score:
                best, best_score = [entity], score
        return best

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
        fired: bool = True,
        turn_text: str = "",
    ) -> tuple[Label, Pool | None]:
        """Select snippets and respond: ``(label, None)``; for the ``lm`` generator ``(label without response,
        the turn's consensus pool)``, the response is generated for the whole batch (:meth:`_lm_responses`).
        ``faq_fallback``: the gated FAQ rule (DSTC11-format knowledge), when it fired on this turn (``fired``) or
        :attr:`PipelineConfig.faq_fallback_memory` is set; the turn is answered from the tracked entity's FAQ it
        paraphrases (``gate_emb``: the turn as the rule sees it) when the rule fired and the detector did not flag it
        (``detected``) or the selector is unsure (:data:`FAQ_FALLBACK_CONFIDENCE`), or, on any turn, when that FAQ
        outranks the selector's choice (:meth:`_outranked`); a turn only the rule flagged whose entity has no such FAQ
        is not knowledge-seeking after all. ``tracker``: the knowledge base's names, for the ``faithful`` consensus
        (:func:`consensus_pool`)."""
        group, snippets = index.group(q_emb, q_tfidf, entities)
        if not snippets:
            return Label(True, (), "I'm sorry, I could not find information about that."), None
        view = q_emb if gate_emb is None else gate_emb  # the turn as the FAQ rule sees it
        plain_turn = tracker.strip_names(turn_text) if tracker is not None else turn_text
        faq_choices = snippets  # the FAQs the gated rule's answers choose from
        if faq_fallback is not None and self.config.uses("accessibility_apart"):
            faq_choices = answering_faqs(faq_fallback, view, snippets, turn_text, self._apart)
        other_end = self._other_end_of_stay(snippets, turn_text)  # FAQs about the end of the stay not asked about
        if other_end.any():
            apart = {s.key for s, other in zip(snippets, other_end, strict=True) if other}
            faq_choices = [s for s in faq_choices if s.key not in apart]
        if ranked and self.config.select.faq_cosine and self.config.dense:  # FAQ-only knowledge: zero-shot
            scores = group.snippets @ group.query
        else:
            group.memory = memory_features(self.bank, q_emb, group.snippets)
            if self.selector.memory is not None:
                group.key_memory = self.selector.memory.features(q_emb, [s.key for s in snippets])
            scores = self.selector.scores(group)
            scores[other_end] = 0.0
            if faq_fallback is not None:
                floor, gated = ENTITY_FAQ_COSINE, False
                faq = faq_fallback.best_faq(view, faq_choices)
                entity_cosine = self.config.detect.entity_faq_cosine
                below = entity_cosine is not None and entity_cosine < ENTITY_FAQ_COSINE
                if faq is None and fired and not detected and below:
                    # the entity gate alone took the turn, below the answering floor: an FAQ it fires on answers
                    floor, gated = entity_cosine, True
                    faq = faq_fallback.best_faq(view, faq_choices, floor, gated=True)
                unsure = fired and (not detected or scores.max() < FAQ_FALLBACK_CONFIDENCE)
                if faq is None and (not unsure or (detected and self.config.uses("unsure_outranking"))):
                    floor = OUTRANKING_FAQ_COSINE  # the outranking test looks further than the rule's answers
                    faq = faq_fallback.best_faq(view, faq_choices, floor)
                    unsure = False
                anchor = self._anchored_faq(index, faq_fallback, view, faq_choices, scores, snippets, plain_turn, group)
                if anchor is not None:  # a word of an aspect the training turns never asked names the place's FAQ
                    return self._faq_answer(index, faq_fallback, view, faq_choices, anchor, ENTITY_FAQ_COSINE), None
                if unsure or self._outranked(group, scores, snippets, faq, faq_fallback, q_emb, view, plain_turn):
                    if faq is not None:
                        return self._faq_answer(index, faq_fallback, view, faq_choices, faq, floor, gated), None
                    if not detected:  # the entity has no such FAQ: left to the dialogue manager, as without the rule
                        return Label(False), None
            if (
                not ranked
                and self.config.param("abstain", "below") is not None
                and scores.max() < self.config.param("abstain", "below")
            ):
                return self._apology(index, entities, faq_fallback, view, faq_choices, plain_turn, tracker)
        chosen = self.selector.choose(scores, ranked=ranked)
        if not ranked and (
            self._unrelated(group.snippets[chosen], view)
            or self._unknown_aspect(faq_fallback, view, faq_choices, group.snippets[chosen])
            or self._absent_review_aspect(index, view, snippets, group, chosen)
        ):
            return self._apology(index, entities, faq_fallback, view, faq_choices, plain_turn, tracker)
        picked = [snippets[j] for j in chosen]
        top = picked[0]
        name = display_name(index.knowledge.entity_names.get((top.domain, top.entity_id)))
        pool = picked[:1] if ranked else picked
        if self.config.generator is Generator.template or ranked:  # DSTC9/10: the FAQ answer itself
            template = snippets_response(pool, index.knowledge.entity_names)
            return Label(True, tuple(s.key for s in picked), template), None
        config = self.config
        k_emb = mean_embedding(group.snippets[chosen[: len(pool)]])
        keys = [s.key for s in pool]
        consensus = config.generator is Generator.consensus
        dish = (
            self._dish_snippets(index, pool, plain_turn, tracker) if consensus and config.uses("dish_answers") else []
        )
        if dish:  # the selected reviews naming the dish asked about answer: no borrowed body, no pool to build
            return self._reported(index, dish, [s.key for s in picked]), None
        if config.generator in (Generator.lm, Generator.consensus):
            names = index.knowledge.entity_names if config.uses("comparisons") else None
            faithful = tracker if config.uses("faithful") else None
            evidence = consensus_pool(
                self.bank,
                q_emb,
                k_emb,
                name,
                keys,
                config.consensus_k,
                config.exact_weight,
                config.param("overlap_pool", "jaccard"),
                names,
                faithful,
                config.param("relevance_gate", "margin"),
                config.param("relevance_exact", "margin"),
            )
            if config.generator is Generator.lm:  # the LM's candidates are chosen against this pool later
                return Label(True, tuple(s.key for s in picked)), evidence
            follow_up = follow_up_for(keys, config.uses("entity_follow_up"))
            if (
                config.param("detail_penalty", "penalty") is not None
                and evidence.sources is not None
                and self.bank.keys
            ):
                details = self._foreign_details(index, evidence, keys, turn_text)
                evidence = with_detail_penalty(
                    evidence, [bool(d) for d in details], config.param("detail_penalty", "penalty")
                )
            if config.uses("faq_agreement") and len({key[:2] for key in keys}) == 1:  # one place: a body restating a
                # selected FAQ with the other polarity may only vote
                evidence = agreeing(evidence, faq_claims(pool))
            no_fit = config.uses("faithful") and evidence.choosable == 0  # no training answer fits: the snippets answer
            fallback = snippets_response(pool, index.knowledge.entity_names) if no_fit else None
            faqs = faq_answers(pool)
            response = consensus_choice(
                evidence,
                keys,
                follow_up,
                faqs,
                config.param("faq_cover", "cover"),
                fallback,
                turn_text or None,
                config.uses("denials_said"),
                plain_turn if config.uses("aspect_words") else None,
                config.uses("downsides") and bool(ASKS_COMPLAINTS.search(turn_text)),
            )
        else:
            response = neighbour_response(self.bank, q_emb, k_emb, name, config.neighbour_weight, config.neighbour_k)
        return Label(True, tuple(s.key for s in picked), response), None

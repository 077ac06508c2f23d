"""Training the DSTC pipeline on a labelled dataset (CPU, a couple of minutes on dstc11_track5 train).

1. Detection: :class:`~clarion.detect.knowledge.Detector` on every context's last user turn.
2. Selection: a TF-IDF vectorizer over the knowledge snippets; the :class:`~clarion.rerank.snippets.Selector`
   is fitted and its threshold calibrated on out-of-fold scores by
   :func:`~clarion.rerank.snippets_fit.fit_selector`.
3. Generation: the neighbour bank (training responses, query and gold-knowledge embeddings, entity names); with
   the ``lm`` generator also SmolLM2-135M fine-tuned on the responses (about 35 minutes on dstc11_track5 train).
"""

from __future__ import annotations

import numpy as np

from clarion.data.dstc import Dataset, key_entities
from clarion.detect.knowledge import Detector
from clarion.dstc.models.pipeline import DstcModel, PipelineConfig
from clarion.dstc.models.turns import embed_queries, embed_without_names, query_texts
from clarion.errors import InputError
from clarion.ground.entities import EntityTracker
from clarion.ground.names import display_name
from clarion.rerank.snippets_fit import fit_selector
from clarion.respond.consensus import Generator, NeighbourBank, body_texts
from clarion.respond.follow_up import Closings
from clarion.respond.lm import LmGenerator, lm_prompt
from clarion.respond.pool import mean_embedding
from clarion.retrieve.knowledge import KnowledgeIndex
from clarion.store import Progress, no_progress


def _bank(dataset, knowledge_turns, index, q_emb, body_tracker=None) -> NeighbourBank:
    """The neighbour bank of the knowledge-seeking turns, with the closing questions learnt from their responses;
    with ``body_tracker``, their bodies embedded as well (``NeighbourBank.body_emb``, for rule ``relevance_gate``)."""
    responses, names, k_embs = [], [], []
    for i in knowledge_turns:
        label = dataset.labels[i]
        rows = []
        for key in label.knowledge:
            snippets = index.snippets(key[:2])
            pos = next((j for j, s in enumerate(snippets) if s.key == tuple(key)), None)
            if pos is not None:
                rows.append(index.embeddings(key[:2])[pos])
        responses.append(label.response or "")
        first = key_entities(label.knowledge)
        names.append(dataset.knowledge.entity_names.get(first[0]) if first else None)
        k_embs.append(mean_embedding(rows, q_emb.shape[1]))
    q = q_emb[knowledge_turns] if knowledge_turns else np.zeros((0, q_emb.shape[1]), np.float32)
    keys = [frozenset(tuple(k) for k in dataset.labels[i].knowledge) for i in knowledge_turns]
    entities = key_entities(key for turn_keys in keys for key in turn_keys)
    entity_names = {e: dataset.knowledge.entity_names[e] for e in entities if e in dataset.knowledge.entity_names}
    k_emb = np.asarray(k_embs, dtype=np.float32).reshape(-1, q_emb.shape[1])
    bodies = None
    if body_tracker is not None and responses:
        from clarion.retrieve.dense import encode_cached

        bodies = encode_cached(body_texts(responses, body_tracker), name="dstc-bodies")
    return NeighbourBank(responses, names, q, k_emb, keys, Closings.learn(responses, keys), bodies, entity_names)


def train(dataset: Dataset, config: PipelineConfig | None = None, progress: Progress = no_progress):
    """Fit a :class:`DstcModel` on ``dataset`` (which must have labels); returns ``(model, info)``."""
    from sklearn.feature_extraction.text import TfidfVectorizer

    config = config or PipelineConfig()
    if dataset.labels is None:
        raise InputError("training needs labels.json in the data directory")
    if config.max_contexts:
        dataset = dataset.subset(range(min(config.max_contexts, len(dataset.contexts))))
    targets = [int(lab.target) for lab in dataset.labels]
    knowledge_turns = [i for i, t in enumerate(targets) if t and dataset.labels[i].knowledge]
    if len(set(targets)) < 2 or not knowledge_turns:
        raise InputError("training needs both knowledge-seeking and other turns in labels.json")
    texts = query_texts(dataset)
    advance = progress("encoding user turns", 1)
    q_emb = embed_queries(texts, config.dense, cached=True)
    advance(1)
    detector = Detector(config.detect)
    detector.fit(texts, targets, q_emb)
    vectorizer = TfidfVectorizer(sublinear_tf=True, stop_words="english")
    vectorizer.fit([s.text for s in dataset.knowledge.snippets()] + texts)
    index = KnowledgeIndex(dataset.knowledge, vectorizer, config.dense)
    entities = sorted(key_entities(k for i in knowledge_turns for k in dataset.labels[i].knowledge), key=str)
    index.prepare(entities, progress("encoding entity snippets", len(entities)))
    q_tfidf = vectorizer.transform(texts)
    tracker = EntityTracker.from_knowledge(dataset.knowledge)
    sel_emb, sel_tfidf = q_emb, q_tfidf  # the turns as selection and generation see them
    if config.select.strip_names:  # ... without entity names (the entity is tracked from the dialogue)
        sel_emb = embed_without_names(texts, q_emb, tracker, config.dense)
        sel_tfidf = vectorizer.transform([tracker.strip_names(t) for t in texts])
    relevance = config.uses("relevance_gate") and config.generator in (Generator.consensus, Generator.lm)
    bank = _bank(dataset, knowledge_turns, index, sel_emb, tracker if relevance and config.dense else None)
    selector, cal_f1 = fit_selector(dataset, knowledge_turns, index, sel_emb, sel_tfidf, config.select, bank, progress)
    info = {"calibration_selection_f1": round(cal_f1, 4), "selection_threshold": selector.threshold}
    lm = None
    if config.generator is Generator.lm:
        lm = LmGenerator(config.lm)
        info["lm_train_loss"] = round(lm.fit(*_lm_examples(dataset, knowledge_turns), progress), 4)
    rows = [i for i, t in enumerate(targets) if not t]
    negatives = q_emb[rows] if config.dense else None
    stripped = None
    if config.dense and config.detect.strip_names:  # the gated FAQ rule's negatives: the turns without names
        stripped = embed_without_names([texts[i] for i in rows], negatives, tracker, True)
    model = DstcModel(
        config, detector, selector, vectorizer, bank, lm, faq_negatives=negatives, faq_negatives_stripped=stripped
    )
    return model, info


def _lm_examples(dataset: Dataset, knowledge_turns: list[int]) -> tuple[list[str], list[str]]:
    """(prompt, response) of every knowledge-seeking training turn, prompted with its gold snippets."""
    prompts, responses = [], []
    for i in knowledge_turns:
        label = dataset.labels[i]
        first = key_entities(label.knowledge)
        name = display_name(dataset.knowledge.entity_names.get(first[0]) if first else None)
        prompts.append(lm_prompt(dataset.knowledge, dataset.contexts[i], label.knowledge, name))
        responses.append(label.response or "")
    return prompts, responses

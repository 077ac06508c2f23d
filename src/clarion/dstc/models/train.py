"""Training the DSTC pipeline on a labelled dataset (CPU, a couple of minutes on dstc11_track5 train).

1. Detection: :class:`~clarion.dstc.models.detect.Detector` on every context's last user turn.
2. Selection: a TF-IDF vectorizer over the knowledge snippets; the :class:`~clarion.dstc.models.select.Selector`
   is fitted on the knowledge-seeking turns of most training dialogues (candidates: every snippet of the gold
   entities) and its threshold calibrated on the held-out ``calibration_percent`` of dialogues with the
   *tracked* entities as candidates (as at prediction time), then refitted on all training turns.
3. Generation: the neighbour bank (training responses, query and gold-knowledge embeddings, entity names).
"""

from __future__ import annotations

import numpy as np

from clarion.dstc.io import Dataset
from clarion.dstc.models.candidates import KnowledgeIndex
from clarion.dstc.models.detect import Detector
from clarion.dstc.models.entities import EntityTracker
from clarion.dstc.models.generate import NeighbourBank, mean_embedding
from clarion.dstc.models.memory import memory_features
from clarion.dstc.models.pipeline import (
    DstcModel,
    PipelineConfig,
    Progress,
    _no_progress,
    context_texts,
    embed_queries,
    query_texts,
)
from clarion.dstc.models.select import Selector
from clarion.dstc.split import Part, dialogue_ids, split_indices
from clarion.errors import InputError


def _gold_entities(label) -> list[tuple]:
    seen: list[tuple] = []
    for key in label.knowledge:
        if tuple(key[:2]) not in seen:
            seen.append(tuple(key[:2]))
    return seen


def _groups(dataset, indices, index, q_emb, q_tfidf, entities_of, memory):
    groups, labels = [], []
    for i in indices:
        label = dataset.labels[i]
        group, snippets = index.group(q_emb[i], q_tfidf[i], entities_of(i))
        if not snippets:
            continue
        group.memory = memory(i, group)
        gold = set(label.knowledge)
        groups.append(group)
        labels.append(np.array([s.key in gold for s in snippets]))
    return groups, labels


def _fit_selector(dataset, knowledge_turns, index, q_emb, q_tfidf, config, bank, progress):
    dialogue = np.array(dialogue_ids(dataset.contexts))
    bank_dialogue = dialogue[knowledge_turns]

    def memory(i, group):
        return memory_features(bank, group.query, group.snippets, exclude=bank_dialogue == dialogue[i])

    sub = dataset.subset(knowledge_turns)
    parts = split_indices(sub.contexts, config.calibration_percent)
    fit_idx = [knowledge_turns[j] for j in parts[Part.TRAIN]] or knowledge_turns
    cal_idx = [knowledge_turns[j] for j in parts[Part.DEV]] or fit_idx
    tracker = EntityTracker.from_names(dataset.knowledge.entity_names)

    def gold(i):
        return _gold_entities(dataset.labels[i])

    def tracked(i):
        return tracker.track(context_texts(dataset.contexts[i])) or gold(i)

    advance = progress("fitting the snippet selector", 3)
    selector = Selector(config.select)
    selector.fit(*_groups(dataset, fit_idx, index, q_emb, q_tfidf, gold, memory))
    advance(1)
    f1 = selector.calibrate(*_groups(dataset, cal_idx, index, q_emb, q_tfidf, tracked, memory))
    advance(1)
    if config.refit:
        threshold = selector.threshold
        selector.fit(*_groups(dataset, knowledge_turns, index, q_emb, q_tfidf, gold, memory))
        selector.threshold = threshold
    advance(1)
    return selector, f1


def _bank(dataset, knowledge_turns, index, q_emb) -> NeighbourBank:
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
        first = _gold_entities(label)
        names.append(dataset.knowledge.entity_names.get(first[0]) if first else None)
        k_embs.append(mean_embedding(rows))
    q = q_emb[knowledge_turns] if knowledge_turns else np.zeros((0, 384), np.float32)
    return NeighbourBank(responses, names, q, np.asarray(k_embs, dtype=np.float32).reshape(-1, 384))


def train(dataset: Dataset, config: PipelineConfig | None = None, progress: Progress = _no_progress):
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
    entities = sorted({tuple(k[:2]) for i in knowledge_turns for k in dataset.labels[i].knowledge}, key=str)
    index.prepare(entities, progress("encoding entity snippets", len(entities)))
    q_tfidf = vectorizer.transform(texts)
    bank = _bank(dataset, knowledge_turns, index, q_emb)
    selector, cal_f1 = _fit_selector(dataset, knowledge_turns, index, q_emb, q_tfidf, config, bank, progress)
    info = {"calibration_selection_f1": round(cal_f1, 4), "selection_threshold": selector.threshold}
    return DstcModel(config, detector, selector, vectorizer, bank), info

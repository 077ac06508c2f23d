"""Candidate snippets per entity, with lazily computed (and disk-cached) MiniLM embeddings and TF-IDF rows.

Entity snippets are encoded on first use with :func:`clarion.retrieve.dense.encode_cached` (one cache file per
entity, keyed by the snippet texts), so predicting on DSTC10 encodes only the entities the dialogues mention.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from clarion.data.dstc import Knowledge
from clarion.retrieve.packaged import N_DENSE
from clarion.types import Snippet


@dataclass
class Group:
    """One turn's candidates: the query embedding, candidate embeddings, TF-IDF cosines and types (what the snippet
    selector, :mod:`clarion.rerank.snippets`, scores)."""

    query: np.ndarray  # (384,)
    snippets: np.ndarray  # (n, 384)
    lexical: np.ndarray  # (n,) TF-IDF cosine
    is_faq: np.ndarray  # (n,) bool
    n_entities: int = 1
    doc: np.ndarray | None = None  # (n,) document number within the group (review sentences share one)
    memory: np.ndarray | None = None  # (n, 2) see clarion.rerank.response_memory
    key_memory: np.ndarray | None = None  # (n, 4) see clarion.rerank.snippet_memory


class KnowledgeIndex:
    """Snippets grouped by entity, with their embeddings and TF-IDF vectors on demand."""

    def __init__(self, knowledge: Knowledge, vectorizer, dense: bool = True):
        self.knowledge = knowledge
        self.vectorizer = vectorizer
        self.dense = dense
        self._by_entity: dict[tuple, list[Snippet]] = {}
        for snippet in knowledge.snippets():
            self._by_entity.setdefault((snippet.domain, snippet.entity_id), []).append(snippet)
        self._emb: dict[tuple, np.ndarray] = {}
        self._tfidf: dict[tuple, object] = {}

    def snippets(self, entity: tuple) -> list[Snippet]:
        return self._by_entity.get(tuple(entity), [])

    def entities(self) -> list[tuple]:
        return list(self._by_entity)

    def embeddings(self, entity: tuple) -> np.ndarray:
        entity = tuple(entity)
        if entity not in self._emb:
            from clarion.retrieve.dense import encode_cached

            texts = [s.text for s in self.snippets(entity)]
            if texts and self.dense:
                self._emb[entity] = encode_cached(texts, name="dstc-entity")
            else:
                self._emb[entity] = np.zeros((len(texts), N_DENSE), np.float32)
        return self._emb[entity]

    def prepare(self, entities: Sequence[tuple], progress=None) -> None:
        """Encode the snippets of ``entities`` now (``progress(n)`` is called after each entity)."""
        for entity in entities:
            self.embeddings(entity)
            if progress is not None:
                progress(1)

    def tfidf(self, entity: tuple):
        entity = tuple(entity)
        if entity not in self._tfidf:
            self._tfidf[entity] = self.vectorizer.transform([s.text for s in self.snippets(entity)])
        return self._tfidf[entity]

    def group(self, query_emb: np.ndarray, query_tfidf, entities: Sequence[tuple]) -> tuple[Group, list]:
        """The candidate :class:`Group` over every snippet of ``entities`` and those snippets."""
        snippets: list[Snippet] = []
        embs, lex = [], []
        for entity in entities:
            found = self.snippets(entity)
            if not found:
                continue
            snippets.extend(found)
            embs.append(self.embeddings(entity))
            lex.append(np.asarray((self.tfidf(entity) @ query_tfidf.T).todense()).ravel())
        if not snippets:
            empty = np.zeros(0)
            return Group(query_emb, np.zeros((0, N_DENSE), np.float32), empty, empty.astype(bool)), []
        is_faq = np.array([s.doc_type != "review" for s in snippets])
        doc_keys = [(s.domain, s.entity_id, s.doc_type, s.doc_id) for s in snippets]
        numbers = {key: i for i, key in enumerate(dict.fromkeys(doc_keys))}
        doc = np.array([numbers[key] for key in doc_keys])
        group = Group(query_emb, np.vstack(embs), np.concatenate(lex), is_faq, len(entities), doc)
        return group, snippets

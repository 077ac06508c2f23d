"""Candidate snippets per entity, with lazily computed (and disk-cached) MiniLM embeddings and TF-IDF rows.

Entity snippets are encoded on first use with :func:`clarion.retrieve.dense.encode_cached` (one cache file per
entity, keyed by the snippet texts), so predicting on DSTC10 encodes only the entities the dialogues mention.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from clarion.data.dstc import Knowledge, Snippet
from clarion.rerank.snippets import N_DENSE, Group


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
        self._specific: dict[tuple, frozenset[str]] = {}
        self._words: dict[tuple, frozenset[str]] = {}
        self._name_words: frozenset[str] | None = None
        self._reviews: dict[str, tuple[np.ndarray, list[tuple]]] = {}

    def specific_words(self, share: float = 0.05, common: frozenset[str] = frozenset()) -> frozenset[str]:
        """Words (4+ letters, no English stop word) found in the knowledge of at least one and at most ``share`` of
        the entities: a dish, "oceanfront", "Tuscany" — details a response can only have from one place's knowledge;
        without the ``common`` ones (computed once per argument)."""
        key = (share, common)
        if key not in self._specific:
            from collections import Counter

            from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS

            df = Counter(w for e in self._by_entity for w in self.words(e))
            limit = share * len(self._by_entity)
            self._specific[key] = frozenset(
                w
                for w, n in df.items()
                if n <= limit and len(w) >= 4 and w not in ENGLISH_STOP_WORDS and w not in common
            )
        return self._specific[key]

    def name_words(self) -> frozenset[str]:
        """The lower-cased words of every entity's name (cached)."""
        if self._name_words is None:
            from clarion.text import words_of

            names = self.knowledge.entity_names.values()
            self._name_words = frozenset(w for name in names if name for w in words_of(name))
        return self._name_words

    def words(self, entity: tuple) -> frozenset[str]:
        """The lower-cased words of ``entity``'s snippets (cached)."""
        entity = tuple(entity)
        if entity not in self._words:
            from clarion.text import words_of

            self._words[entity] = frozenset(w for s in self.snippets(entity) for w in words_of(s.text))
        return self._words[entity]

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

    def reviews(self, domain: str) -> tuple[np.ndarray, list[tuple]]:
        """The embeddings of every review sentence of ``domain``'s entities and each one's entity (cached; the first
        call encodes the entities not yet encoded)."""
        if domain not in self._reviews:
            rows, owners = [], []
            for entity in (e for e in self._by_entity if e[0] == domain):
                keep = [j for j, s in enumerate(self.snippets(entity)) if s.doc_type == "review"]
                if keep:
                    rows.append(self.embeddings(entity)[keep])
                    owners.extend([entity] * len(keep))
            self._reviews[domain] = (np.vstack(rows) if rows else np.zeros((0, N_DENSE), np.float32), owners)
        return self._reviews[domain]

    def reviews_elsewhere(self, query_emb: np.ndarray, entity: tuple, top: int = 10) -> float:
        """The mean cosine of the ``top`` review sentences closest to ``query_emb`` among the other entities of
        ``entity``'s domain (-1 when they have none)."""
        emb, owners = self.reviews(entity[0])
        others = np.array([owner != tuple(entity) for owner in owners], dtype=bool)
        if not others.any():
            return -1.0
        cosines = np.sort(emb[others] @ query_emb)[::-1]
        return float(cosines[:top].mean())

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

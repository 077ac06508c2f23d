"""A document collection to answer from: JSONL of ``{"id", "title", "text"}``, searched by BM25 and dense vectors.

>>> collection = Collection.load("docs.jsonl")            # doctest: +SKIP
>>> [(hit.id, round(hit.score, 3)) for hit in collection.search("hip roof pictures", k=3)]   # doctest: +SKIP

Each passage is indexed twice: bm25s over title and text (built at load, milliseconds for thousands of passages)
and the packaged MiniLM's embeddings, computed once and cached under the cache directory keyed by the encoder and
the passages' content (:func:`clarion.retrieve.dense.encode_cached`). A query's two rankings are fused by
reciprocal rank (:data:`RRF_K`), and the best passage answers it, citing its id.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from clarion.errors import DataError

RRF_K = 60
"""Reciprocal rank fusion constant (Cormack et al., 2009)."""
MAX_DOCUMENTS = 1_000_000


@dataclass(frozen=True)
class Document:
    id: str
    title: str
    text: str

    def to_dict(self) -> dict[str, str]:
        return {"id": self.id, "title": self.title, "text": self.text}


@dataclass(frozen=True)
class Hit:
    document: Document
    score: float

    @property
    def id(self) -> str:
        return self.document.id


def read_documents(path: str | Path) -> list[Document]:
    """The documents of a JSONL file; a bad line is a :class:`DataError` naming the file and line."""
    from clarion.data.io import read_lines

    docs: list[Document] = []
    seen: set[str] = set()
    for line, text in read_lines(path):
        if not text.strip():
            continue
        try:
            obj = json.loads(text)
        except json.JSONDecodeError as err:
            raise DataError(path, f"not JSON ({err.msg} at column {err.colno})", line) from None
        if not isinstance(obj, dict):
            raise DataError(path, 'expected an object {"id", "title", "text"}', line)
        doc_id, title, body = obj.get("id"), obj.get("title", ""), obj.get("text")
        if isinstance(doc_id, int) and not isinstance(doc_id, bool):
            doc_id = str(doc_id)
        if not isinstance(doc_id, str) or not doc_id.strip():
            raise DataError(path, "id: must be a non-empty string", line)
        if doc_id in seen:
            raise DataError(path, f"id: {doc_id!r} repeated", line)
        if not isinstance(title, str):
            raise DataError(path, "title: must be a string", line)
        if not isinstance(body, str) or not body.strip():
            raise DataError(path, "text: must be a non-empty string", line)
        seen.add(doc_id)
        docs.append(Document(doc_id, title.strip(), body.strip()))
        if len(docs) > MAX_DOCUMENTS:
            raise DataError(path, f"more than {MAX_DOCUMENTS:,} documents", line)
    if not docs:
        raise DataError(path, "no documents (expected one JSON object per line)")
    return docs


class Collection:
    """Documents indexed by BM25 and dense vectors (see the module docstring)."""

    def __init__(self, documents: Sequence[Document], encoder=None):
        from clarion.retrieve.bm25 import BM25Index
        from clarion.retrieve.dense import encode_cached

        self.documents = list(documents)
        texts = [f"{d.title} {d.text}".strip() for d in self.documents]
        self.bm25 = BM25Index([d.id for d in self.documents], texts)
        self.encoder = encoder
        self.embeddings = encode_cached(texts, name="collection", encoder=encoder)

    @classmethod
    def load(cls, path: str | Path, encoder=None) -> Collection:
        return cls(read_documents(path), encoder)

    def search(self, query: str, k: int = 3) -> list[Hit]:
        """The ``k`` best documents for ``query`` by reciprocal rank fusion of BM25 and cosine, best first."""
        from clarion.retrieve.dense import encode_queries

        lexical = self.bm25.scores([query])[0]
        dense = self.embeddings @ encode_queries([query], encoder=self.encoder)[0]
        fused = np.zeros(len(self.documents))
        for scores in (lexical, dense):
            order = np.argsort(-scores, kind="stable")
            fused[order] += 1.0 / (RRF_K + 1 + np.arange(len(order)))
        if not lexical.any():  # no query word in the collection: the dense ranking alone
            fused = dense
        best = np.argsort(-fused, kind="stable")[:k]
        return [Hit(self.documents[i], float(fused[i])) for i in best]

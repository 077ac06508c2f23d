"""The user turns as the pipeline reads them: their texts, their MiniLM embeddings (with and without entity names)."""

from __future__ import annotations

import numpy as np

from clarion.data.dstc import Dataset
from clarion.ground.entities import EntityTracker
from clarion.retrieve.packaged import N_DENSE


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

"""Snippet-level memory for knowledge selection: was *this* snippet the answer to a similar training question?

DSTC11 asks about the same aspects of the same entities again and again (docs/dstc.md's caveat: 244 of the
299 dev knowledge-seeking turns have a gold snippet set identical to some training turn's), so a k-nearest-
neighbour vote over the *keys* of the training turns' gold snippets is a strong selection signal — the
label-propagation view of kNN classification (Cover & Hart, 1967) applied per candidate. For a query ``q``
and a candidate snippet ``s`` of entity ``e``:

- ``best``: the highest MiniLM cosine between ``q`` and a training question whose gold knowledge holds ``s``
  (-1 when none does);
- ``margin``: ``best`` minus the highest cosine between ``q`` and any training question about ``e`` (0 when
  the nearest question about this entity chose ``s``, or when no training question is about ``e``);
- ``entity_best``: that highest cosine about ``e`` (how well the memory covers this entity at all);
- ``votes``: how many training questions with cosine above 0.8 chose ``s``.

On unseen entities (DSTC10) every column is -1/0 and the selector falls back on its content features.
Training turns of the query's own dialogue are excluded while fitting (leave-one-dialogue-out), as in
:mod:`clarion.rerank.response_memory`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from clarion.data.dstc import key_entities
from clarion.types import Key

N_KEY_MEMORY = 4
_VOTE_COSINE = 0.8


@dataclass
class KeyMemory:
    """Training questions (embeddings) and the keys of their gold snippets."""

    query_emb: np.ndarray  # (m, 384), L2-normalised
    keys: list[tuple[Key, ...]]
    _by_key: dict[Key, list[int]] = field(default_factory=dict, repr=False)
    _by_entity: dict[tuple, list[int]] = field(default_factory=dict, repr=False)

    def __post_init__(self) -> None:
        for row, keys in enumerate(self.keys):
            for key in keys:
                self._by_key.setdefault(tuple(key), []).append(row)
            for entity in key_entities(keys):
                self._by_entity.setdefault(entity, []).append(row)

    def features(self, query: np.ndarray, keys: Sequence[Key], exclude: np.ndarray | None = None) -> np.ndarray:
        """``(len(keys), 4)``: best, margin, entity_best, votes (see the module docstring).

        >>> mem = KeyMemory(np.eye(2, dtype=np.float32), [(("hotel", 1, 0, 0),), (("hotel", 1, 0, 1),)])
        >>> mem.features(np.array([1.0, 0.0]), [("hotel", 1, 0, 0), ("hotel", 1, 0, 1), ("hotel", 2, 0, 0)])
        array([[ 1.,  0.,  1.,  1.],
               [ 0., -1.,  1.,  0.],
               [-1.,  0., -1.,  0.]], dtype=float32)
        """
        out = np.zeros((len(keys), N_KEY_MEMORY), dtype=np.float32)
        if len(keys) == 0 or len(self.keys) == 0 or not np.any(query):
            out[:, 0] = out[:, 2] = -1.0
            return out
        sims = self.query_emb @ np.asarray(query, dtype=np.float32)
        if exclude is not None:
            sims = np.where(exclude, -1.0, sims)
        entity_best: dict[tuple, float] = {}
        for n, key in enumerate(keys):
            entity = tuple(key[:2])
            if entity not in entity_best:
                rows = self._by_entity.get(entity, [])
                entity_best[entity] = float(sims[rows].max()) if rows else -1.0
            rows = self._by_key.get(tuple(key), [])
            chosen = sims[rows] if rows else np.full(1, -1.0)
            best = float(chosen.max())
            out[n] = (best, best - entity_best[entity], entity_best[entity], float((chosen > _VOTE_COSINE).sum()))
        return out

    def state(self, arrays: dict[str, np.ndarray]) -> dict:
        """JSON state (the keys); the embeddings go into ``arrays``."""
        arrays["select_keymem_query"] = np.asarray(self.query_emb, dtype=np.float32)
        return {"keys": [[list(key) for key in keys] for keys in self.keys]}

    @classmethod
    def from_state(cls, state: dict, arrays: dict[str, np.ndarray]) -> KeyMemory:
        keys = [tuple(tuple(key) for key in row) for row in state["keys"]]
        return cls(arrays["select_keymem_query"], keys)

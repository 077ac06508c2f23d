"""Feature groups for clarification-need prediction, computed per request and ablatable by name.

Groups (:class:`FeatureGroup`): ``form`` (request length and form, :mod:`clarion.detect.form`), ``bank``
(questions won in the per-question softmax, retrieval confidence, neighbouring requests), ``spread``
(dissimilarity and clustering of the request's questions and of its top 10), ``markers`` (wording of the
request's questions: alternatives, "are you referring to", "which kind"), ``lexicon`` (WordNet senses of
the topic phrase, :mod:`clarion.detect.lexicon`), ``request-emb`` (the MiniLM
embedding of the request) and ``set-emb`` (the mean embedding of its questions). All are label-free, so
the features of a training topic and of a new topic are computed the same way.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import Enum

import numpy as np

from clarion.detect import ambiguity, form, lexicon
from clarion.errors import InputError


class FeatureGroup(str, Enum):
    """The ablatable feature groups."""

    FORM = "form"
    BANK = "bank"
    SPREAD = "spread"
    MARKERS = "markers"
    LEXICON = "lexicon"
    REQUEST_EMB = "request-emb"
    SET_EMB = "set-emb"


EMBEDDING_DIM = 384
GROUP_FEATURES: dict[FeatureGroup, tuple[str, ...]] = {
    FeatureGroup.FORM: form.FORM_FEATURES,
    FeatureGroup.BANK: ambiguity.BANK_FEATURES,
    FeatureGroup.SPREAD: ambiguity.SPREAD_FEATURES,
    FeatureGroup.MARKERS: ambiguity.MARKER_FEATURES,
    FeatureGroup.LEXICON: lexicon.LEXICON_FEATURES,
    FeatureGroup.REQUEST_EMB: tuple(f"req_{i}" for i in range(EMBEDDING_DIM)),
    FeatureGroup.SET_EMB: tuple(f"set_{i}" for i in range(EMBEDDING_DIM)),
}
ALL_GROUPS = tuple(FeatureGroup)


def parse_groups(names: Sequence[str | FeatureGroup]) -> tuple[FeatureGroup, ...]:
    """Feature groups from their names, in canonical order; an unknown name raises :class:`InputError`."""
    out = set()
    for name in names:
        try:
            out.add(FeatureGroup(name))
        except ValueError:
            choices = ", ".join(g.value for g in FeatureGroup)
            raise InputError(f"unknown feature group {name!r}; choose from: {choices}") from None
    if not out:
        raise InputError("at least one feature group is needed")
    return tuple(g for g in FeatureGroup if g in out)


def feature_names(groups: Sequence[FeatureGroup]) -> list[str]:
    """The column names of :meth:`FeatureSpace.features` for ``groups``."""
    return [name for group in groups for name in GROUP_FEATURES[group]]


def _request_features(
    pool: ambiguity.RequestPool, request: str, embedding: np.ndarray
) -> dict[FeatureGroup, np.ndarray]:
    key = form.normalise(request)
    view = ambiguity.bank_view(pool, key, embedding)
    words = frozenset(form.topic_phrase(request).split()) - form.stopwords()
    return {
        FeatureGroup.FORM: form.form_features(request),
        FeatureGroup.BANK: ambiguity.bank_features(pool, view, key, embedding),
        FeatureGroup.SPREAD: ambiguity.spread_features(pool, view, embedding),
        FeatureGroup.MARKERS: ambiguity.marker_features(pool, view, words),
        FeatureGroup.LEXICON: lexicon.lexicon_features(request),
        FeatureGroup.REQUEST_EMB: embedding.astype(np.float64),
        FeatureGroup.SET_EMB: pool.bank[view.chosen].mean(axis=0).astype(np.float64),
    }


@dataclass
class FeatureSpace:
    """Turns requests into feature matrices against a fixed question bank and pool of known requests."""

    pool: ambiguity.RequestPool

    @classmethod
    def build(
        cls,
        bank_texts: Sequence[str],
        bank_emb: np.ndarray,
        requests: Sequence[str],
        temperature: float = ambiguity.TEMPERATURE,
    ) -> FeatureSpace:
        """A space over the bank (texts and cached embeddings) and the known ``requests`` (unlabelled)."""
        from clarion.retrieve.dense import encode_queries

        keys = list(dict.fromkeys(form.normalise(r) for r in requests))
        pool = ambiguity.RequestPool(bank_emb, list(bank_texts), encode_queries(keys), keys, temperature)
        return cls(pool)

    def features(
        self,
        requests: Sequence[str],
        groups: Sequence[FeatureGroup] = ALL_GROUPS,
        embeddings: np.ndarray | None = None,
    ) -> np.ndarray:
        """The ``(len(requests), n_features)`` matrix of ``groups`` (columns as :func:`feature_names`)."""
        if embeddings is None:  # the transformer called directly: one request in milliseconds
            from clarion.retrieve.dense import encode_queries

            embeddings = encode_queries(list(requests))
        rows = []
        for request, embedding in zip(requests, embeddings, strict=True):
            parts = _request_features(self.pool, request, embedding)
            rows.append(np.concatenate([parts[g] for g in groups]))
        return np.vstack(rows) if rows else np.zeros((0, len(feature_names(groups))))

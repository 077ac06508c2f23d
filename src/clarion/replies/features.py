"""Per-reply features for the LambdaMART reply ranker: embedding similarities, lexical overlap, form and length.

Every feature is a named function of one context's block (registered in :data:`FEATURES`), computed from the
MiniLM embeddings of the context's utterances and of its replies, so a context of any size is scored alike.
Features relative to the other candidates of the same context (a reply's cosine minus their mean, its rank,
its mean cosine to them) let the ranker compare replies instead of judging each alone.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from clarion.replies.embed import Candidates, Embedded

_WORD = re.compile(r"[a-z0-9']+")


def words(text: str) -> set[str]:
    return set(_WORD.findall(text.lower()))


@dataclass
class Block:
    """One context's embeddings and word sets, shared by the feature functions."""

    last: np.ndarray
    """Embedding of the last utterance (context_0)."""
    before: np.ndarray | None
    """Of the utterance before it, when there is one."""
    whole: np.ndarray
    """Mean of the utterances' embeddings, renormalised."""
    replies: np.ndarray
    """(n, d) replies' embeddings."""
    last_words: set[str]
    context_words: set[str]
    reply_words: list[set[str]]
    reply_texts: Sequence[str]


def _unit(vector: np.ndarray) -> np.ndarray:
    return vector / max(float(np.linalg.norm(vector)), 1e-9)


def block_of(group: Candidates, embedded: Embedded) -> Block:
    utterances = embedded.of(group.context)
    return Block(
        last=utterances[-1],
        before=utterances[-2] if len(utterances) > 1 else None,
        whole=_unit(utterances.mean(axis=0)),
        replies=embedded.of(group.replies),
        last_words=words(group.context[-1]),
        context_words=set().union(*(words(u) for u in group.context)),
        reply_words=[words(r) for r in group.replies],
        reply_texts=group.replies,
    )


def _cos_last(b: Block) -> np.ndarray:
    return b.replies @ b.last


def _cos_before(b: Block) -> np.ndarray:
    return b.replies @ b.before if b.before is not None else np.full(len(b.replies), np.nan)


def _cos_whole(b: Block) -> np.ndarray:
    return b.replies @ b.whole


def _cos_last_centred(b: Block) -> np.ndarray:
    cos = _cos_last(b)
    return cos - cos.mean()


def _cos_whole_centred(b: Block) -> np.ndarray:
    cos = _cos_whole(b)
    return cos - cos.mean()


def _cos_rank(b: Block) -> np.ndarray:
    cos = _cos_last(b)
    return (np.argsort(np.argsort(-cos)) / max(len(cos) - 1, 1)).astype(np.float64)


def _consensus(b: Block) -> np.ndarray:
    n = len(b.replies)
    if n < 2:
        return np.zeros(n)
    sims = b.replies @ b.replies.T
    return (sims.sum(axis=1) - np.diag(sims)) / (n - 1)


def _overlap_last(b: Block) -> np.ndarray:
    return np.array([len(w & b.last_words) / max(len(w | b.last_words), 1) for w in b.reply_words])


def _copied_share(b: Block) -> np.ndarray:
    return np.array([len(w & b.context_words) / max(len(w), 1) for w in b.reply_words])


def _reply_words(b: Block) -> np.ndarray:
    return np.log1p([len(t.split()) for t in b.reply_texts])


def _length_centred(b: Block) -> np.ndarray:
    n = _reply_words(b)
    return n - n.mean()


def _last_words(b: Block) -> np.ndarray:
    return np.full(len(b.replies), np.log1p(len(b.last_words)))


def _asks(b: Block) -> np.ndarray:
    return np.array([float("?" in t) for t in b.reply_texts])


def _size(b: Block) -> np.ndarray:
    return np.full(len(b.replies), float(len(b.replies)))


FEATURES: dict[str, Callable[[Block], np.ndarray]] = {
    "cos_last": _cos_last,
    "cos_before": _cos_before,
    "cos_whole": _cos_whole,
    "cos_last_centred": _cos_last_centred,
    "cos_whole_centred": _cos_whole_centred,
    "cos_rank": _cos_rank,
    "consensus": _consensus,
    "overlap_last": _overlap_last,
    "copied_share": _copied_share,
    "reply_words": _reply_words,
    "length_centred": _length_centred,
    "last_words": _last_words,
    "asks": _asks,
    "candidates": _size,
}
"""Feature name -> function of a context's :class:`Block` giving one value per reply."""


def feature_matrix(
    groups: Sequence[Candidates], embedded: Embedded, names: Sequence[str] = tuple(FEATURES)
) -> np.ndarray:
    """``(total replies, len(names))`` features, the groups' replies one after the other."""
    blocks = [block_of(g, embedded) for g in groups]
    if not blocks:
        return np.zeros((0, len(names)))
    return np.vstack([np.column_stack([FEATURES[n](b) for n in names]) for b in blocks])


def pair_vectors(groups: Sequence[Candidates], embedded: Embedded) -> np.ndarray:
    """Per reply, its embedding's element-wise products with the last utterance's and the whole context's, its
    absolute difference from the last utterance's, and itself (``4 d`` columns): the input of the learned
    ``matching`` model (:mod:`clarion.replies.methods`)."""
    parts = []
    for g in groups:
        b = block_of(g, embedded)
        parts.append(np.hstack([b.replies * b.last, b.replies * b.whole, np.abs(b.replies - b.last), b.replies]))
    return np.vstack(parts) if parts else np.zeros((0, 4 * embedded.vectors.shape[1]))

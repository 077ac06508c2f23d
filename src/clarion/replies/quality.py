"""Reply-quality features meant to transfer across sources of replies: fit, specificity, engagement, genericness.

Every feature is a named function (registered in :data:`QUALITY_FEATURES`) of one context's
:class:`~.features.Block` and of a :class:`Vocabulary` learnt from the training replies, so nothing names a
dataset's wording:

- **fit to the context**: MiniLM cosine of the reply to the last utterance and to the whole context; the number of
  content words (stems, stop words left out) it shares with the context; how much it merely repeats the last
  utterance (word Jaccard);
- **specificity**: its length and number of content words; the sum, mean and maximum IDF of its words, the IDF
  learnt from the training replies (a word no training reply holds counts as the rarest);
- **engagement**: a question back;
- **genericness, learnt from data**: in how many training contexts the same reply (lower-cased words) was given,
  and how crowded its neighbourhood is (mean cosine of its 10 nearest distinct training replies: "i am not sure"
  has many near-twins across contexts, a specific reply has few); the share of its words that are distinct
  (a degenerate "but it's not, but it's not" repeats itself); its mean cosine to the context's other candidates.

While training, a reply's own occurrence is left out of the vocabulary (document frequencies, its count, its
neighbours), so a training reply looks as unseen as a new one does.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np

from clarion.replies.embed import Candidates, Embedded
from clarion.replies.features import FEATURES, Block, block_of
from clarion.text import content_words, words_of

NEIGHBOURS = 10
POOL = 4000
"""Most distinct training replies kept for the neighbourhood feature (a seeded sample beyond that)."""


def reply_key(text: str) -> str:
    """The form under which two replies count as the same: their lower-cased words."""
    return " ".join(words_of(text))


@dataclass
class Vocabulary:
    """What the features learn from the training replies: document frequencies of words (over replies), how many
    contexts gave each reply, and a pool of distinct replies with their embeddings."""

    replies: int = 0
    document_frequency: dict[str, int] = field(default_factory=dict)
    contexts_with: dict[str, int] = field(default_factory=dict)
    pool_keys: list[str] = field(default_factory=list)
    pool: np.ndarray = field(default_factory=lambda: np.zeros((0, 0), dtype=np.float32))
    _position: dict[str, int] = field(default_factory=dict, repr=False, compare=False)

    @classmethod
    def learn(cls, groups: Sequence[Candidates], embedded: Embedded, seed: int = 13) -> Vocabulary:
        df: Counter[str] = Counter()
        contexts: Counter[str] = Counter()
        for g in groups:
            for reply in g.replies:
                df.update(set(words_of(reply)))
            contexts.update({reply_key(r) for r in g.replies})
        texts = sorted({r for g in groups for r in g.replies})
        by_key = {reply_key(t): t for t in texts}  # one text per distinct reply
        keys = sorted(by_key)
        if len(keys) > POOL:
            keys = sorted(np.random.default_rng(seed).choice(keys, POOL, replace=False).tolist())
        pool = embedded.of([by_key[k] for k in keys]) if keys else np.zeros((0, embedded.vectors.shape[1]))
        n = sum(len(g.replies) for g in groups)
        return cls(n, dict(df), dict(contexts), keys, pool.astype(np.float32))

    def position(self) -> dict[str, int]:
        """Pool key -> its row in :attr:`pool` (computed once)."""
        if len(self._position) != len(self.pool_keys):
            self._position = {k: i for i, k in enumerate(self.pool_keys)}
        return self._position

    def idf(self, word: str, held_in: bool) -> float:
        """``log((N + 1) / (df + 1))`` over the training replies; ``held_in``: the reply is one of them."""
        own = int(held_in and word in self.document_frequency)
        return math.log((self.replies - own + 1) / (self.document_frequency.get(word, 0) - own + 1))


@dataclass
class Scene:
    """One context's :class:`Block`, the vocabulary and whether its replies are training replies."""

    block: Block
    vocabulary: Vocabulary
    held_in: bool
    reply_lists: list[list[str]]
    keys: list[str]


def _idfs(s: Scene) -> list[list[float]]:
    return [[s.vocabulary.idf(w, s.held_in) for w in set(ws)] or [0.0] for ws in s.reply_lists]


def _idf_sum(s: Scene) -> np.ndarray:
    return np.array([sum(v) for v in _idfs(s)])


def _idf_mean(s: Scene) -> np.ndarray:
    return np.array([sum(v) / len(v) for v in _idfs(s)])


def _idf_max(s: Scene) -> np.ndarray:
    return np.array([max(v) for v in _idfs(s)])


def _words(s: Scene) -> np.ndarray:
    return np.log1p([len(ws) for ws in s.reply_lists])


def _content(s: Scene) -> np.ndarray:
    return np.log1p([len(content_words(t)) for t in s.block.reply_texts])


def _shared_content(s: Scene) -> np.ndarray:
    context = content_words(" ".join(sorted(s.block.context_words)))
    return np.log1p([len(content_words(t) & context) for t in s.block.reply_texts])


def _echo(s: Scene) -> np.ndarray:
    last = s.block.last_words
    return np.array([len(w & last) / max(len(w | last), 1) for w in s.block.reply_words])


def _distinct(s: Scene) -> np.ndarray:
    return np.array([len(set(ws)) / max(len(ws), 1) for ws in s.reply_lists])


def _commonness(s: Scene) -> np.ndarray:
    counts = s.vocabulary.contexts_with
    return np.log1p([max(counts.get(k, 0) - int(s.held_in), 0) for k in s.keys])


def _crowding(s: Scene) -> np.ndarray:
    pool = s.vocabulary.pool
    if len(pool) <= NEIGHBOURS:
        return np.zeros(len(s.keys))
    sims = s.block.replies @ pool.T
    position = s.vocabulary.position()
    for row, key in enumerate(s.keys):  # the reply itself (or its exact twin) is not its own neighbour
        if key in position:
            sims[row, position[key]] = -1.0
    return np.partition(sims, -NEIGHBOURS, axis=1)[:, -NEIGHBOURS:].mean(axis=1)


def _embedding(name: str) -> Callable[[Scene], np.ndarray]:
    return lambda s: FEATURES[name](s.block)


QUALITY_FEATURES: dict[str, Callable[[Scene], np.ndarray]] = {
    "cos_last": _embedding("cos_last"),
    "cos_whole": _embedding("cos_whole"),
    "shared_content": _shared_content,
    "echo": _echo,
    "copied_share": _embedding("copied_share"),
    "words": _words,
    "content_words": _content,
    "idf_sum": _idf_sum,
    "idf_mean": _idf_mean,
    "idf_max": _idf_max,
    "asks": _embedding("asks"),
    "commonness": _commonness,
    "crowding": _crowding,
    "distinct": _distinct,
    "consensus": _embedding("consensus"),
}
"""Feature name -> function of a context's :class:`Scene` giving one value per reply."""
FEATURE_GROUPS: dict[str, tuple[str, ...]] = {
    "fit": ("cos_last", "cos_whole", "shared_content", "echo", "copied_share"),
    "specificity": ("words", "content_words", "idf_sum", "idf_mean", "idf_max"),
    "engagement": ("asks",),
    "genericness": ("commonness", "crowding", "distinct", "consensus"),
}
"""The features by what they measure (the ablations of ``benchmarks/replies_sources.py --drop``)."""
DEFAULT_FEATURES: tuple[str, ...] = tuple(name for name in QUALITY_FEATURES if name != "shared_content")
"""The features the ``quality`` rankers read by default: all but ``shared_content``. Leave-one-source-out without it
was higher over all left-out contexts (+577 NDCG x 100,000, paired bootstrap 95% interval 337 to 827; docs/replies.md):
the constructed negatives of DailyDialog++ share the context's words on purpose, so the count of shared content words
taught a sign that replies from elsewhere do not follow, and the cosines already measure the fit."""


def quality_matrix(
    groups: Sequence[Candidates],
    embedded: Embedded,
    vocabulary: Vocabulary,
    held_in: bool = False,
    names: Sequence[str] = tuple(QUALITY_FEATURES),
) -> np.ndarray:
    """``(total replies, len(names))`` quality features, the groups' replies one after the other; ``held_in``
    when ``groups`` are the replies ``vocabulary`` was learnt from."""
    rows = []
    for g in groups:
        lists = [words_of(r) for r in g.replies]
        scene = Scene(block_of(g, embedded), vocabulary, held_in, lists, [" ".join(ws) for ws in lists])
        rows.append(np.column_stack([QUALITY_FEATURES[n](scene) for n in names]))
    return np.vstack(rows) if rows else np.zeros((0, len(names)))

"""Training the :class:`~clarion.dialogue.understand.Rewriter` on ClariQ rows and saving it in the model store.

Each labelled row (topic request, facet, question, the answer written for that facet) gives one group of
candidate rewrites; a candidate's target is the reciprocal rank of the row's facet among every facet of the
training splits, by the packaged MiniLM's cosine between the candidate and the facet descriptions. Rows are
sampled (``RewriterConfig.rows``, seeded) to bound the encoding time. :func:`cross_validate` scores the choice
out of fold, grouped by topic, beside always taking one candidate (``P+A`` is the organisers' baseline).
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from functools import partial
from pathlib import Path

import numpy as np

from clarion.data.clariq import ClariQ, ClariqLabels
from clarion.data.clariq_constants import NO_QUESTION, check_splits
from clarion.dialogue.understand import CANDIDATES, Features, Rewriter, Vocabulary, tokens
from clarion.errors import DataError
from clarion.store import Progress, no_progress

TASK, NAME = "dialogue", "rewriter"
FORMAT = 2
"""The candidates' and features' version, part of the saved model's key: 2 added the request-content candidates
(``Pc``); a rewriter saved with another format is retrained, not loaded."""


@dataclass(frozen=True)
class RewriterConfig:
    rows: int = 4000
    """Training rows sampled (each encodes len(CANDIDATES) texts)."""
    seed: int = 0
    trees: int = 200
    leaves: int = 15
    learning_rate: float = 0.05
    min_child: int = 20
    objective: str = "lambdarank"
    """How candidates are learned (:data:`OBJECTIVES`): ``lambdarank`` orders each row's candidates by their
    reciprocal rank (graded 0-10); ``regression`` predicts it."""
    later: int = 0
    """Examples at turns 2-3 (the query so far: the request and the facet's earlier answers), beside ``rows``."""

    @classmethod
    def tiny(cls) -> RewriterConfig:
        return cls(rows=120, trees=20, min_child=5)

    @classmethod
    def starter(cls) -> RewriterConfig:
        """Beside the starter ClariQ models (a first conversation with nothing trained): a quarter of the rows, a
        quarter of the encoding time (docs/conversation.md)."""
        return cls(rows=1000)


@dataclass
class Examples:
    """Candidate feature matrices and targets, one group of ``len(CANDIDATES)`` rows per example."""

    x: np.ndarray
    y: np.ndarray
    groups: list[str]
    """The topic of each example (for grouped folds)."""
    rows: list[tuple[str, str, str, int]] = field(default_factory=list)
    """(query so far, question, answer, turn) of each example, to compute other features for the same targets."""

    def with_features(self, vocabulary: Vocabulary) -> Examples:
        features = Features(vocabulary)
        x = np.vstack([features.matrix(*row) for row in self.rows])
        return Examples(x, self.y, self.groups, self.rows)


def labelled_rows(labels: ClariqLabels) -> list[tuple[str, str, str, str, str]]:
    """(topic, request, facet, question text, answer) for every answered bank question."""
    topic_of = {f: t for t, fs in labels.facets.items() for f in fs}
    out = []
    for (facet, qid), answer in labels.answers.items():
        question = labels.question_text.get(qid, "")
        if qid == NO_QUESTION or not question.strip() or not answer.strip():
            continue
        topic = topic_of[facet]
        out.append((topic, labels.requests[topic], facet, question, answer))
    return out


def facet_matrix(labels: ClariqLabels, encode: Callable) -> tuple[list[str], np.ndarray]:
    facets = [f for fs in labels.facets.values() for f in fs]
    return facets, encode([labels.facet_desc[f] for f in facets])


def reciprocal_ranks(queries: np.ndarray, facets: np.ndarray, gold: Sequence[int]) -> np.ndarray:
    """1 / rank of each gold facet by cosine (ties counted against the query)."""
    sims = queries @ facets.T
    own = sims[np.arange(len(gold)), gold]
    return 1.0 / (1.0 + (sims > own[:, None]).sum(axis=1))


def later_rows(labels: ClariqLabels, config: RewriterConfig) -> list[tuple[str, str, str, str, str, int]]:
    """(topic, query so far, facet, question, answer, turn): a row read after one or two earlier answers of the
    same facet (the query so far being the request followed by them)."""
    if not config.later:
        return []
    rows, rng = labelled_rows(labels), random.Random(config.seed + 1)
    by_facet: dict[str, list] = {}
    for row in rows:
        by_facet.setdefault(row[2], []).append(row)
    out = []
    for topic, request, facet, question, answer in rng.sample(rows, min(config.later, len(rows))):
        others = [r for r in by_facet[facet] if r[3] != question]
        earlier = rng.sample(others, min(rng.choice((1, 2)), len(others)))
        query = " ".join([request, *(" ".join(tokens(r[4])) for r in earlier)])
        out.append((topic, query, facet, question, answer, len(earlier) + 1))
    return out


def examples(labels: ClariqLabels, vocabulary: Vocabulary, config: RewriterConfig, encode: Callable) -> Examples:
    rows = labelled_rows(labels)
    rows = [(*r, 1) for r in random.Random(config.seed).sample(rows, min(config.rows, len(rows)))]
    rows += later_rows(labels, config)
    facets, facet_emb = facet_matrix(labels, encode)
    index = {f: i for i, f in enumerate(facets)}
    features = Features(vocabulary)
    texts, x = [], []
    for _topic, query, _facet, question, answer, turn in rows:
        texts.extend(features.candidates(query, question, answer).values())
        x.append(features.matrix(query, question, answer, turn))
    cut = sum(r[5] == 1 for r in rows) * len(CANDIDATES)  # first-turn texts and later ones encoded (cached) apart
    emb = np.vstack([part for part in (_encoded(texts[:cut], encode), _encoded(texts[cut:], encode)) if len(part)])
    gold = [index[r[2]] for r in rows for _ in CANDIDATES]
    y = reciprocal_ranks(emb, facet_emb, gold)
    return Examples(np.vstack(x), y, [r[0] for r in rows], [(r[1], r[3], r[4], r[5]) for r in rows])


def _encoded(texts: list[str], encode: Callable) -> np.ndarray:
    """``texts`` encoded, each distinct text once, in one call of ``encode`` (one cache entry)."""
    if not texts:
        return np.zeros((0, 0), dtype=np.float32)
    unique = sorted(set(texts))
    position = {t: i for i, t in enumerate(unique)}
    return encode(unique)[[position[t] for t in texts]]


def _regression(lgb, x: np.ndarray, y: np.ndarray):
    return {"objective": "regression"}, lgb.Dataset(x, y, categorical_feature=[0], free_raw_data=False)


def _lambdarank(lgb, x: np.ndarray, y: np.ndarray):
    n = len(CANDIDATES)
    graded = np.rint(y * 10).astype(int)
    params = {"objective": "lambdarank", "lambdarank_truncation_level": 3, "label_gain": list(range(11))}
    return params, lgb.Dataset(x, graded, group=[n] * (len(y) // n), categorical_feature=[0], free_raw_data=False)


OBJECTIVES = {"regression": _regression, "lambdarank": _lambdarank}
"""LightGBM objective by name: ``(lightgbm, features, reciprocal ranks) -> (params, dataset)``."""


def fit(ex: Examples, config: RewriterConfig, keep: np.ndarray | None = None):
    import lightgbm as lgb

    rows = np.repeat(keep, len(CANDIDATES)) if keep is not None else slice(None)
    if config.objective not in OBJECTIVES:
        raise ValueError(f"RewriterConfig.objective: {config.objective!r} is not one of {', '.join(OBJECTIVES)}")
    objective, data = OBJECTIVES[config.objective](lgb, ex.x[rows], ex.y[rows])
    params = objective | {
        "num_leaves": config.leaves,
        "learning_rate": config.learning_rate,
        "min_data_in_leaf": config.min_child,
        "num_threads": 1,
        "verbose": -1,
        "seed": config.seed,
        "deterministic": True,
    }
    return lgb.train(params, data, num_boost_round=config.trees)


def cross_validate(
    ex: Examples, config: RewriterConfig, folds: int = 5, advance: Callable[[int], None] = lambda n=1: None
) -> dict[str, float]:
    """Mean reciprocal rank, out of fold by topic, of the chosen candidate, of each fixed candidate, and of the
    best candidate of each example (the ceiling); ``advance(1)`` after each fold."""
    topics = sorted(set(ex.groups))
    fold_of = {t: i % folds for i, t in enumerate(random.Random(config.seed).sample(topics, len(topics)))}
    n = len(CANDIDATES)
    y = ex.y.reshape(-1, n)
    chosen = np.zeros(len(y))
    for k in range(folds):
        test = np.array([fold_of[g] == k for g in ex.groups])
        model = fit(ex, config, ~test)
        pred = model.predict(ex.x[np.repeat(test, n)]).reshape(-1, n)
        chosen[test] = y[test][np.arange(test.sum()), pred.argmax(axis=1)]
        advance(1)
    out = {"chosen": float(chosen.mean()), "oracle": float(y.max(axis=1).mean())}
    out |= {name: float(y[:, i].mean()) for i, name in enumerate(CANDIDATES)}
    return out


def vocabulary_for(data: ClariQ, labels: ClariqLabels) -> Vocabulary:
    bank = [t for q, t in data.bank.items() if q != NO_QUESTION and t.strip()]
    answers = [a for a in labels.answers.values() if a.strip()]
    return Vocabulary.learn(bank, answers, requests=[r for r in labels.requests.values() if r.strip()])


def train_rewriter(
    data: ClariQ,
    splits: Sequence[str],
    config: RewriterConfig,
    encode: Callable | None = None,
    progress: Progress = no_progress,
):
    """A :class:`Rewriter` trained on ``splits`` (and its out-of-fold metrics in ``meta``); ``progress`` sees the
    examples (their encoding), each of the five cross-validation folds and the final fit."""
    encode = encode or partial(_encode_shown, progress=progress)
    advance = progress("training the answer-understanding model", 7)
    labels = merged_labels(data, splits)
    vocabulary = vocabulary_for(data, labels)
    ex = examples(labels, vocabulary, config, encode)
    advance(1)
    metrics = cross_validate(ex, config, advance=advance)
    rewriter = Rewriter(vocabulary, fit(ex, config), {"cv": metrics})
    advance(1)
    return rewriter


def _encode_shown(texts: Sequence[str], progress: Progress) -> np.ndarray:
    """The packaged MiniLM's embeddings of ``texts`` (cached on disk), a bar counting the texts encoded."""
    from clarion.retrieve.dense import encode_cached

    advance, done = progress(f"answer understanding: encoding {len(texts):,} texts", len(texts)), [0]

    def on_batch(n: int) -> None:
        done[0] += n
        advance(n)

    emb = encode_cached(list(texts), name="dialogue-rewrites", on_batch=on_batch)
    advance(len(texts) - done[0])  # read from the cache: nothing was encoded
    return emb


def merged_labels(data: ClariQ, splits: Sequence[str]) -> ClariqLabels:
    out = ClariqLabels("+".join(splits))
    for split in check_splits(splits):
        part = data.labels(split)
        for name in ("requests", "need", "questions", "facets", "question_text", "facet_desc", "answers"):
            getattr(out, name).update(getattr(part, name))
    return out


def save(rewriter: Rewriter, directory: Path) -> None:
    from clarion.data.io import atomic_writer

    with atomic_writer(directory / "vocabulary.json") as handle:
        json.dump(asdict(rewriter.vocabulary), handle)
    with atomic_writer(directory / "rewriter.txt") as handle:
        handle.write(rewriter.booster.model_to_string())


def load(directory: str | Path) -> Rewriter:
    from clarion.classifier import booster_from_text
    from clarion.data.io import read_json, read_text
    from clarion.store import read_meta

    directory = Path(directory)
    meta = read_meta(directory)
    vocabulary = Vocabulary(**read_json(directory / "vocabulary.json"))
    booster = booster_from_text(read_text(directory / "rewriter.txt"), str(directory / "rewriter.txt"))
    rewriter = Rewriter(vocabulary, booster, meta.get("metrics", {}))
    if booster.num_feature() != len(rewriter.features.names):
        raise DataError(
            directory / "rewriter.txt",
            f"an answer-understanding model with {booster.num_feature()} features, this version reads "
            f"{len(rewriter.features.names)}: delete the directory to retrain it",
        )
    return rewriter


def rewriter_dir(data: ClariQ, splits: Sequence[str], config: RewriterConfig) -> Path:
    from clarion.store import model_dir

    return model_dir(TASK, NAME, _key(splits, config), data.fingerprint(splits))


def _key(splits: Sequence[str], config: RewriterConfig) -> dict:
    return asdict(config) | {"splits": list(splits), "format": FORMAT}


def load_or_train(
    data: ClariQ, splits: Sequence[str], config: RewriterConfig | None = None, progress: Progress = no_progress
) -> Rewriter:
    """The rewriter trained on ``splits``, trained now (:func:`clarion.store.ensure`; a few minutes) when absent."""
    from clarion.store import ensure, write_meta, writing

    config = config or RewriterConfig()

    def train(directory: Path) -> None:
        rewriter = train_rewriter(data, splits, config, progress=progress)
        with writing(directory) as out:
            save(rewriter, out)
            write_meta(out, _key(splits, config), data.fingerprint(splits), rewriter.meta)

    ready = partial(data.require_training_files, splits)
    what, on = "the answer-understanding model", f"ClariQ {'+'.join(splits)}"
    return load(ensure(rewriter_dir(data, splits, config), train, what, on, ready=ready))

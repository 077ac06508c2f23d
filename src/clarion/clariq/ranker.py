"""The multi-stage ClariQ clarifying-question ranker.

Stages (the pipeline shape of docs/architecture.md):

1. **retrieve** — the mean cosine of MiniLM fine-tuned on the labelled (request, question) pairs
   (:mod:`clarion.retrieve.finetune`) and of the packaged all-mpnet-base-v2 (``RankerConfig.encoders``, zero-shot; a
   composite encoder of :mod:`clarion.retrieve.dense`), character TF-IDF and BM25 of the request against the
   3,940-question bank, plus each question's *preference* for this request over every other known request (a
   per-question softmax, temperature 0.05, over the requests of the train, dev and test topics; labels unused) and its
   balanced (Sinkhorn) share (:mod:`clarion.rerank.balance`: every question belongs to one topic, every
   topic has about 14). A cheap first-stage score, propagated to each question's nearest bank questions,
   picks a shortlist (``config.shortlist`` questions);
2. **rerank** — a LightGBM LambdaMART over :data:`clarion.rerank.features.FEATURES` scores the shortlist;
3. **"no question"** — ``Q00001`` is relevant for 85% of the training topics, so it is inserted at the
   position that maximised mean Recall@5/10/20/30 in cross-validation on the training topics.

Training features are computed out of fold (5 folds over the labelled topics): the questions of a held-out
fold are not "attached" and the fold's MiniLM never saw them, exactly as for a new topic, so the combiner
learns from the situation it meets at test time.
"""

from __future__ import annotations

import shutil
import sys
import threading
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np

from clarion.bounds import SEED, Bound, check_fields
from clarion.clariq.constants import NO_QUESTION, validate_requests
from clarion.data.clariq import ClariQ
from clarion.data.io import read_json, write_json
from clarion.data.trec import strictly_decreasing
from clarion.errors import InputError, ModelError
from clarion.evaluate.result import Evaluation
from clarion.memo import Memo
from clarion.rerank.competition import COMPETITION_FEATURES, competition_features, score_table
from clarion.rerank.features import FEATURES, Space, first_stage
from clarion.rerank.lambdamart import LambdaMART
from clarion.retrieve.dense import Encoder, encoder_id, member_columns, members
from clarion.retrieve.finetune import FinetuneConfig
from clarion.retrieve.packaged import MPNET, PACKAGED, is_packaged

ENCODER_DIR = "encoder"
"""Where a saved ranker keeps its fine-tuned MiniLM."""
POOL_SPLITS = ("train", "dev", "test")
"""Splits whose (unlabelled) requests form the pool of known requests."""
FIT = 0.5
"""Score (:meth:`QuestionRanker.whole_bank`) below which a question is not offered to a request from outside ClariQ
(``Clarifier.rank(..., fitting=True)``): on the TREC descriptions of the train topics ranked over the whole bank by
the train-only model, every description's best question scores at least 0.72, and of their ten best questions those
below 0.5 are relevant 1 time in 30 (0.88 at 0.6 and above); "How do I reset my iPhone password?" gets 0.28 for "are
you trying to compare android to ios" (docs/clariq_ranking.md, "Requests from outside ClariQ")."""
SNAP = 0.75
"""Cosine (the ranker's encoder) at or above which a request that is not itself a known request is ranked as
its nearest known one ("Find symptoms of heart attack" as "What are signs of a heartattack?"). Chosen on the TREC
descriptions of the train topics with the train-only model (docs/clariq_ranking.md, "Requests from outside
ClariQ"): 71% of them reach it, 99% of those snap to their own request, and 1.1% reach it with their own request
left out of the pool (a new request snapping to a sibling topic; 3.2% at 0.70)."""
FOREIGN = 0.1
"""Cosine taken off a question, on the whole-bank route, per content word of its own topic's request that it names
and the request lacks. Chosen on the TREC descriptions of the train topics ranked over the whole bank
(``benchmarks/clariq_rewordings.py``; docs/clariq_ranking.md, "Requests from outside ClariQ")."""
PROPAGATE = 0.5
"""Whole-bank route: weight of the mean score of a question's nearest bank questions added to its own (the first
stage's propagation weight). Chosen on the same train descriptions (R@30 0.8477 without, 0.8540 with 0.5)."""


_BOUNDS = {
    "temperature": Bound("float", 0, open_low=True),
    "shortlist": Bound("int", 1),
    "folds": Bound("int", 2),
    "seed": SEED,
    "rounds": Bound("int", 1),
    "learning_rate": Bound("float", 0, open_low=True),
    "num_leaves": Bound("int", 2),
    "min_data_in_leaf": Bound("int", 1),
    "chunk": Bound("int", 1),
    "stages": Bound("int", 1),
    "generic_owners": Bound("int", 0),
    "finetune_epochs": Bound("float", 0),
    "finetune_lr": Bound("float", 0, open_low=True),
    "bag": Bound("int", 1),
    "lambdamart_seed": Bound("int", 0, optional=True),
    "finetune_seed": Bound("int", 0, optional=True),
}
"""What RankerConfig's numeric fields may hold."""


@dataclass(frozen=True)
class RankerConfig:
    """Everything that defines a trained ranker (hashed into the model directory name)."""

    temperature: float = 0.05
    shortlist: int = 100
    folds: int = 5
    seed: int = 13
    rounds: int = 150
    learning_rate: float = 0.1
    num_leaves: int = 15
    min_data_in_leaf: int = 50
    chunk: int = 64
    stages: int = 2
    """LambdaMARTs in sequence; stage ``s > 1`` adds competition and feedback features computed from
    stage ``s - 1``'s scores. With bags of 5 boosters, train CV R@20 / R@30 (means over 5 seed sets) 2 stages
    0.8577 / 0.8867, 3 stages 0.8538 / 0.8836, 4 stages 0.8516 / 0.8826 (one seed set); with one booster per
    stage 3 stages had won (docs/clariq_ranking.md)."""
    generic_owners: int = 2
    """Questions attached to at least this many labelled topics join every shortlist (0: none)."""
    finetune_epochs: float = 1.0
    """Epochs of fine-tuning MiniLM on the labelled (request, question) pairs before the first stage (per
    fold on the other folds' topics, so the features stay out of fold); 0 keeps the packaged model."""
    finetune_lr: float = 5e-5
    bag: int = 5
    """LightGBM boosters per LambdaMART stage (seeds ``seed``, ``seed + 1``, ...), their scores averaged: train
    CV Recall@30 0.8807 (one booster, mean over 8 seeds) -> 0.8836 (bags of 5, mean over 5 seed sets), with a
    smaller spread over seeds (docs/clariq_ranking.md, "Seeds and machines")."""
    lambdamart_seed: int | None = None
    """First LightGBM seed of each bag; ``None``: ``seed`` (which also assigns the folds)."""
    finetune_seed: int | None = None
    """Seed of the MiniLM fine-tunes (batch order, dropout); ``None``: ``seed``. It moves dev more than the
    LightGBM seeds do (docs/clariq_ranking.md, "Seeds and machines")."""
    encoders: tuple[str, ...] = (MPNET,)
    """Packaged encoders (zero-shot) beside the (fine-tuned) MiniLM: every dense cosine of the pipeline is the mean
    of theirs and MiniLM's (a composite encoder, :mod:`clarion.retrieve.dense`). all-mpnet-base-v2 raised train CV
    Recall@20 / @30 from 0.8580 / 0.8862 to 0.8690 / 0.9022 (means over three seed sets; docs/clariq_ranking.md)."""

    def __post_init__(self) -> None:
        object.__setattr__(self, "encoders", tuple(self.encoders))  # a list when read back from JSON
        unknown = [name for name in self.encoders if name not in PACKAGED]
        if unknown:
            raise InputError(f"unknown packaged encoder(s) {unknown}; choose from: {', '.join(PACKAGED)}")
        check_fields(self, _BOUNDS)

    def encoder(self, finetuned: str | None) -> Encoder:
        """The pipeline's encoder: :attr:`encoders` and then MiniLM (``finetuned``: its fine-tuned directory)."""
        return (*self.encoders, finetuned) if self.encoders else finetuned

    @classmethod
    def tiny(cls) -> RankerConfig:
        return cls(shortlist=40, folds=2, rounds=20, finetune_epochs=0.25, bag=2)

    def finetune(self) -> FinetuneConfig:
        seed = self.seed if self.finetune_seed is None else self.finetune_seed
        return FinetuneConfig(epochs=self.finetune_epochs, learning_rate=self.finetune_lr, seed=seed)

    def lambdamart(self) -> LambdaMART:
        params = {
            "learning_rate": self.learning_rate,
            "num_leaves": self.num_leaves,
            "min_data_in_leaf": self.min_data_in_leaf,
            "seed": self.seed if self.lambdamart_seed is None else self.lambdamart_seed,
        }
        return LambdaMART(self.rounds, params, categorical=(FEATURES.index("form"),), bag=self.bag)


def bank_of(data: ClariQ) -> tuple[list[str], list[str]]:
    """Ids and texts of the bank's real questions (``Q00001`` left out)."""
    ids = [q for q in data.bank if q != NO_QUESTION]
    return ids, [data.bank[q] for q in ids]


@dataclass
class Context:
    """The bank, the known requests and which of them are labelled (with their questions)."""

    bank_ids: list[str]
    bank_texts: list[str]
    pool_texts: list[str]
    owned: dict[int, list[str]]
    """pool index of a labelled request -> the bank ids of its relevant questions."""
    encoder: Encoder = None
    """What embeds bank and requests (:attr:`RankerConfig.encoder`: packaged encoders and a fine-tuned MiniLM's
    directory, ``None`` standing for the packaged MiniLM)."""

    def space(self, temperature: float, generic_owners: int = 0) -> Space:
        from clarion.retrieve.dense import encode_cached

        pos = {q: i for i, q in enumerate(self.bank_ids)}
        owned = {u: np.asarray([pos[q] for q in qs if q in pos], dtype=int) for u, qs in self.owned.items()}
        labelled = np.zeros(len(self.pool_texts), dtype=bool)
        labelled[list(owned)] = True
        return Space(
            self.bank_texts,
            encode_cached(self.bank_texts, name="clariq-bank", encoder=self.encoder),
            self.pool_texts,
            encode_cached(self.pool_texts, name="clariq-requests", encoder=self.encoder),
            labelled,
            owned,
            temperature,
            generic_owners=generic_owners,
            encoder=self.encoder,
        )


def make_context(
    data: ClariQ, labelled: dict[str, set[str]], requests: dict[str, str], encoder: Encoder = None
) -> Context:
    """The context where the topics in ``labelled`` (topic id -> relevant ids) are known, embedded by
    ``encoder`` (:attr:`Context.encoder`)."""
    ids, texts = bank_of(data)
    pool = [t.request for t in data.known_requests(POOL_SPLITS)]
    index = {r: i for i, r in enumerate(pool)}
    for request in requests.values():
        if request not in index:
            index[request] = len(pool)
            pool.append(request)
    owned = {index[requests[t]]: sorted(qs - {NO_QUESTION}) for t, qs in labelled.items()}
    return Context(ids, texts, pool, owned, encoder)


def labelled_topics(data: ClariQ, splits: Sequence[str]) -> tuple[dict[str, set[str]], dict[str, str]]:
    """Relevant questions and requests of every topic of ``splits`` (keys ``split/topic``)."""
    rel, req = {}, {}
    for split in splits:
        labels = data.labels(split)
        for tid, qs in labels.questions.items():
            rel[f"{split}/{tid}"] = set(qs)
            req[f"{split}/{tid}"] = labels.requests[tid]
    return rel, req


def shortlist(space: Space, requests: Sequence[str], size: int, chunk: int = 64, embeddings: np.ndarray | None = None):
    """Yield ``(candidates (n, size), features (n, size, F))`` per chunk of requests (``embeddings``: the
    requests' own, when already computed)."""
    from clarion.retrieve.dense import encode_queries

    for start in range(0, len(requests), chunk):
        part = list(requests[start : start + chunk])
        emb = encode_queries(part, encoder=space.encoder) if embeddings is None else embeddings[start : start + chunk]
        yield space.shortlist(part, emb, size)


def insert_no_question(ranked: list[tuple[str, float]], position: int) -> list[tuple[str, float]]:
    """``ranked`` with ``Q00001`` at 0-based ``position``, its score halfway between its neighbours."""
    position = min(position, len(ranked))
    above = ranked[position - 1][1] if position > 0 else None
    below = ranked[position][1] if position < len(ranked) else None
    if above is None:
        score = (below if below is not None else 0.0) + 1.0
    elif below is None:
        score = above - 1.0
    else:
        score = (above + below) / 2.0
    return ranked[:position] + [(NO_QUESTION, score)] + ranked[position:]


ROUTES = 1024
"""New requests whose nearest known request and route embedding a ranker remembers (about 1.5 MB)."""

STAGES = ("first", "lambdamart", "full")
"""Ablation switches of :meth:`QuestionRanker.score_shortlist`: the first-stage score alone, the first
LambdaMART alone, or the full pipeline with the competition stage."""


class QuestionRanker:
    """Train with :meth:`train`, persist with :meth:`save`/:meth:`load`, use with :meth:`rank`."""

    def __init__(self, config: RankerConfig, context: Context, models: list[LambdaMART], no_question_at: int):
        self.config = config
        self.context = context
        self.models = models
        self.no_question_at = no_question_at
        self.cv_metrics: dict[str, float] = {}
        self.cv_evaluation: Evaluation | None = None
        """Per-topic out-of-fold recalls of the training that made this ranker (not saved; ``None`` once loaded)."""
        self._space: Space | None = None
        self._tables: tuple[list[np.ndarray], dict[int, int]] | None = None
        self._route_cache: tuple[np.ndarray, np.ndarray] | None = None
        self._routes = Memo(ROUTES)
        self._lazy = threading.RLock()  # the space and tables below are built once, by whichever thread asks first

    @property
    def space(self) -> Space:
        with self._lazy:
            if self._space is None:
                self._space = self.context.space(self.config.temperature, self.config.generic_owners)
            return self._space

    @property
    def tables(self) -> tuple[list[np.ndarray], dict[int, int]]:
        """Per stage ``s < last`` the scores of the unlabelled known requests, and pool index -> row."""
        with self._lazy:
            if self._tables is None:
                self._tables = self._score_tables()
            return self._tables

    def _score_tables(self) -> tuple[list[np.ndarray], dict[int, int]]:
        unknown = self.space.unknown
        texts = [self.context.pool_texts[u] for u in unknown]
        emb = self.space.pool_emb[unknown]  # a known request's embedding is its pool row, as in training
        parts = list(shortlist(self.space, texts, self.config.shortlist, self.config.chunk, emb))
        cands = np.concatenate([p[0] for p in parts]) if parts else np.zeros((0, 0), dtype=int)
        feats = np.concatenate([p[1] for p in parts]) if parts else np.zeros((0, 0, len(FEATURES)))
        scores = predict(self.models[0], feats) if len(feats) else np.zeros((0, 0))
        tables = []
        for model in self.models[1:]:
            table = score_table(len(unknown), len(self.context.bank_ids), cands, scores, self.space.attached)
            tables.append(table)
            for i in range(len(unknown)):
                scores[i] = model.predict(stage_features(feats[i], cands[i], scores[i], table, i, self.space))
        return tables, {int(u): i for i, u in enumerate(unknown)}

    @classmethod
    def train(
        cls, data: ClariQ, splits: Sequence[str] = ("train", "dev"), tiny: bool = False, progress=None
    ) -> QuestionRanker:
        """Train on the labelled topics of ``splits`` (out-of-fold features, LambdaMART, Q00001 slot)."""
        from clarion.clariq.ranker_training import fit_ranker

        config = RankerConfig.tiny() if tiny else RankerConfig()
        return fit_ranker(cls, data, splits, config, progress=progress)

    def score_shortlist(
        self,
        requests: Sequence[str],
        stage: str = "full",
        upto: int | None = None,
        embeddings: np.ndarray | None = None,
    ) -> list[list[tuple[str, float]]]:
        """Each request's shortlist reranked, best first (no ``Q00001``); ``stage`` is one of STAGES and
        ``upto`` (ablation) limits "full" to its first LambdaMARTs; ``embeddings``: the requests' own, when
        already computed (else :meth:`embed`)."""
        if stage not in STAGES:
            raise InputError(f"unknown stage {stage!r}; choose one of: {', '.join(STAGES)}")
        if embeddings is None:
            embeddings = self.embed(list(requests))
        ids, out = self.context.bank_ids, []
        cols = self.space.pool_column(requests)
        done = 0
        for top, feats in shortlist(self.space, requests, self.config.shortlist, self.config.chunk, embeddings):
            if stage == "first":
                scores = first_stage(feats)
            else:
                scores = predict(self.models[0], feats)
            if stage == "full" and len(self.models) > 1:
                tables, rows = self.tables
                own = [rows.get(int(cols[done + i]), -1) for i in range(len(top))]
                for model, table in list(zip(self.models[1:], tables, strict=True))[: (upto or 99) - 1]:
                    # each request's input depends on its own previous scores only: one LightGBM pass for all
                    block = [
                        stage_features(feats[i], top[i], scores[i], table, own[i], self.space) for i in range(len(top))
                    ]
                    scores = predict(model, np.stack(block))
            for cand, score in zip(top, scores, strict=True):
                order = np.lexsort((cand, -score))
                out.append([(ids[cand[j]], float(score[j])) for j in order])
            done += len(top)
        return out

    @property
    def route_encoder(self) -> Encoder:
        """The encoder that routes requests that are not known (:meth:`nearest_known`, :meth:`whole_bank`): the last
        member of the pipeline's encoder (the fine-tuned MiniLM), a few milliseconds per request where the whole
        composite would take tens (all-mpnet-base-v2). Its embeddings of the bank and the pool are columns of the
        composite's (:func:`clarion.retrieve.dense.member_columns`), so nothing more is stored."""
        return members(self.context.encoder)[-1]

    def _route(self, matrix: np.ndarray) -> np.ndarray:
        """``matrix`` (rows embedded by the pipeline's encoder) in the route encoder's space."""
        columns, scale = member_columns(self.context.encoder, len(members(self.context.encoder)) - 1)
        return matrix[:, columns] * scale

    def _route_space(self) -> tuple[np.ndarray, np.ndarray]:
        with self._lazy:
            if self._route_cache is None:
                self._route_cache = (self._route(self.space.pool_emb), self._route(self.space.bank_emb))
            return self._route_cache

    @property
    def route_pool(self) -> np.ndarray:
        """The known requests (pool) embedded by :attr:`route_encoder`."""
        return self._route_space()[0]

    @property
    def route_bank(self) -> np.ndarray:
        """The bank questions embedded by :attr:`route_encoder`."""
        return self._route_space()[1]

    def _nearest(self, texts: list[str]) -> tuple[list[tuple[str, float]], np.ndarray]:
        """:meth:`nearest_known` of stripped, valid ``texts``, and the route encoder's embeddings of those that are
        not known (zero rows for known ones: a known request is its own nearest, at 1.0). Those of the last
        :data:`ROUTES` new texts are remembered (a function of the text; ``rank``, ``ranked_as`` and ``is_new`` of
        one request each need them), the others encoded in one batch."""
        from clarion.retrieve.dense import encode_queries

        out: list[tuple[str, float]] = [(t, 1.0) for t in texts]
        new = np.flatnonzero(self.space.pool_column(texts) < 0)
        if not len(new):
            return out, np.zeros((len(texts), 0), dtype=np.float32)
        emb = np.zeros((len(texts), self.route_pool.shape[1]), dtype=np.float32)
        remembered = {int(i): self._routes.peek(texts[i]) for i in new}
        missing = [i for i, (found, _) in remembered.items() if not found]
        if missing:
            emb[missing] = encode_queries([texts[i] for i in missing], encoder=self.route_encoder)
        for i in new:
            found, value = remembered[int(i)]
            if found:
                out[i], emb[i] = value
                continue
            row = self.route_pool @ emb[i]
            j = int(row.argmax())
            out[i] = (self.context.pool_texts[j], float(row[j]))
            self._routes.put(texts[i], (out[i], emb[i].copy()))
        return out, emb

    def nearest_known(self, requests: Sequence[str]) -> list[tuple[str, float]]:
        """Each request's nearest known request (the pool: train, dev and test requests) and their cosine under
        :attr:`route_encoder`; a request that is itself known (exact text, surrounding spaces ignored) is its own,
        at 1.0."""
        return self._nearest([r.strip() for r in validate_requests(requests)])[0]

    def ranked_as(self, requests: Sequence[str], snap: float | None = SNAP) -> list[str]:
        """The text each request is ranked as: its nearest known request when their cosine reaches ``snap``
        (``None``: never), else the request itself (stripped)."""
        return self._resolve(requests, snap)[0]

    def _resolve(self, requests: Sequence[str], snap: float | None) -> tuple[list[str], np.ndarray]:
        """:meth:`ranked_as` and the route encoder's embeddings of the requests."""
        if snap is not None and (isinstance(snap, bool) or not isinstance(snap, int | float) or not 0 < snap <= 1):
            raise InputError(f"snap must be a cosine in (0, 1] or None, got {snap!r}")
        texts = [r.strip() for r in validate_requests(requests)]
        nearest, emb = self._nearest(texts)
        if snap is not None:
            texts = [known if cos >= snap else text for text, (known, cos) in zip(texts, nearest, strict=True)]
        return texts, emb

    def embed(self, requests: Sequence[str]) -> np.ndarray:
        """The pipeline encoder's embeddings of stripped requests: a known request's is its row of the cached pool
        embeddings (as in training), any other is encoded."""
        from clarion.retrieve.dense import encode_queries

        cols = self.space.pool_column(requests)
        emb = np.zeros((len(requests), self.space.pool_emb.shape[1]), dtype=np.float32)
        emb[cols >= 0] = self.space.pool_emb[cols[cols >= 0]]
        new = np.flatnonzero(cols < 0)
        if len(new):
            emb[new] = encode_queries([requests[i] for i in new], encoder=self.context.encoder)
        return emb

    def whole_bank(
        self,
        requests: Sequence[str],
        embeddings: np.ndarray,
        foreign: float = FOREIGN,
        propagate: float = PROPAGATE,
    ) -> list[list[tuple[str, float]]]:
        """Per request its ``shortlist`` best bank questions, the whole bank competing (ties by bank order), best
        first: the cosine of :attr:`route_encoder` (``embeddings``: its embeddings of the requests) minus
        :data:`FOREIGN` per word of the question's own topic that the request lacks (``foreign``;
        :meth:`Space.foreign`: "new york hotel prices" is less apt for "cheap hotels in Rome"), plus
        :data:`PROPAGATE` times that score's mean over the question's nearest bank questions (``propagate``; a
        topic's questions were written together, as the first stage of the pipeline uses)."""
        ids, size = self.context.bank_ids, self.config.shortlist
        out = []
        scores = np.atleast_2d(embeddings) @ self.route_bank.T - foreign * self.space.foreign(requests)
        scores = scores + propagate * scores[:, self.space.nearest].mean(axis=2)
        for row in scores:
            top = np.lexsort((np.arange(len(row)), -row))[:size]
            out.append([(ids[j], float(row[j])) for j in top])
        return out

    def rank(
        self,
        requests: Sequence[str],
        k: int = 30,
        stage: str = "full",
        snap: float | None = SNAP,
        open_bank: bool = True,
    ) -> list[list[tuple[str, float]]]:
        """Per request its ``k`` best ``(question_id, score)`` pairs, scores strictly decreasing.

        A known request (train, dev or test) goes through the pipeline (``stage``); so does a request within
        cosine ``snap`` of one, ranked as that request (:meth:`ranked_as`; ``None``: off). Any other request is,
        with ``open_bank``, ranked over the whole bank by similarity (:meth:`whole_bank`): every bank question was
        written for a known topic, so the pipeline's premise — a new topic owns the questions no labelled topic
        holds — does not hold for it (docs/clariq_ranking.md, "Requests from outside ClariQ")."""
        if isinstance(k, bool) or not isinstance(k, int) or not 1 <= k <= self.config.shortlist + 1:
            raise InputError(f"k must be an integer between 1 and {self.config.shortlist + 1}, got {k!r}")
        if not isinstance(open_bank, bool):
            raise InputError(f"open_bank must be True or False, got {open_bank!r}")
        texts, route = self._resolve(requests, snap)  # each checked by validate_request
        new = self.space.pool_column(texts) < 0 if open_bank else np.zeros(len(texts), dtype=bool)
        ranked: list[list[tuple[str, float]]] = [[] for _ in texts]
        known = np.flatnonzero(~new)
        if len(known):
            piped = [texts[i] for i in known]
            scored = self.score_shortlist(piped, stage, embeddings=self.embed(piped))
            for i, pairs in zip(known, scored, strict=True):
                ranked[i] = pairs
        fresh = np.flatnonzero(new)
        if len(fresh):
            for i, pairs in zip(fresh, self.whole_bank([texts[i] for i in fresh], route[new]), strict=True):
                ranked[i] = pairs
        out = []
        for pairs in ranked:
            pairs = insert_no_question(pairs, self.no_question_at)[:k]
            scores = strictly_decreasing([s for _, s in pairs])
            out.append([(q, s) for (q, _), s in zip(pairs, scores, strict=True)])
        return out

    def is_known(self, requests: Sequence[str]) -> list[bool]:
        """Whether each request is itself a known request (exact text, surrounding spaces ignored)."""
        texts = [r.strip() for r in validate_requests(requests)]
        return [bool(c >= 0) for c in self.space.pool_column(texts)]

    def save(self, directory: str | Path) -> Path:
        directory = Path(directory)
        directory.mkdir(parents=True, exist_ok=True)
        for i, model in enumerate(self.models):
            model.save(directory / f"lambdamart{i + 1}.txt")
        context = asdict(self.context)
        context["encoder"] = self._save_encoder(directory)
        write_json(
            directory / "ranker.json",
            {
                "config": asdict(self.config),
                "no_question_at": self.no_question_at,
                "models": len(self.models),
                "cv_metrics": self.cv_metrics,
                "features": list(FEATURES),
                "competition_features": list(COMPETITION_FEATURES),
                "context": context,
            },
        )
        return directory

    def _save_encoder(self, directory: Path) -> list[str | None]:
        """The encoder's members as saved: packaged names and ``None`` as they are, a fine-tuned directory copied
        into ``directory`` (``encoder``, ``encoder-2``, ...) and named relative to it."""
        saved: list[str | None] = []
        copies = 0
        for member in members(self.context.encoder):
            if is_packaged(member):
                saved.append(member)
                continue
            copies += 1
            name = ENCODER_DIR if copies == 1 else f"{ENCODER_DIR}-{copies}"
            if Path(member).resolve() != (directory / name).resolve():
                shutil.rmtree(directory / name, ignore_errors=True)
                shutil.copytree(member, directory / name)
            saved.append(name)
        return saved

    @staticmethod
    def _load_encoder(directory: Path, saved) -> Encoder:
        """The encoder :meth:`_save_encoder` saved (older models: one directory name or ``None``)."""
        if not isinstance(saved, list):
            saved = [saved]
        loaded = tuple(m if is_packaged(m) else str(directory / m) for m in saved)
        return loaded[0] if len(loaded) == 1 else loaded

    @classmethod
    def load(cls, directory: str | Path) -> QuestionRanker:
        directory = Path(directory)
        path = directory / "ranker.json"
        if not path.is_file():
            raise ModelError(f"{directory}: not a trained question ranker (no ranker.json); train it first")
        state = read_json(path)
        stale = state.get("models", 1) > 1 and state.get("competition_features") != list(COMPETITION_FEATURES)
        if state.get("features") != list(FEATURES) or stale:
            raise ModelError(f"{directory}: trained with other features; retrain it (clarion clariq train)")
        if not isinstance(state.get("config"), dict) or set(state["config"]) != set(asdict(RankerConfig())):
            raise ModelError(f"{directory}: trained with another RankerConfig; retrain it (clarion clariq train)")
        if not isinstance(state.get("context"), dict) or "no_question_at" not in state:
            raise ModelError(f"{path}: not a ranker state written by this version; retrain it (clarion clariq train)")
        try:
            ctx = state["context"]
            owned = {int(u): q for u, q in ctx["owned"].items()}
            encoder = cls._load_encoder(directory, ctx.get("encoder"))
            context = Context(ctx["bank_ids"], ctx["bank_texts"], ctx["pool_texts"], owned, encoder)
            n_models = int(state["models"])
            ranker_config, position = RankerConfig(**state["config"]), int(state["no_question_at"])
        except (KeyError, TypeError, ValueError, AttributeError, InputError) as err:
            raise ModelError(f"{path}: damaged ranker state ({type(err).__name__}: {err}); retrain it") from None
        encoder_id(encoder)  # a clear ModelError if the directory lost its fine-tuned MiniLM
        models = [LambdaMART.load(directory / f"lambdamart{i + 1}.txt") for i in range(n_models)]
        ranker = cls(ranker_config, context, models, position)
        ranker.cv_metrics = state.get("cv_metrics", {})
        return ranker


def stage_features(feats, candidates, scores, table, row: int, space: Space) -> np.ndarray:
    """A later stage's ``(K, F + C)`` input: first-stage features plus competition features from the
    previous stage's ``scores`` (``row``: the request's row of ``table``, ``-1`` if absent)."""
    extra = competition_features(candidates, scores, table, row, space)
    return np.concatenate([feats, extra], axis=1)


def predict(model: LambdaMART, feats: np.ndarray) -> np.ndarray:
    """Scores ``(n, K)`` of a ``(n, K, F)`` block of shortlist features."""
    return model.predict(feats.reshape(-1, feats.shape[-1])).reshape(feats.shape[:2])


def say(message: str) -> None:
    print(message, file=sys.stderr)

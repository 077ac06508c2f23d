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

The parts: :mod:`.ranker_config` (``RankerConfig``), :mod:`.ranker_context` (bank, known requests, stage helpers),
:mod:`.ranker_route` (requests from outside ClariQ), :mod:`.ranker_io` (saving and loading),
:mod:`.ranker_training` (fitting). Their public names stay importable from here.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from clarion.clariq.ranker_config import RankerConfig
from clarion.clariq.ranker_context import (
    POOL_SPLITS,
    Context,
    bank_of,
    insert_no_question,
    labelled_topics,
    make_context,
    predict,
    shortlist,
    stage_features,
)
from clarion.clariq.ranker_io import ENCODER_DIR, load_ranker, save_ranker
from clarion.clariq.ranker_route import (
    ENCODER_SNAP,
    FIT,
    FOREIGN,
    PROPAGATE,
    ROUTES,
    SNAP,
    SNAP_PACKAGED,
    Router,
    snap_for,
)
from clarion.data.clariq import ClariQ
from clarion.data.clariq_constants import validate_requests
from clarion.data.trec import strictly_decreasing
from clarion.errors import InputError
from clarion.evaluate.result import Evaluation
from clarion.rerank.competition import score_table
from clarion.rerank.features import FEATURES, Space, first_stage
from clarion.rerank.lambdamart import LambdaMART

__all__ = [
    "ENCODER_DIR",
    "ENCODER_SNAP",
    "FIT",
    "FOREIGN",
    "POOL_SPLITS",
    "PROPAGATE",
    "ROUTES",
    "SNAP",
    "SNAP_PACKAGED",
    "STAGES",
    "Context",
    "QuestionRanker",
    "RankerConfig",
    "bank_of",
    "insert_no_question",
    "labelled_topics",
    "make_context",
    "predict",
    "shortlist",
    "stage_features",
]

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
        self._router: Router | None = None
        self._lazy = threading.RLock()  # the space and tables below are built once, by whichever thread asks first

    @property
    def space(self) -> Space:
        with self._lazy:
            if self._space is None:
                self._space = self.context.space(self.config.temperature, self.config.generic_owners)
            return self._space

    @property
    def router(self) -> Router:
        """How requests that are not known are routed (:class:`~clarion.clariq.ranker_route.Router`)."""
        with self._lazy:
            if self._router is None:
                snap = snap_for(self.config.finetune_epochs > 0)  # the route encoder: MiniLM, fine-tuned or not
                self._router = Router(self.context, self.space, self.config.shortlist, snap)
            return self._router

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
        cls,
        data: ClariQ,
        splits: Sequence[str] = ("train", "dev"),
        tiny: bool = False,
        progress=None,
        config: RankerConfig | None = None,
    ) -> QuestionRanker:
        """Train on the labelled topics of ``splits`` (out-of-fold features, LambdaMART, Q00001 slot); ``config``
        by default the full one (tiny: CI's)."""
        from clarion.clariq.ranker_training import fit_ranker

        config = config or (RankerConfig.tiny() if tiny else RankerConfig())
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
            embeddings = self.router.embed(list(requests))
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

    def rank(
        self,
        requests: Sequence[str],
        k: int = 30,
        stage: str = "full",
        snap: float | str | None = ENCODER_SNAP,
        open_bank: bool = True,
    ) -> list[list[tuple[str, float]]]:
        """Per request its ``k`` best ``(question_id, score)`` pairs, scores strictly decreasing.

        A known request (train, dev or test) goes through the pipeline (``stage``); so does a request within
        cosine ``snap`` of one (by default the router's, :attr:`Router.snap`), ranked as that request
        (:meth:`Router.ranked_as`; ``None``: off). Any other request is, with ``open_bank``, ranked over the whole
        bank by similarity (:meth:`Router.whole_bank`): every bank question was written for a known topic, so the
        pipeline's premise — a new topic owns the questions no labelled topic holds — does not hold for it
        (docs/clariq_ranking.md, "Requests from outside ClariQ")."""
        if isinstance(k, bool) or not isinstance(k, int) or not 1 <= k <= self.config.shortlist + 1:
            raise InputError(f"k must be an integer between 1 and {self.config.shortlist + 1}, got {k!r}")
        if not isinstance(open_bank, bool):
            raise InputError(f"open_bank must be True or False, got {open_bank!r}")
        texts, route = self.router.resolve(requests, snap)  # each checked by validate_request
        new = self.space.pool_column(texts) < 0 if open_bank else np.zeros(len(texts), dtype=bool)
        ranked: list[list[tuple[str, float]]] = [[] for _ in texts]
        known = np.flatnonzero(~new)
        if len(known):
            piped = [texts[i] for i in known]
            scored = self.score_shortlist(piped, stage, embeddings=self.router.embed(piped))
            for i, pairs in zip(known, scored, strict=True):
                ranked[i] = pairs
        fresh = np.flatnonzero(new)
        if len(fresh):
            for i, pairs in zip(fresh, self.router.whole_bank([texts[i] for i in fresh], route[new]), strict=True):
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
        return save_ranker(self, directory)

    @classmethod
    def load(cls, directory: str | Path) -> QuestionRanker:
        return load_ranker(cls, directory)

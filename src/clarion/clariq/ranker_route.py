"""Requests from outside ClariQ: the question ranker's routing of a request that is not a known one, to its nearest
known request (:data:`SNAP`) or over the whole bank by similarity (:data:`FOREIGN`, :data:`PROPAGATE`), and the
score below which a question is not offered (:data:`FIT`): the :class:`Router` of a
:class:`~clarion.clariq.ranker.QuestionRanker` (its ``router``).
"""

from __future__ import annotations

import threading
from collections.abc import Sequence

import numpy as np

from clarion.data.clariq_constants import validate_requests
from clarion.errors import InputError
from clarion.memo import Memo
from clarion.retrieve.dense import Encoder, member_columns, members

FIT = 0.6
"""Score (:meth:`Router.whole_bank`) below which a question is not offered to a request from outside ClariQ
(``Clarifier.rank(..., fitting=True)``): where an offered question stops being more likely wrong than right. On the
TREC descriptions of the train topics ranked over the whole bank by the train-only model, of each description's ten
best questions those scoring 0.5-0.6 are relevant 0.27 of the time (0.03 below 0.5), those at 0.6-0.8 about half the
time (0.49-0.55) and those above 0.8 0.82-0.97 (``benchmarks/clariq_rewordings.py``; docs/clariq_ranking.md,
"Requests from outside ClariQ"). "How do I reset my iPhone password?" gets 0.28 for "are you trying to compare
android to ios"."""
SNAP = 0.75
"""Cosine (the ranker's encoder) at or above which a request that is not itself a known request is ranked as
its nearest known one ("Find symptoms of heart attack" as "What are signs of a heartattack?"). Chosen on the TREC
descriptions of the train topics with the train-only model (docs/clariq_ranking.md, "Requests from outside
ClariQ"): 71% of them reach it, 99% of those snap to their own request, and 1.1% reach it with their own request
left out of the pool (a new request snapping to a sibling topic; 3.2% at 0.70)."""
SNAP_PACKAGED = 0.70
""":data:`SNAP` for a ranker that routes with the packaged MiniLM as it is (no fine-tune: the starter models,
:meth:`~clarion.clariq.ranker_config.RankerConfig.starter`), whose cosines run lower (a train description's median
cosine to its own request 0.780 against the fine-tuned model's higher one). Chosen by SNAP's rule on the same
descriptions (``benchmarks/clariq_rewordings.py --starter``): 70% reach it, 99% of those snap to their own request,
and 1.6% reach it with their own request left out of the pool (0.5% at 0.75, 3.2% at 0.65)."""
ENCODER_SNAP = "encoder"
"""The ``snap`` argument meaning the router's own threshold (:attr:`Router.snap`: :data:`SNAP` or
:data:`SNAP_PACKAGED`, by its route encoder)."""
FOREIGN = 0.1
"""Cosine taken off a question, on the whole-bank route, per content word of its own topic's request that it names
and the request lacks. Chosen on the TREC descriptions of the train topics ranked over the whole bank
(``benchmarks/clariq_rewordings.py``; docs/clariq_ranking.md, "Requests from outside ClariQ")."""
FAR = 0.45
"""Cosine under the packaged MiniLM (not the ranker's encoder) below which a request is so far from every known
request that it cannot snap to one: :meth:`Router.far_from_known` settles it without the route encoder's pass. Of
4,315 texts (the TREC descriptions of the train and dev topics, clarion's everyday requests and follow-up replies, a
third of AmbigNQ train), the 171 that snap under the train+dev model all have a packaged cosine of at least 0.60 to
a known request, and every one within 0.1 of snapping (route cosine >= 0.65) at least 0.41; 90% of the everyday
requests and 89% of AmbigNQ's are below 0.45, so the service encodes them once instead of twice."""
ROUTES = 1024
"""New requests whose nearest known request and route embedding a ranker remembers (about 1.5 MB)."""
PROPAGATE = 0.5
"""Whole-bank route: weight of the mean score of a question's nearest bank questions added to its own (the first
stage's propagation weight). Chosen on the same train descriptions (R@30 0.8477 without, 0.8540 with 0.5)."""


class Router:
    """How a ranker treats requests that are not known, over its ``context`` (bank, pool, encoder), its feature
    ``space`` (embeddings of pool and bank) and its ``shortlist`` size."""

    def __init__(self, context, space, shortlist: int, snap: float = SNAP):
        self.context = context
        self.space = space
        self.shortlist = shortlist
        self.snap = snap
        """The cosine at which a request is ranked as its nearest known one (:data:`SNAP`, or :data:`SNAP_PACKAGED`
        when the route encoder is the packaged MiniLM)."""
        self._route_cache: tuple[np.ndarray, np.ndarray] | None = None
        self._routes = Memo(ROUTES)
        self._lazy = threading.Lock()
        self._packaged_pool: np.ndarray | None = None

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

    @property
    def packaged_pool(self) -> np.ndarray:
        """The known requests (pool) embedded by the packaged MiniLM, whatever the ranker's encoder (cached on disk)."""
        from clarion.retrieve.dense import encode_cached

        with self._lazy:
            if self._packaged_pool is None:
                self._packaged_pool = encode_cached(list(self.context.pool_texts), name="clariq-requests")
            return self._packaged_pool

    def far_from_known(self, embeddings: np.ndarray) -> np.ndarray:
        """Whether each request that is not itself known is farther than :data:`FAR` from every known request, by
        ``embeddings``: the packaged MiniLM's embeddings of those requests (:attr:`packaged_pool`'s are cached)."""
        return (np.asarray(embeddings) @ self.packaged_pool.T).max(axis=1) < FAR

    def nearest_known(self, requests: Sequence[str]) -> list[tuple[str, float]]:
        """Each request's nearest known request (the pool: train, dev and test requests) and their cosine under
        :attr:`route_encoder`; a request that is itself known (exact text, surrounding spaces ignored) is its own,
        at 1.0."""
        return self._nearest([r.strip() for r in validate_requests(requests)])[0]

    def ranked_as(self, requests: Sequence[str], snap: float | str | None = ENCODER_SNAP) -> list[str]:
        """The text each request is ranked as: its nearest known request when their cosine reaches ``snap``
        (:data:`ENCODER_SNAP`: :attr:`snap`; ``None``: never), else the request itself (stripped)."""
        return self.resolve(requests, snap)[0]

    def resolve(self, requests: Sequence[str], snap: float | str | None) -> tuple[list[str], np.ndarray]:
        """:meth:`ranked_as` and the route encoder's embeddings of the requests."""
        if isinstance(snap, str) and snap == ENCODER_SNAP:
            snap = self.snap
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
        ids, size = self.context.bank_ids, self.shortlist
        out = []
        scores = np.atleast_2d(embeddings) @ self.route_bank.T - foreign * self.space.foreign(requests)
        scores = scores + propagate * scores[:, self.space.nearest].mean(axis=2)
        for row in scores:
            top = np.lexsort((np.arange(len(row)), -row))[:size]
            out.append([(ids[j], float(row[j])) for j in top])
        return out


def snap_for(finetuned: bool) -> float:
    """The snapping threshold of a route encoder: the fine-tuned MiniLM's (:data:`SNAP`) or the packaged one's
    (:data:`SNAP_PACKAGED`)."""
    return SNAP if finetuned else SNAP_PACKAGED

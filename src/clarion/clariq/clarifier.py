"""The Python API a chatbot calls: rank clarifying questions for a request and decide whether to ask.

>>> from clarion.clariq.clarifier import Clarifier
>>> bot = Clarifier.load()                      # doctest: +SKIP  (trains on train+dev when absent)
>>> [c.text for c in bot.rank("Tell me about Obama family tree.", k=3)]   # doctest: +SKIP
>>> bot.should_clarify("Tell me about Obama family tree.")               # doctest: +SKIP

A known ClariQ request goes through the trained pipeline. A request that rewords one (cosine >=
:data:`clarion.clariq.ranker_route.SNAP` under the ranker's encoder, :data:`~clarion.clariq.ranker_route.SNAP_PACKAGED`
for the starter models) is ranked as that request, so a known topic's
questions are found however it is phrased (:meth:`Clarifier.ranked_as` says when). Any other request is new: its
questions come from the whole bank by the encoder's similarity (:meth:`Clarifier.is_new`), since every bank
question was written for a known topic.

Candidates are bank questions (:class:`clarion.types.Candidate`: id, text, score, best first).
``Q00001`` — the bank's empty "ask nothing" entry, relevant for most ClariQ topics — is one of the
candidates, with text ``""``; a chatbot that must ask something skips it.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from functools import partial
from numbers import Integral, Real
from pathlib import Path

import numpy as np

from clarion.clariq.ranker import QuestionRanker
from clarion.clariq.ranker_route import FIT
from clarion.data.clariq_constants import NEED_LABELS, NO_QUESTION, validate_request
from clarion.errors import InputError, ModelError
from clarion.store import ensure, no_progress, read_meta
from clarion.types import Candidate


class Clarifier:
    """A trained ClariQ pipeline loaded from a model directory made by
    :func:`clarion.clariq.train.train_models`."""

    def __init__(self, directory: Path, ranker: QuestionRanker):
        self.directory = directory
        self.ranker = ranker
        self._need = None
        self._need_lock = threading.Lock()
        bank = ranker.context
        self._text = dict(zip(bank.bank_ids, bank.bank_texts, strict=True)) | {NO_QUESTION: ""}

    @classmethod
    def load(
        cls,
        model_dir: str | Path | None = None,
        data_dir: str | Path | None = None,
        progress: Callable[[str, int], Callable[[int], None]] | None = None,
        splits: Sequence[str] | None = None,
        starter: bool = False,
    ) -> Clarifier:
        """The model in ``model_dir``; by default the model trained on ``splits`` (default train+dev), trained first
        (saying so on stderr; about 10 minutes on a 2-core CPU, ``starter``: the starter model, about 1 minute:
        :meth:`~clarion.clariq.ranker_config.RankerConfig.starter`) when absent. An explicit ``model_dir`` must hold a
        finished model. ``progress`` reports that training as :meth:`clarion.dstc.assistant.Grounder.load`'s does:
        ``progress(description, total)`` returns an ``advance(n)`` callback (a rich or tqdm bar)."""
        if progress is not None and not callable(progress):
            raise InputError(f"progress must be a callable progress(description, total), got {progress!r}")
        if model_dir is None:
            from clarion.clariq.train import (
                DEFAULT_SPLITS,
                default_model_dir,
                ranker_steps,
                ready_to_train,
                train_models,
            )
            from clarion.data.clariq import ClariQ
            from clarion.data.clariq_constants import check_splits

            data, splits = ClariQ.load(data_dir), check_splits(splits or DEFAULT_SPLITS)

            what = "starter model" if starter else "model"

            def train(directory: Path) -> None:
                steps = ranker_steps(starter=starter)
                advance = None if progress is None else progress(f"training the ClariQ {what}", steps)
                need_progress = progress or no_progress
                train_models(data, splits, directory, progress=advance, need_progress=need_progress, starter=starter)

            ready = partial(ready_to_train, data, splits)
            directory = default_model_dir(data, splits, starter=starter)
            ensure(directory, train, f"the ClariQ {what}", f"ClariQ {'+'.join(splits)}", ready=ready)
        else:
            from clarion.data.io import as_path

            directory = as_path(model_dir, "model_dir")
        read_meta(directory)  # ModelError when the directory is not a finished model
        if not (directory / "ranker").is_dir() and (directory / "state.json").is_file():
            raise ModelError(f"{directory}: a DSTC model, not a ClariQ one (train one with `clarion clariq train`)")
        return cls(directory, QuestionRanker.load(directory / "ranker"))

    def rank(self, request: str, k: int = 30, fitting: bool = False) -> list[Candidate]:
        """The ``k`` best clarifying questions for ``request`` (1 <= k <= shortlist + 1), best first.

        With ``fitting``, a request ranked over the whole bank (:meth:`is_new`) keeps, of those ``k``, only the
        questions scoring at least :data:`~clarion.clariq.ranker_route.FIT` and the "ask nothing" entry when it is among
        them: fewer than ``k``, possibly none, when the bank has no question for a request from outside ClariQ ("How
        do I reset my iPhone password?" had been offered "are you having trouble quitting somking"; now ``[]`` at
        ``k=5`` and the "ask nothing" entry alone at ``k=7``, where it ranks sixth)."""
        return self.rank_many([request], k, fitting)[0]

    def rank_many(self, requests: Sequence[str], k: int = 30, fitting: bool = False) -> list[list[Candidate]]:
        """:meth:`rank` of each request, ranked together (one pass of each model over the batch)."""
        if isinstance(k, bool) or not isinstance(k, Integral):  # numpy's integers too
            raise InputError(f"k must be an integer, got {k!r}")
        if not isinstance(fitting, bool):
            raise InputError(f"fitting must be True or False, got {fitting!r}")
        texts = [validate_request(r) for r in requests]
        out = []
        for request, pairs in zip(texts, self.ranker.rank(texts, k=int(k)) if texts else [], strict=True):
            candidates = [Candidate(q, self._text[q], s) for q, s in pairs]
            if fitting and self.is_new(request):
                candidates = [c for c in candidates if c.id == NO_QUESTION or c.score >= FIT]
            out.append(candidates)
        return out

    def _nearest(self, request: str) -> tuple[str, str, float]:
        """``request`` stripped, its nearest known request and their cosine (itself at 1.0 when it is known)."""
        text = validate_request(request).strip()
        return (text, *self.ranker.router.nearest_known([text])[0])  # remembered by the ranker: not encoded twice

    def ranked_as(self, request: str) -> tuple[str, float] | None:
        """The known request ``request`` is ranked as, with their cosine, when it is another text than the
        request itself (a rewording of a known topic); ``None`` otherwise."""
        text, known, cosine = self._nearest(request)
        return (known, cosine) if known != text and cosine >= self.ranker.router.snap else None

    def is_new(self, request: str) -> bool:
        """Whether ``request`` is neither a known request nor a rewording of one (no known request within cosine
        the router's ``snap``): :meth:`rank` then ranks the whole bank by similarity instead of running the pipeline."""
        return self._nearest(request)[2] < self.ranker.router.snap

    def is_new_many(self, requests: Sequence[str]) -> list[bool]:
        """:meth:`is_new` of each request, their texts encoded in one batch."""
        texts = [validate_request(r).strip() for r in requests]
        router = self.ranker.router
        return [cosine < router.snap for _, cosine in router.nearest_known(texts)] if texts else []

    def new_and_embedded(self, requests: Sequence[str]) -> tuple[list[bool], np.ndarray]:
        """:meth:`is_new_many`, and the packaged MiniLM's embeddings of the requests that are not known (zero rows for
        known ones): what a conversation about a new request needs anyway. A request farther than
        :data:`~clarion.clariq.ranker_route.FAR` from every known one by them is new without the ranker's encoder
        (one encoder pass instead of two for most requests that are not ClariQ's)."""
        from clarion.retrieve.dense import encode_queries

        texts = [validate_request(r).strip() for r in requests]
        router = self.ranker.router
        unknown = np.flatnonzero(router.space.pool_column(texts) < 0)
        if not len(unknown):
            return [False] * len(texts), np.zeros((len(texts), 0), dtype=np.float32)
        encoded = encode_queries([texts[i] for i in unknown])
        emb = np.zeros((len(texts), encoded.shape[1]), dtype=np.float32)
        emb[unknown] = encoded
        far = np.zeros(len(texts), dtype=bool)
        far[unknown] = router.far_from_known(encoded)
        near = [t for t, f in zip(texts, far, strict=True) if not f]
        nearest = iter(router.nearest_known(near) if near else [])
        return [bool(f) or next(nearest)[1] < router.snap for f in far], emb

    def _need_model(self):
        with self._need_lock:  # loaded on first use, once, whichever thread asks first
            if self._need is None:
                path = self.directory / "need"
                if not path.is_dir():
                    raise ModelError(f"{self.directory}: no clarification-need model (need/); retrain the pipeline")
                from clarion.clariq.need import NeedModel

                self._need = NeedModel.load(path)
            return self._need

    def need(self, request: str) -> tuple[int, dict[int, float]]:
        """The need model's label (1 = clear ... 4 = very ambiguous; its own decision rule) and the
        probability of each label."""
        return self.need_many([request])[0]

    def need_many(self, requests: Sequence[str]) -> list[tuple[int, dict[int, float]]]:
        """:meth:`need` of each request, their texts encoded in one batch (what a server gathering concurrent
        requests calls: one encoder pass for all)."""
        texts = [validate_request(r) for r in requests]
        if not texts:
            return []
        model = self._need_model()
        proba = np.asarray(model.predict_proba(texts))
        labels = model.labels(proba)
        return [
            (label, {n: float(p) for n, p in zip(NEED_LABELS, row, strict=True)})
            for label, row in zip(labels, proba, strict=True)
        ]

    def should_clarify(self, request: str, threshold: float = 0.5) -> bool:
        """Ask a clarifying question when P(need >= 2) — the probability that the request is *not* fully
        clear (ClariQ label 1) — reaches ``threshold`` (0 < threshold <= 1). This can be True while :meth:`need`'s
        likeliest label is 1 (1 at 0.42, labels 2-4 together at 0.58); and for a request from outside ClariQ,
        :meth:`rank` with ``fitting`` may then offer no question: ask the user to say more instead."""
        check_threshold(threshold)
        return clarify_from(self.need(request)[1], threshold)


def check_threshold(threshold: object) -> None:
    """:class:`InputError` unless ``threshold`` is a number in (0, 1]."""
    if isinstance(threshold, bool) or not isinstance(threshold, Real) or not 0 < threshold <= 1:  # NaN fails too
        raise InputError(f"threshold must be a number in (0, 1], got {threshold!r}")


def clarify_from(probabilities: dict[int, float], threshold: float = 0.5) -> bool:
    """:meth:`Clarifier.should_clarify` from the probabilities :meth:`Clarifier.need` returned."""
    return 1.0 - probabilities[1] >= threshold


def clarification(bot, request: str, k: int, threshold: float, need=None) -> tuple[dict, list[str]]:
    """One request's need, yes/no and best questions: as JSON and as lines for humans (``need``: ``bot.need``'s
    answer, when already computed)."""

    label, probabilities = bot.need(request) if need is None else need
    ask = clarify_from(probabilities, threshold)  # should_clarify's rule, without featurising the request again
    questions = bot.rank(request, k=k, fitting=True)
    known = bot.ranked_as(request)
    new = known is None and bot.is_new(request)
    fits = not new or any(c.id != NO_QUESTION for c in questions)
    reply = {
        "need": label,
        "ranked_as": None if known is None else {"request": known[0], "cosine": round(known[1], 6)},
        "whole_bank": new,
        "probabilities": {str(n): round(p, 6) for n, p in probabilities.items()},
        "should_clarify": ask,
        "fits": fits,
        "questions": [{"id": c.id, "text": c.text, "score": round(c.score, 6)} for c in questions],
    }
    shares = ", ".join(f"{n}: {p:.2f}" for n, p in probabilities.items())
    said = verdict(label, 1.0 - probabilities[1], ask, threshold)
    text = [f"clarification need {label} (1 clear ... 4 very ambiguous; {shares}); {said}"]
    if known is not None:
        text.append(f"questions of the known request {known[0]!r} (cosine {known[1]:.2f})")
    elif new:
        text.append("a new request: questions from the whole bank, by similarity")
        if not fits:
            text.append(f"no question in the bank fits this request (every score below {FIT})")
    for rank, c in enumerate(questions, 1):
        text.append(f"{rank}. {c.id} {'(ask nothing)' if c.id == NO_QUESTION else c.text}")
    return reply, text


def verdict(label: int, unclear: float, ask: bool, threshold: float) -> str:
    """The yes/no and what it rests on: P(need >= 2) against the threshold, not the likeliest label."""
    verdict = f"ask: {'yes' if ask else 'no'} (P(need >= 2) {unclear:.2f} {'>=' if ask else '<'} {threshold:g}"
    if ask == (label == 1):  # "need 1; ask: yes" reads as a contradiction unless the line says why it is not one
        verdict += f"; {label} is only the likeliest single label"
    return verdict + ")"

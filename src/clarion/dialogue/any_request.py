"""Clarification for any request: the P(unclear) model and the question writer, trained together and stored once.

:class:`AnyRequest` holds :class:`~clarion.detect.unclear.UnclearModel` (whether a request needs a clarifying
question, learnt from ClariQ, AmbigNQ and clarion's everyday requests) and
:class:`~clarion.dialogue.questions.QuestionWriter` (what to ask, its kind classifier learnt from the everyday
requests' labels). :func:`load_or_train` trains them on first use (about a minute on 2 cores: most of it is encoding
AmbigNQ's 9,058 questions) into the model cache, like every clarion model (:func:`clarion.store.ensure`).
"""

from __future__ import annotations

import json
import os
import zipfile
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np

from clarion.classifier import tfidf_from_state, tfidf_state
from clarion.data.ambiguous import EVERYDAY, Labelled, read_ambignq, read_everyday, read_followups
from clarion.data.io import atomic_writer, fingerprint_files, read_json, write_json
from clarion.detect.unclear import Inputs, UnclearConfig, UnclearModel
from clarion.dialogue.new_request import THRESHOLD, NewRequestDetector, features
from clarion.dialogue.new_request import VERSION as NEW_REQUEST_VERSION
from clarion.dialogue.questions import QuestionWriter, Written
from clarion.errors import DataError, ModelError
from clarion.store import Progress, ensure, model_dir, no_progress, read_meta, write_meta, writing

TASK, NAME = "converse", "any-request"
TINY_AMBIGNQ = 600
"""AmbigNQ questions a tiny model (``CLARION_TINY=1``, CI) trains on, of 9,058."""


def tiny() -> bool:
    return os.environ.get("CLARION_TINY") == "1"


def sources(data_dir: str | Path | None = None, small: bool = False) -> dict[str, list[Labelled]]:
    """The labelled requests of each source: ClariQ train+dev (need 1 is clear), AmbigNQ train, everyday."""
    from clarion.clariq.need import labelled
    from clarion.data.clariq import ClariQ
    from clarion.data.location import dataset_dir

    requests, need = labelled(ClariQ.load(data_dir), ("train", "dev"))
    clariq = [
        Labelled(f"clariq-{i}", r, bool(n >= 2), "clariq") for i, (r, n) in enumerate(zip(requests, need, strict=True))
    ]
    ambignq = read_ambignq(dataset_dir("ambignq", data_dir) / "train_light.json")
    if small:
        keep = np.random.default_rng(0).permutation(len(ambignq))[:TINY_AMBIGNQ]
        ambignq = [ambignq[i] for i in sorted(keep)]
    return {"clariq": clariq, "ambignq": ambignq, "everyday": read_everyday()}


def training_files(data_dir: str | Path | None = None) -> list[Path]:
    from clarion.data.clariq import labels_file
    from clarion.data.location import dataset_dir

    clariq = dataset_dir("clariq", data_dir)
    return [
        clariq / labels_file("train"),
        clariq / labels_file("dev"),
        dataset_dir("ambignq", data_dir) / "train_light.json",
        EVERYDAY / "requests.jsonl",
        EVERYDAY / "followups.jsonl",
    ]


def answers(data, split: str, every: int = 1) -> list[tuple[str, str, str]]:
    """(request, question, answer) of every ``every``-th answer row of ClariQ ``split``, empty answers left out."""
    gold = data.labels(split)
    topic = {f: t for t, facets in gold.facets.items() for f in facets}
    rows = list(gold.answers.items())[::every]
    return [(gold.requests[topic[f]], data.bank[q], a) for (f, q), a in rows if a]


def reply_rows(data_dir=None, every: int = 4) -> tuple[list[tuple[str, str, str]], np.ndarray, np.ndarray]:
    """(request, question, reply) rows labelled new request (1) or answer (0), and their weights: clarion's
    follow-ups, and from ClariQ train every ``every``-th answer (an answer) and the same question answered by
    another topic's request (a new request), together weighing as much as the follow-ups."""
    from clarion.data.clariq import ClariQ

    follow = read_followups()
    rows = [(f.request, f.question, f.reply) for f in follow]
    y = [int(f.new_request) for f in follow]
    pairs = answers(ClariQ.load(data_dir), "train", every)
    others = [p[0] for p in pairs]
    shift = np.random.default_rng(0).permutation(len(others))
    for (request, question, answer), other in zip(pairs, (others[i] for i in shift), strict=True):
        rows.append((request, question, answer))
        y.append(0)
        if other != request:
            rows.append((request, question, other))
            y.append(1)
    extra = len(rows) - len(follow)
    weights = np.r_[np.ones(len(follow)), np.full(extra, len(follow) / max(extra, 1))]
    return rows, np.asarray(y), weights


def _encoder(progress: Progress, what: str):
    """``encode_distinct`` with a bar counting the distinct texts of ``what`` encoded."""
    from clarion.retrieve.dense import encode_distinct

    def encode(texts):
        distinct = len(set(texts))
        return encode_distinct(texts, on_batch=progress(f"any request: encoding {distinct:,} {what}", distinct))

    return encode


@dataclass
class AnyRequest:
    """Whether any request needs a clarifying question, and which question to ask."""

    unclear: UnclearModel
    writer: QuestionWriter
    new_requests: NewRequestDetector

    @classmethod
    def train(cls, data_dir=None, small: bool = False, progress: Progress = no_progress) -> AnyRequest:
        """Train the three models (``small``: a sample of AmbigNQ and of ClariQ's answers, for CI); ``progress`` sees
        four steps."""
        advance = progress("training the clarification model for any request", 4)
        rows = [r for rs in sources(data_dir, small).values() for r in rs]
        inputs = Inputs.of([r.request for r in rows], _encoder(progress, "requests")([r.request for r in rows]))
        advance(1)
        unclear = UnclearModel.fit(inputs, [int(r.ask) for r in rows], [r.source for r in rows], UnclearConfig())
        advance(1)
        kinds = [i for i, r in enumerate(rows) if r.source == "everyday" and r.ask and r.asks_for]
        writer = QuestionWriter.fit(
            [rows[i].request for i in kinds], [rows[i].asks_for for i in kinds], inputs.embeddings[kinds]
        )
        advance(1)
        replies, y, weights = reply_rows(data_dir, every=40 if small else 4)
        X = features(*zip(*replies, strict=True), encode=_encoder(progress, "replies to questions"))
        advance(1)
        return cls(unclear, writer, NewRequestDetector.fit(X, y, weights))

    def is_new_request(self, request: str, question: str, reply: str) -> bool:
        """Whether ``reply`` to ``question`` starts a new request instead of answering it."""
        return self.new_requests_many([(request, question, reply)])[0]

    def new_requests_many(self, rows: list[tuple[str, str, str]], encode=None) -> list[bool]:
        """:meth:`is_new_request` of each ``(request, question, reply)``, one encoder pass for all (``encode``: texts
        -> the packaged MiniLM's embeddings, by default encoded)."""
        if not rows:
            return []
        p = self.new_requests.probability(features(*map(list, zip(*rows, strict=True)), encode=encode))
        return [bool(v >= THRESHOLD) for v in p]

    def assess(self, requests: list[str], embeddings: np.ndarray | None = None) -> list[tuple[float, Written]]:
        """P(unclear) of each request and the question to ask it (the encoder runs once for both, not at all with
        ``embeddings``: the packaged MiniLM's of the requests)."""
        inputs = Inputs.of(requests, embeddings)
        p = self.unclear.probability(inputs)
        return list(zip((float(v) for v in p), self.writer.write(requests, inputs.embeddings), strict=True))

    def save(self, directory: str | Path, fingerprint: str = "") -> Path:
        u, w = self.unclear, self.writer
        with writing(directory) as directory:
            arrays = {**u.arrays(), "kind_coef": w.classifier.coef_, "kind_intercept": w.classifier.intercept_}
            arrays |= self.new_requests.arrays("new_")
            state = {"labels": list(w.labels), "kind_words": tfidf_state(w.vectorizer, "kind_", arrays)}
            if u.vectorizer is not None:
                state["words"] = tfidf_state(u.vectorizer, "words_", arrays)
            with atomic_writer(directory / "arrays.npz", "wb") as handle:
                np.savez(handle, **arrays)
            write_json(directory / "state.json", state)
            write_meta(directory, asdict(u.config), fingerprint, u.metrics)
        return directory

    @classmethod
    def load(cls, directory: str | Path) -> AnyRequest:
        from sklearn.linear_model import LogisticRegression

        directory = Path(directory)
        meta = read_meta(directory)
        try:
            config = UnclearConfig(**meta["config"])
            state = read_json(directory / "state.json")
            with np.load(directory / "arrays.npz", allow_pickle=False) as npz:
                arrays = {k: npz[k] for k in npz.files}
            words = tfidf_from_state(state["words"], "words_", arrays) if "words" in state else None
            unclear = UnclearModel(
                config, arrays["mean"], arrays["scale"], arrays["coef"], float(arrays["intercept"][0]), words
            )
            kinds = LogisticRegression()
            kinds.coef_, kinds.intercept_ = arrays["kind_coef"], arrays["kind_intercept"]
            kinds.classes_ = np.asarray(state["labels"])
            writer = QuestionWriter(kinds, tfidf_from_state(state["kind_words"], "kind_", arrays), state["labels"])
            new_requests = NewRequestDetector.from_arrays(arrays, "new_")
        except (KeyError, TypeError, ValueError, OSError, zipfile.BadZipFile, json.JSONDecodeError) as err:
            raise ModelError(f"{directory}: not a clarification model for any request ({err}); retrain it") from None
        return cls(unclear, writer, new_requests)


def default_dir(data_dir=None, small: bool | None = None, fingerprint: str | None = None) -> Path:
    """Where the model trained on the data of ``data_dir`` (its files' ``fingerprint``, computed when not given)
    lives."""
    small = tiny() if small is None else small
    config = {**asdict(UnclearConfig()), "small": small, "parts": ["unclear", "writer", "new_requests"]}
    config["new_request_features"] = NEW_REQUEST_VERSION
    return model_dir(TASK, NAME, config, fingerprint or fingerprint_files(training_files(data_dir)))


def load_or_train(data_dir=None, small: bool | None = None, progress: Progress = no_progress) -> AnyRequest:
    """The model trained on the default sources, trained now when absent (``small``: CI's sample; default: whether
    ``CLARION_TINY=1``)."""
    small = tiny() if small is None else small
    trained: list[AnyRequest] = []
    try:
        fingerprint = fingerprint_files(training_files(data_dir))
    except DataError as err:
        raise DataError(err.path, f"{err.message} (the clarification model for any request trains on it)") from None

    def train(directory: Path) -> None:
        trained.append(AnyRequest.train(data_dir, small, progress))
        trained[0].save(directory, fingerprint)

    on = "ClariQ train+dev, AmbigNQ train" + (" (a sample)" if small else "") + " and clarion's everyday requests"
    directory = ensure(default_dir(data_dir, small, fingerprint), train, "the clarification model for any request", on)
    return trained[0] if trained else AnyRequest.load(directory)

"""The ClariQ clarification-need model: ambiguity features (:mod:`clarion.detect`) and a small classifier.

``NeedModel.train(data, splits)`` computes label-free features for the labelled topics of ``splits``
(request form, WordNet senses, questions won in the per-question softmax over every known request, the
spread of those questions), measures the configuration by repeated stratified cross-validation on those
topics (official weighted F1, mean +- std, stored in ``meta.json``) and fits the classifier on all of them.
A saved model is self-contained: the bank and pool embeddings travel with it, so predicting only encodes
the new requests. ``need_model`` is the ``"model"`` need method of :mod:`clarion.clariq.methods`.
"""

from __future__ import annotations

import zipfile
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from functools import partial
from pathlib import Path

import numpy as np

from clarion.bounds import FLAG, SEED, Bound, check_fields
from clarion.classifier import CLASSIFIERS, load_classifier, make_classifier, save_classifier
from clarion.data.clariq import ClariQ
from clarion.data.clariq_constants import NEED_LABELS, check_splits, validate_requests
from clarion.data.io import atomic_writer, read_json, write_json
from clarion.detect.ambiguity import TEMPERATURE, RequestPool
from clarion.detect.classify import decide
from clarion.detect.cv import fit_decide, repeated_cv
from clarion.detect.features import FeatureSpace, feature_names, parse_groups
from clarion.detect.form import without_final_period
from clarion.errors import InputError, ModelError
from clarion.store import Progress, ensure, model_dir, no_progress, read_meta, write_meta, writing
from clarion.types import Topic

TASK = "clariq"
NAME = "need"
POOL_SPLITS = ("train", "dev", "test")
HAND_GROUPS = ("form", "lexicon", "bank", "spread", "markers")
DEFAULT_GROUPS = (*HAND_GROUPS, "request-emb")
"""The hand-crafted groups and, last (the ``views`` classifier's second view), the request embedding."""


_BOUNDS = {
    "C": Bound("float", 0, open_low=True),
    "tune_decision": FLAG,
    "drop_final_period": FLAG,
    "lower_case": FLAG,
    "cv_splits": Bound("int", 2),
    "cv_repeats": Bound("int", 1),
    "temperature": Bound("float", 0, open_low=True),
    "seed": SEED,
}
"""What NeedConfig's scalar fields may hold."""


@dataclass(frozen=True)
class NeedConfig:
    """Everything that defines a need model besides its training data."""

    groups: tuple[str, ...] = DEFAULT_GROUPS
    classifier: str = "views"
    C: float = 0.1
    tune_decision: bool = False
    cv_splits: int = 5
    cv_repeats: int = 5
    temperature: float = TEMPERATURE
    seed: int = 0
    drop_final_period: bool = True  # features read "Tell me about iron." as "Tell me about iron" (False: as typed)
    lower_case: bool = True  # features read the request in lower case: no capitalised-name cue (False: as typed)

    def __post_init__(self) -> None:
        object.__setattr__(self, "groups", tuple(self.groups))  # a list when read back from JSON
        parse_groups(self.groups)
        if self.classifier not in CLASSIFIERS:
            raise InputError(f"NeedConfig.classifier must be one of {', '.join(CLASSIFIERS)}, got {self.classifier!r}")
        check_fields(self, _BOUNDS)

    @classmethod
    def tiny(cls) -> NeedConfig:
        """The CI configuration: the same model, a 3-fold single-repeat cross-validation."""
        return cls(cv_splits=3, cv_repeats=1)

    def make(self):
        """A factory of fresh, unfitted classifiers of this configuration."""
        return lambda: make_classifier(self.classifier, C=self.C, seed=self.seed)

    def read(self, requests: Sequence[str]) -> list[str]:
        """The requests as the features read them: without final periods
        (:func:`~clarion.detect.form.without_final_period`) and in lower case, as the configuration says. Users type
        "tell me about iron" and "Tell me about iron." for the same request."""
        out = [without_final_period(r) for r in requests] if self.drop_final_period else list(requests)
        return [r.lower() for r in out] if self.lower_case else out


def labelled(data: ClariQ, splits: Sequence[str]) -> tuple[list[str], np.ndarray]:
    """Requests and need labels of the labelled topics of ``splits``."""
    requests, labels = [], []
    for split in splits:
        gold = data.labels(split)
        for topic, request in gold.requests.items():
            requests.append(request)
            labels.append(gold.need[topic])
    return requests, np.asarray(labels, dtype=int)


def feature_space(data: ClariQ, temperature: float = TEMPERATURE) -> FeatureSpace:
    """The feature space over ``data``'s bank (cached MiniLM embeddings) and every known request."""
    from clarion.clariq.baselines import bank_pool
    from clarion.retrieve.dense import encode_cached

    _, texts = bank_pool(data)
    bank = encode_cached(texts, name="clariq-bank")
    return FeatureSpace.build(texts, bank, [t.request for t in data.known_requests(POOL_SPLITS)], temperature)


@dataclass
class NeedModel:
    """A trained clarification-need predictor (labels 1-4, 1 = no clarification needed)."""

    config: NeedConfig
    space: FeatureSpace
    classifier: object
    weights: np.ndarray = field(default_factory=lambda: np.ones(len(NEED_LABELS)))
    metrics: dict = field(default_factory=dict)
    fingerprint: str = ""
    """The fingerprint of the training data (:func:`data_fingerprint`)."""

    @classmethod
    def train(
        cls, data: ClariQ, splits: Sequence[str], tiny: bool = False, progress: Progress = no_progress
    ) -> NeedModel:
        """Train on the labelled topics of ``splits``; ``metrics`` gets the repeated-CV weighted F1. ``progress``
        sees three steps: the features, the cross-validation, the final fit."""
        splits = check_splits(splits)
        config = NeedConfig.tiny() if tiny else NeedConfig()
        groups = parse_groups(config.groups)
        advance = progress("training the clarification-need model", 3)
        requests, y = labelled(data, splits)
        space = feature_space(data, config.temperature)
        X = space.features(config.read(requests), groups)
        advance(1)
        cv = repeated_cv(config.make(), X, y, config.cv_splits, config.cv_repeats, tune_decision=config.tune_decision)
        advance(1)
        classifier, weights = fit_decide(config.make(), X, y, config.tune_decision)
        advance(1)
        metrics = {"cv": cv.as_dict(), "splits": list(splits), "topics": len(y)}
        return cls(config, space, classifier, weights, metrics, data_fingerprint(data, splits))

    def _features(self, requests: Sequence[str]) -> np.ndarray:
        return self.space.features(self.config.read(validate_requests(requests)), parse_groups(self.config.groups))

    def predict_proba(self, requests: Sequence[str]) -> np.ndarray:
        """Class probabilities ``(n, 4)`` over labels 1..4; rows sum to 1."""
        return self.classifier.predict_proba(self._features(requests))

    def predict(self, requests: Sequence[str]) -> list[int]:
        """Need labels 1-4 (the probabilities times the tuned per-class decision weights, argmax)."""
        return self.labels(self.predict_proba(requests))

    def labels(self, probabilities: np.ndarray) -> list[int]:
        """The labels :meth:`predict` gives for rows of :meth:`predict_proba` (no second featurisation)."""
        return [int(v) for v in decide(probabilities, self.weights)]

    def save(self, directory: str | Path) -> Path:
        """Write the model to ``directory`` (``meta.json`` last, marking it complete)."""
        pool = self.space.pool
        with writing(directory) as directory:
            with atomic_writer(directory / "pool.npz", "wb") as handle:
                np.savez(handle, bank=pool.bank, requests=pool.requests)
            arrays: dict[str, np.ndarray] = {}
            classifier = save_classifier(self.classifier, arrays)
            with atomic_writer(directory / "classifier.npz", "wb") as handle:
                np.savez(handle, **arrays)
            write_json(
                directory / "need.json",
                {
                    "classifier": classifier,
                    "bank_texts": pool.bank_texts,
                    "request_keys": pool.request_keys,
                    "weights": [float(w) for w in self.weights],
                    "features": feature_names(parse_groups(self.config.groups)),
                },
            )
            write_meta(directory, asdict(self.config), self.fingerprint, self.metrics)
        return directory

    @classmethod
    def load(cls, directory: str | Path) -> NeedModel:
        """A model written by :meth:`save`; an incomplete or foreign directory raises :class:`ModelError`."""
        directory = Path(directory)
        meta = read_meta(directory)
        try:
            as_typed = {"drop_final_period": False, "lower_case": False}  # models saved before these readings
            config = NeedConfig(**{**as_typed, **meta["config"]})
            state = read_json(directory / "need.json")
            with np.load(directory / "pool.npz") as arrays:
                bank, requests = arrays["bank"], arrays["requests"]
            with np.load(directory / "classifier.npz", allow_pickle=False) as arrays:
                classifier_arrays = {k: arrays[k] for k in arrays.files}
            if "classifier" not in state:
                old = "saved by an older clarion (no classifier header)"
                raise ModelError(f"{directory}: {old}; retrain it (clarion clariq train)")
            saved = state["classifier"]
        except (KeyError, TypeError, OSError, ValueError, EOFError, zipfile.BadZipFile, InputError) as err:
            raise ModelError(f"{directory}: not a clarification-need model ({err}); retrain it") from None
        if state.get("features") != feature_names(parse_groups(config.groups)):
            raise ModelError(f"{directory}: trained with other features; retrain it (clarion clariq train)")
        pool = RequestPool(bank, state["bank_texts"], requests, state["request_keys"], config.temperature)
        try:
            classifier = load_classifier(saved, classifier_arrays)
        except ModelError as err:
            raise ModelError(f"{directory}: {err}") from None
        weights = np.asarray(state["weights"], dtype=float)
        metrics = meta.get("metrics", {})
        return cls(config, FeatureSpace(pool), classifier, weights, metrics, meta.get("data_fingerprint", ""))


def data_fingerprint(data: ClariQ, splits: Sequence[str]) -> str:
    """Fingerprint of the labelled splits, the bank and the request-pool files."""
    return data.fingerprint(splits, POOL_SPLITS)


def default_model_dir(data: ClariQ, splits: Sequence[str], tiny: bool = False) -> Path:
    """Where :func:`load_or_train` keeps the model trained on ``splits``."""
    config = NeedConfig.tiny() if tiny else NeedConfig()
    splits = check_splits(splits)
    return model_dir(TASK, NAME, {"splits": list(splits), **asdict(config)}, data_fingerprint(data, splits))


def load_or_train(
    data: ClariQ, splits: Sequence[str], tiny: bool = False, progress: Progress = no_progress
) -> NeedModel:
    """The model trained on ``splits``, trained now (:func:`clarion.store.ensure`) when absent."""
    from clarion.clariq.train import ready_to_train

    splits = check_splits(splits)
    trained: list[NeedModel] = []  # the model just trained is returned as it is, not read back

    def train(directory: Path) -> None:
        trained.append(NeedModel.train(data, splits, tiny=tiny, progress=progress))
        trained[0].save(directory)

    what, on = "the clarification-need model", f"ClariQ {'+'.join(splits)}"
    ready = partial(ready_to_train, data, splits)
    directory = ensure(default_model_dir(data, splits, tiny), train, what, on, ready=ready)
    return trained[0] if trained else NeedModel.load(directory)


def need_model(topics: list[Topic], data: ClariQ, train_splits: Sequence[str] = ("train", "dev")) -> dict[str, int]:
    """The ``"model"`` need method: labels 1-4 for ``topics`` from the model trained on ``train_splits``."""
    if not topics:
        return {}
    return need_with(load_or_train(data, tuple(train_splits) or ("train", "dev")), topics)


def need_with(model: NeedModel, topics: list[Topic]) -> dict[str, int]:
    """:func:`need_model` with its model loaded (a worker of ``--workers`` loads it once for many blocks)."""
    labels = model.predict([t.request for t in topics])
    return {t.id: label for t, label in zip(topics, labels, strict=True)}

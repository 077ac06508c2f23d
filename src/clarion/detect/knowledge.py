"""Knowledge-seeking turn detection (DSTC9 Track 1 task 1, Kim et al., 2020).

A logistic regression and an RBF support vector machine, their probabilities averaged, over the last user turn:
TF-IDF word 1-2-grams and character 2-5-grams (the lexical shape of a question about reviews or FAQs) plus, when
enabled, its all-MiniLM-L6-v2 embedding (Reimers & Gurevych, 2019), which on our dstc11_track5 dev split removed most
of the lexical model's errors, and the mean of one SmolLM2-135M layer's hidden states over the turn
(:func:`clarion.retrieve.smollm.turn_states`; standardised with the training turns' means and deviations, then scaled
to length ``lm_weight``), which removed about a quarter of the rest in train cross-validation (docs/dstc.md).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass

import numpy as np

from clarion.bounds import FLAG, FRACTION, Bound, check_fields
from clarion.errors import ModelError
from clarion.retrieve.smollm import N_LAYERS

_DETECT_BOUNDS = {
    "use_embeddings": FLAG,
    "C": Bound("float", 0, open_low=True),
    "threshold": FRACTION,
    "faq_rule": FLAG,
    "strip_names": FLAG,
    "entity_faq_cosine": Bound("float", 0, 1, optional=True),
    "lm_layer": Bound("int", 1, N_LAYERS, optional=True),
    "lm_weight": Bound("float", 0, open_low=True),
    "lm_margin": Bound("float", 0, 0.5),
    "svm_C": Bound("float", 0, open_low=True, optional=True),
}


@dataclass
class DetectConfig:
    """Options of the detector (part of the model's config in meta.json)."""

    use_embeddings: bool = True
    C: float = 10.0
    threshold: float = 0.5
    faq_rule: bool = True
    """Also call a turn that paraphrases an FAQ question knowledge-seeking (gated for DSTC11-format knowledge)
    (:mod:`clarion.detect.faq_rule`; needs the dense embeddings)."""
    strip_names: bool = True
    """The gated FAQ rule compares turns and FAQ questions with entity names removed (models trained with it keep
    their non-knowledge turns' embeddings without names as well)."""
    entity_faq_cosine: float | None = 0.4
    """The gated FAQ rule also fires, at this lower cosine, for an FAQ of a place the dialogue tracks (DSTC11-format
    knowledge; the margin as the rule's): "Can I check in at 11 pm?" after the Lensfield Hotel is 0.74 (names cut)
    from its "What time can I check in at The Lensfield Hotel?", "Can I pay by card?" 0.57 from "Do you accept credit
    cards?", 0.43 from "What forms of payment do you accept?". Below
    :data:`~clarion.detect.faq_rule.ENTITY_FAQ_COSINE`, a turn the gate took is answered from the closest FAQ the
    gate fires on (``FaqRule.best_faq(..., gated=True)``) when the detector did not flag it or the selector is
    unsure. 0.4 since 2026-11-27 (0.65, then 0.5 before; set with ``benchmarks/dstc_faq_probe.py`` and train
    cross-validation, docs/dstc.md). ``None``: off (models trained before it)."""
    lm_layer: int | None = 24
    """The SmolLM2-135M layer whose mean hidden state over the turn joins the features (of 30; chosen on train
    cross-validation, ``benchmarks/dstc_detect_cv.py``: layers 24 to 30 do about as well, 22 worse). ``None``: none
    (models trained before it, the tiny CI setting)."""
    lm_weight: float = 0.7
    """The length of the turn's standardised SmolLM2 state in the features (MiniLM's embedding has length 1)."""
    lm_margin: float = 0.02
    """The detector without SmolLM2's states decides a turn it scores at most ``lm_margin`` or at least 1 -
    ``lm_margin`` (about 4 turns in 5 of dstc11_track5's); only the others are read by SmolLM2 and scored with its
    states (0: every turn). In train cross-validation, 0.02 and 0.1 made the same errors as 0."""

    svm_C: float | None = 10.0
    """A support vector machine with the RBF kernel at this C (:class:`clarion.classifier.KernelSvm`) is fitted on
    the same features beside each logistic regression, and their probabilities are averaged: a turn's label depends
    on combinations of its words and meaning that a linear model weighs one by one (train cross-validation, 8 draws
    of the folds: 103 errors against 112, docs/dstc.md). ``None``: the logistic regression alone (models trained
    before it)."""

    def __post_init__(self) -> None:
        check_fields(self, _DETECT_BOUNDS)


OLDER_DETECTOR = {"lm_layer": None, "svm_C": None}
"""What a saved detector configuration without these fields had: no SmolLM2 states, no support vector machine."""


def _mean_positive(classifiers: list, X) -> np.ndarray:
    """P(1) per row, averaged over ``classifiers``."""
    return np.mean([c.predict_proba(X)[:, 1] for c in classifiers], axis=0)


def _load_members(state: dict, keys: list[str], arrays: dict[str, np.ndarray]) -> list:
    """The saved classifiers ``keys`` of a detector's state; a missing one raises :class:`ModelError`."""
    from clarion.classifier import load_classifier

    missing = [key for key in keys if key not in state]
    if missing:
        raise ModelError(f"the detector's {', '.join(missing)} missing; retrain the model")
    return [load_classifier(state[key], arrays) for key in keys]


class Detector:
    """Fit on (last user turn, target) pairs; predict a probability per turn.

    >>> det = Detector(DetectConfig(use_embeddings=False, lm_layer=None))
    >>> det.fit(["is it quiet?", "book it please", "are rooms clean?", "for 2 people"], [1, 0, 1, 0])
    >>> det.predict_proba(["is the staff friendly?"]).shape
    (1,)
    """

    def __init__(self, config: DetectConfig | None = None):
        self.config = config or DetectConfig()
        self._vectorizers = None
        self._model: list = []  # the classifiers (averaged)
        self._plain: list | None = None  # with lm_layer: the classifiers without the SmolLM2 states (every turn)
        self._lm_scale = None  # (mean, deviation) of the training turns' SmolLM2 states

    def _features(self, texts: Sequence[str], embeddings: np.ndarray | None, fit: bool = False):
        """The turns' words and MiniLM embeddings (the features without SmolLM2's states)."""
        from scipy.sparse import csr_matrix, hstack
        from sklearn.feature_extraction.text import TfidfVectorizer

        if fit:
            self._vectorizers = [
                TfidfVectorizer(ngram_range=(1, 2), sublinear_tf=True),
                TfidfVectorizer(analyzer="char_wb", ngram_range=(2, 5), sublinear_tf=True),
            ]
            blocks = [v.fit_transform(texts) for v in self._vectorizers]
        else:
            blocks = [v.transform(texts) for v in self._vectorizers]
        if self.config.use_embeddings:
            if embeddings is None:
                from clarion.retrieve.dense import encode

                embeddings = encode(list(texts))
            blocks.append(csr_matrix(embeddings))
        return hstack(blocks).tocsr()

    def _with_states(self, features, texts: Sequence[str], fit: bool, states: np.ndarray | None):
        """``features`` with the turns' SmolLM2 states beside them (``states``, or computed: a training set's cached
        on disk), standardised with the training turns' statistics, rows scaled to length ``lm_weight``."""
        from scipy.sparse import csr_matrix, hstack

        if states is None:
            from clarion.retrieve.smollm import turn_states

            states = turn_states(list(texts), self.config.lm_layer, cached=fit)
        states = np.asarray(states, dtype=np.float64)
        if fit:
            self._lm_scale = (states.mean(axis=0), states.std(axis=0) + 1e-6)
        mean, std = self._lm_scale
        states = (states - mean) / std
        states *= self.config.lm_weight / np.maximum(np.linalg.norm(states, axis=1, keepdims=True), 1e-12)
        return hstack([features, csr_matrix(states)]).tocsr()

    def classifiers(self) -> list:
        """Fresh classifiers of this detector's configuration (:mod:`clarion.classifier`), whose probabilities are
        averaged: the logistic regression, and the RBF support vector machine with ``svm_C``."""
        from clarion.classifier import BinaryLogReg, KernelSvm

        members = [BinaryLogReg(C=self.config.C, max_iter=3000)]
        if self.config.svm_C is not None:
            members.append(KernelSvm(C=self.config.svm_C))
        return members

    def fit(
        self,
        texts: Sequence[str],
        targets: Sequence[int],
        embeddings: np.ndarray | None = None,
        states: np.ndarray | None = None,
    ) -> None:
        """Fit on the turns ``texts``; ``embeddings`` (MiniLM) and ``states`` (SmolLM2 layer ``lm_layer``,
        :func:`clarion.retrieve.smollm.turn_states`) are computed when not given. With ``lm_layer``, a classifier
        without the states is fitted as well: it decides the turns it is sure of (``lm_margin``)."""
        texts, targets = list(texts), np.asarray(targets, dtype=int)
        features = self._features(texts, embeddings, fit=True)
        if self.config.lm_layer is None:
            self._model = [c.fit(features, targets) for c in self.classifiers()]
            return
        self._plain = [c.fit(features, targets) for c in self.classifiers()]
        with_states = self._with_states(features, texts, True, states)
        self._model = [c.fit(with_states, targets) for c in self.classifiers()]

    def predict_proba(
        self, texts: Sequence[str], embeddings: np.ndarray | None = None, states: np.ndarray | None = None
    ) -> np.ndarray:
        """P(knowledge-seeking) for each text. With ``lm_layer``, the classifier without SmolLM2's states scores
        every turn, and the one with them (``states``: every text's, or computed) rescores the turns it scores
        between ``lm_margin`` and 1 - ``lm_margin``."""
        if not texts:
            return np.zeros(0)
        texts = list(texts)
        features = self._features(texts, embeddings)
        if self._plain is None:
            return _mean_positive(self._model, features)
        scores = _mean_positive(self._plain, features)
        margin = self.config.lm_margin
        unsure = np.flatnonzero((scores > margin) & (scores < 1 - margin))
        if len(unsure):
            part = None if states is None else np.asarray(states)[unsure]
            rows = self._with_states(features[unsure], [texts[i] for i in unsure], False, part)
            scores[unsure] = _mean_positive(self._model, rows)
        return scores

    def state(self, arrays: dict[str, np.ndarray]) -> dict:
        """JSON state (vectorizers, the classifiers' headers); weights go into ``arrays`` (the TF-IDF vocabularies:
        :func:`clarion.classifier.tfidf_state`; the classifiers: :func:`clarion.classifier.save_classifier`; the
        SmolLM2 states' statistics)."""
        from clarion.classifier import save_classifier, tfidf_state

        out = {
            "config": asdict(self.config),
            "vectorizers": [tfidf_state(v, f"detect_tfidf{i}_", arrays) for i, v in enumerate(self._vectorizers)],
        }
        for part, members in (("", self._model), ("plain_", self._plain or [])):
            for key, kind, classifier in zip(("classifier", "svm_classifier"), ("lr_", "svm_"), members, strict=False):
                out[part + key] = save_classifier(classifier, arrays, f"detect_{part}{kind}")
        if self._plain is not None:
            arrays["detect_lm_mean"], arrays["detect_lm_std"] = self._lm_scale
        return out

    @classmethod
    def from_state(cls, state: dict, arrays: dict[str, np.ndarray]) -> Detector:
        from clarion.classifier import tfidf_from_state

        det = cls(DetectConfig(**{**OLDER_DETECTOR, **state["config"]}))
        det._vectorizers = [
            tfidf_from_state(v, f"detect_tfidf{i}_", arrays) for i, v in enumerate(state["vectorizers"])
        ]
        keys = ["classifier"] + (["svm_classifier"] if det.config.svm_C is not None else [])
        det._model = _load_members(state, keys, arrays)
        if det.config.lm_layer is not None:
            if "detect_lm_mean" not in arrays or "detect_lm_std" not in arrays:
                raise ModelError("the detector's SmolLM2 parts (detect_lm_mean, detect_lm_std) are missing")
            det._plain = _load_members(state, ["plain_" + key for key in keys], arrays)
            det._lm_scale = (arrays["detect_lm_mean"], arrays["detect_lm_std"])
        return det

    def predict(self, texts: Sequence[str], embeddings: np.ndarray | None = None) -> np.ndarray:
        return self.predict_proba(texts, embeddings) >= self.config.threshold

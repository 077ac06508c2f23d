"""Knowledge-seeking turn detection (DSTC9 Track 1 task 1, Kim et al., 2020).

A logistic regression over the last user turn: TF-IDF word 1-2-grams and character 2-5-grams (the lexical
shape of a question about reviews or FAQs) plus, when enabled, its all-MiniLM-L6-v2 embedding (Reimers &
Gurevych, 2019), which on our dstc11_track5 dev split removed most of the lexical model's errors.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass

import numpy as np

from clarion.bounds import FLAG, FRACTION, Bound, check_fields

_DETECT_BOUNDS = {
    "use_embeddings": FLAG,
    "C": Bound("float", 0, open_low=True),
    "threshold": FRACTION,
    "faq_rule": FLAG,
    "strip_names": FLAG,
    "entity_faq_cosine": Bound("float", 0, 1, optional=True),
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
    :data:`~clarion.detect.faq_rule.ENTITY_FAQ_COSINE`, a turn only the gate took is answered from the closest
    FAQ the gate fires on (``FaqRule.best_faq(..., gated=True)``). 0.4 since 2026-11-27 (0.65, then 0.5 before; set
    with ``benchmarks/dstc_faq_probe.py`` and train cross-validation, docs/dstc.md). ``None``: off (models
    trained before it)."""

    def __post_init__(self) -> None:
        check_fields(self, _DETECT_BOUNDS)


class Detector:
    """Fit on (last user turn, target) pairs; predict a probability per turn.

    >>> det = Detector(DetectConfig(use_embeddings=False))
    >>> det.fit(["is it quiet?", "book it please", "are rooms clean?", "for 2 people"], [1, 0, 1, 0])
    >>> det.predict_proba(["is the staff friendly?"]).shape
    (1,)
    """

    def __init__(self, config: DetectConfig | None = None):
        self.config = config or DetectConfig()
        self._vectorizers = None
        self._model = None

    def _features(self, texts: Sequence[str], embeddings: np.ndarray | None, fit: bool = False):
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

    def classifier(self):
        """A fresh classifier of this detector's configuration (:mod:`clarion.classifier`)."""
        from clarion.classifier import BinaryLogReg

        return BinaryLogReg(C=self.config.C, max_iter=3000)

    def fit(self, texts: Sequence[str], targets: Sequence[int], embeddings: np.ndarray | None = None) -> None:
        features = self._features(list(texts), embeddings, fit=True)
        self._model = self.classifier().fit(features, np.asarray(targets, dtype=int))

    def predict_proba(self, texts: Sequence[str], embeddings: np.ndarray | None = None) -> np.ndarray:
        """P(knowledge-seeking) for each text."""
        if not texts:
            return np.zeros(0)
        return self._model.predict_proba(self._features(list(texts), embeddings))[:, 1]

    def state(self, arrays: dict[str, np.ndarray]) -> dict:
        """JSON state (vectorizers, the classifier's header); weights go into ``arrays`` (the TF-IDF vocabularies:
        :func:`clarion.classifier.tfidf_state`; the classifier: :func:`clarion.classifier.save_classifier`)."""
        from clarion.classifier import save_classifier, tfidf_state

        return {
            "classifier": save_classifier(self._model, arrays, "detect_lr_"),
            "config": asdict(self.config),
            "vectorizers": [tfidf_state(v, f"detect_tfidf{i}_", arrays) for i, v in enumerate(self._vectorizers)],
        }

    @classmethod
    def from_state(cls, state: dict, arrays: dict[str, np.ndarray]) -> Detector:
        from clarion.classifier import load_classifier, tfidf_from_state

        det = cls(DetectConfig(**state["config"]))
        det._vectorizers = [
            tfidf_from_state(v, f"detect_tfidf{i}_", arrays) for i, v in enumerate(state["vectorizers"])
        ]
        det._model = load_classifier(state["classifier"], arrays)
        return det

    def predict(self, texts: Sequence[str], embeddings: np.ndarray | None = None) -> np.ndarray:
        return self.predict_proba(texts, embeddings) >= self.config.threshold

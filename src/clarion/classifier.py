"""Trained classifiers with one API and one way of saving them, shared by every stage that classifies.

A classifier has ``fit(X, y) -> self``, ``predict_proba(X) -> (n, classes)`` and ``state``: the plain NumPy arrays it
predicts from (text, such as a LightGBM model, as UTF-8 bytes: :func:`text_array`), so nothing is pickled and a model
directory can never run code when it is read. :func:`save_classifier` puts a classifier's state into a model's dict of
arrays under a prefix and returns its JSON header (``format_version``, ``kind``, ``params``, ``arrays``: the prefix);
:func:`load_classifier` builds it back from the header and the arrays. Kinds (:func:`kinds`):

- the clarification-need classifiers over ordered labels 1..4 (:mod:`clarion.detect.classify`: ``logreg``,
  ``ordinal``, ``lgbm``, ``blend``, ``views``);
- ``binary-logreg``: scikit-learn's logistic regression (DSTC knowledge-seeking turn detection, the snippet selector's
  linear variant);
- ``boosted-trees``: LightGBM binary classifiers (Ke et al., NeurIPS 2017), their probabilities averaged over a bag of
  boosters (the DSTC snippet selector).

Models saved before this header existed are upgraded when read by their owners (``NeedModel.load``,
``Selector.from_state``, ``Detector.from_state``), which know where their older layouts kept the arrays.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from clarion.errors import ModelError

FORMAT_VERSION = 1
"""The classifier header's format: 1 is the first with a header (older models had none and are upgraded)."""


def text_array(text: str) -> np.ndarray:
    """``text`` as a uint8 array of its UTF-8 bytes (saved with the other arrays, loaded without pickle)."""
    return np.frombuffer(text.encode("utf-8"), dtype=np.uint8).copy()


def array_text(array: np.ndarray) -> str:
    """The text :func:`text_array` stored (also a NumPy str array, as older need models saved LightGBM's text)."""
    array = np.asarray(array)
    if array.dtype.kind == "U":
        return str(array)
    return array.astype(np.uint8).tobytes().decode("utf-8")


class BinaryLogReg:
    """scikit-learn's ``LogisticRegression(**params)`` for labels 0/1; ``state``: its ``coef``, ``intercept`` and
    ``classes`` (the fitted estimator is rebuilt from them, so a loaded one predicts exactly as the fitted one)."""

    name = "binary-logreg"

    def __init__(self, **params: Any):
        self.params = params
        self.state: dict[str, np.ndarray] = {}
        self._model = None

    def fit(self, X, y) -> BinaryLogReg:
        from sklearn.linear_model import LogisticRegression

        model = LogisticRegression(**self.params).fit(X, np.asarray(y, dtype=int))
        self.state = {
            "coef": np.asarray(model.coef_, dtype=np.float64),
            "intercept": np.asarray(model.intercept_, dtype=np.float64),
            "classes": np.asarray(model.classes_, dtype=np.int64),
        }
        self._model = model
        return self

    def _estimator(self):
        if self._model is None:
            from sklearn.linear_model import LogisticRegression

            model = LogisticRegression()
            model.coef_, model.intercept_, model.classes_ = (self.state[k] for k in ("coef", "intercept", "classes"))
            self._model = model
        return self._model

    def predict_proba(self, X) -> np.ndarray:
        return self._estimator().predict_proba(X)


class BoostedTrees:
    """LightGBM binary classifiers (``lightgbm.LGBMClassifier(**params)``), P(1) averaged over a bag of boosters
    (:meth:`bagged`); ``state``: each booster's text, ``trees.<i>``."""

    name = "boosted-trees"

    def __init__(self, **params: Any):
        self.params = params
        self._boosters: list | None = None
        self._texts: dict[str, np.ndarray] = {}

    @property
    def state(self) -> dict[str, np.ndarray]:
        if not self._texts and self._boosters:
            self._texts = {f"trees.{i}": text_array(b.model_to_string()) for i, b in enumerate(self._boosters)}
        return self._texts

    @state.setter
    def state(self, value: dict[str, np.ndarray]) -> None:
        self._texts, self._boosters = dict(value), None

    def fit(self, X, y) -> BoostedTrees:
        import lightgbm

        self._boosters, self._texts = [lightgbm.LGBMClassifier(**self.params).fit(X, y).booster_], {}
        return self

    def boosters(self) -> list:
        """The LightGBM boosters (read from :attr:`state` on first use)."""
        if self._boosters is None:
            from clarion.rerank.lambdamart import booster_from_text

            keys = sorted(self._texts, key=lambda k: int(k.rsplit(".", 1)[1]))
            self._boosters = [booster_from_text(array_text(self._texts[k]), f"LightGBM trees {k}") for k in keys]
        return self._boosters

    @classmethod
    def bagged(cls, members: Sequence[BoostedTrees]) -> BoostedTrees:
        """One classifier predicting with the average of ``members``' boosters (fitted on different folds)."""
        bag = cls(**(members[0].params if members else {}))
        bag._boosters = [booster for member in members for booster in member.boosters()]
        return bag

    def positive(self, X) -> np.ndarray:
        """P(1) per row: the boosters' mean."""
        return np.mean([np.asarray(b.predict(X)) for b in self.boosters()], axis=0)

    def predict_proba(self, X) -> np.ndarray:
        p = self.positive(X)
        return np.column_stack([1.0 - p, p])


BINARY: dict[str, type] = {BinaryLogReg.name: BinaryLogReg, BoostedTrees.name: BoostedTrees}


def kinds() -> dict[str, Any]:
    """Every classifier by kind: the need classifiers of :mod:`clarion.detect.classify` and :data:`BINARY`."""
    from clarion.detect.classify import CLASSIFIERS

    return {**CLASSIFIERS, **BINARY}


def header(kind: str, params: dict[str, Any], prefix: str = "") -> dict[str, Any]:
    """A classifier's JSON header in the current format (also how owners upgrade an older model's layout)."""
    return {"format_version": FORMAT_VERSION, "kind": kind, "params": dict(params), "arrays": prefix}


def save_classifier(classifier, arrays: dict[str, np.ndarray], prefix: str = "") -> dict[str, Any]:
    """Put ``classifier``'s state into ``arrays`` (keys ``prefix + name``) and return its JSON header."""
    for key, value in classifier.state.items():
        arrays[prefix + key] = np.asarray(value)
    return header(classifier.name, classifier.params, prefix)


def load_classifier(saved: dict[str, Any], arrays: dict[str, np.ndarray]):
    """The classifier :func:`save_classifier` saved (``saved``: its header); a header of another format or kind
    raises :class:`ModelError`."""
    if not isinstance(saved, dict) or saved.get("format_version") != FORMAT_VERSION:
        found = saved.get("format_version") if isinstance(saved, dict) else saved
        raise ModelError(f"classifier format {found!r}, expected {FORMAT_VERSION}; retrain the model")
    known = kinds()
    if saved.get("kind") not in known:
        raise ModelError(f"unknown classifier kind {saved.get('kind')!r}; expected one of: {', '.join(known)}")
    classifier = known[saved["kind"]](**saved.get("params", {}))
    prefix = saved.get("arrays", "")
    state = {key[len(prefix) :]: value for key, value in arrays.items() if key.startswith(prefix)}
    if not state:
        raise ModelError(f"no arrays saved for the {saved['kind']} classifier (prefix {prefix!r})")
    classifier.state = state
    return classifier

"""Trained classifiers with one API and one way of saving them, shared by every stage that classifies.

A classifier has ``fit(X, y) -> self``, ``predict_proba(X) -> (n, classes)`` and ``state``: the plain NumPy arrays it
predicts from (text, such as a LightGBM model, as UTF-8 bytes: :func:`text_array`), so nothing is pickled and a model
directory can never run code when it is read. :func:`save_classifier` puts a classifier's state into a model's dict of
arrays under a prefix and returns its JSON header (``format_version``, ``kind``, ``params``, ``arrays``: the prefix);
:func:`load_classifier` builds it back from the header and the arrays. Kinds (:func:`kinds`):

- the clarification-need classifiers over ordered labels 1..4 (:mod:`clarion.classifier.ordered`: ``logreg``,
  ``ordinal``, ``lgbm``, ``blend``, ``views``);
- ``binary-logreg``: scikit-learn's logistic regression (DSTC knowledge-seeking turn detection, the snippet selector's
  linear variant);
- ``rbf-svm``: scikit-learn's support vector machine with the RBF kernel, Platt-calibrated (beside the logistic
  regression in DSTC knowledge-seeking turn detection);
- ``boosted-trees``: LightGBM binary classifiers (Ke et al., NeurIPS 2017), their probabilities averaged over a bag of
  boosters (the DSTC snippet selector).

Fitted TF-IDF vectorizers are saved the same way (:func:`tfidf_state`, :func:`tfidf_from_state`).
"""

from clarion.classifier.arrays import array_text, booster_from_text, booster_predict, text_array
from clarion.classifier.binary import BINARY, BinaryLogReg, BoostedTrees, KernelSvm
from clarion.classifier.ordered import CLASSIFIERS, make_classifier
from clarion.classifier.saving import (
    FORMAT_VERSION,
    header,
    kinds,
    load_classifier,
    save_classifier,
    tfidf_from_state,
    tfidf_state,
)

__all__ = [
    "BINARY",
    "CLASSIFIERS",
    "FORMAT_VERSION",
    "BinaryLogReg",
    "BoostedTrees",
    "KernelSvm",
    "array_text",
    "booster_from_text",
    "booster_predict",
    "header",
    "kinds",
    "load_classifier",
    "make_classifier",
    "save_classifier",
    "text_array",
    "tfidf_from_state",
    "tfidf_state",
]

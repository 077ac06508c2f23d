"""Knowledge selection (DSTC9 Track 1 task 2): rank the snippets of the tracked entities, keep the likely ones.

Candidates are every snippet of the entities the :class:`~clarion.ground.entities.EntityTracker` found.
Each (user turn, snippet) pair gets cheap features: the all-MiniLM-L6-v2 cosine (Reimers & Gurevych, 2019), its
margin to the best candidate, z-score and rank; a TF-IDF cosine; the snippet type; the cosines of the previous
and next sentence of the same review and the review's max/mean (context-dependent sentences); the kNN "memory"
of :mod:`clarion.rerank.response_memory`; the snippet-level kNN memory of :mod:`clarion.rerank.snippet_memory`
(was this very snippet the answer to a similar training question?); and the element-wise product of the two
embeddings (which lets the classifier learn which aspects matter). A LightGBM classifier (Ke et al., 2017; or a
logistic regression) trained on the training turns scores them. DSTC11 turns have several gold snippets: every
candidate whose probability reaches a calibrated threshold is returned (at least the best one); the threshold
is chosen on out-of-fold scores of the training dialogues (:mod:`clarion.rerank.snippets_fit`), for the
widest margin over the DSTC11 baseline's precision and recall, or for micro F-beta. DSTC9/10 scoring ranks:
there the best ``rank_k`` candidates are returned in order — by the MiniLM cosine alone when
``SelectConfig.faq_cosine`` is on (the default): on an FAQ-only knowledge base of another domain this classifier,
trained on DSTC11, ranks worse than the plain cosine (docs/dstc.md).

A fine-tuned MiniLM cross-encoder was the plan: on the shared 2-core CPU it scored ~20 pairs/s, too slow for
~76 candidates per turn, so this feature model is the selection model (docs/dstc.md).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass
from enum import Enum

import numpy as np

from clarion.bounds import FLAG, Bound, as_choice, check_fields
from clarion.rerank.snippet_memory import N_KEY_MEMORY, KeyMemory
from clarion.retrieve.knowledge import Group
from clarion.retrieve.packaged import N_DENSE

"""The width of the turn and snippet embeddings the pipeline uses (the packaged MiniLM's)."""


class SelectModel(str, Enum):
    """The classifier over the pair features."""

    lgbm = "lgbm"
    logreg = "logreg"


_LGBM_PARAMS = {
    "learning_rate": 0.05,
    "num_leaves": 31,
    "min_child_samples": 20,
    "subsample": 0.8,
    "subsample_freq": 1,
    "colsample_bytree": 0.3,
    "max_bin": 63,  # with 0.3 of the columns per tree: ~5x faster than 255 bins / 0.5, same out-of-fold F1
    "random_state": 0,
    "n_jobs": 2,
    "verbose": -1,
}


_SELECT_BOUNDS = {
    "n_estimators": Bound("int", 1),
    "C": Bound("float", 0, open_low=True),
    "use_product": FLAG,
    "max_snippets": Bound("int", 1),
    "rank_k": Bound("int", 1),
    "key_memory": FLAG,
    "calibration_folds": Bound("int", 2),
    "bag": FLAG,
    "calibration_beta": Bound("float", 0, open_low=True),
    "anchor_precision": Bound("float", 0, 1, optional=True),
    "anchor_recall": Bound("float", 0, 1, optional=True),
    "faq_cosine": FLAG,
    "strip_names": FLAG,
}


@dataclass
class SelectConfig:
    """Options of the selector (part of the model's config in meta.json)."""

    model: SelectModel = SelectModel.lgbm
    n_estimators: int = 300
    C: float = 100.0
    use_product: bool = True
    max_snippets: int = 20
    rank_k: int = 5
    key_memory: bool = True  # the snippet-level kNN features of clarion.rerank.snippet_memory
    calibration_folds: int = 3  # threshold chosen on out-of-fold scores of this many dialogue folds
    bag: bool = True  # LightGBM: predict with the average of the fold models (no refit), see select_fit
    calibration_beta: float = 1.0  # ... maximising micro F-beta (recall weighted beta times), or when both
    anchor_precision: float | None = 0.7951  # anchors are set: the largest min(P - anchor P, R - anchor R), i.e.
    anchor_recall: float | None = 0.8843  # the widest margin over an operating point (the DSTC11 val baseline)
    faq_cosine: bool = True  # FAQ-only (DSTC9-format) knowledge: rank by the MiniLM cosine, not the classifier
    strip_names: bool = True  # select and respond from the user's turn with entity names cut out (who is tracked)

    def __post_init__(self) -> None:
        self.model = as_choice("SelectConfig.model", SelectModel, self.model)
        check_fields(self, _SELECT_BOUNDS)


N_BASE = 16


def _document_features(cos: np.ndarray, doc: np.ndarray | None) -> list[np.ndarray]:
    """Cosine of the previous and next sentence of the same review, and the review's max and mean cosine:
    a review sentence such as "It definitely delivered in that regard." is relevant through its neighbour."""
    n = len(cos)
    doc = np.arange(n) if doc is None else doc
    same_prev = np.r_[False, doc[1:] == doc[:-1]]
    same_next = np.r_[doc[:-1] == doc[1:], False]
    prev = np.where(same_prev, np.r_[0.0, cos[:-1]], 0.0)
    nxt = np.where(same_next, np.r_[cos[1:], 0.0], 0.0)
    doc_max, doc_mean = np.empty(n), np.empty(n)
    for d in np.unique(doc):
        mask = doc == d
        doc_max[mask] = cos[mask].max()
        doc_mean[mask] = cos[mask].mean()
    return [prev, nxt, doc_max, doc_mean]


def group_features(group: Group, use_product: bool = True, key_memory: bool = False) -> np.ndarray:
    """The feature matrix (n, d) of one group (see the module docstring)."""
    n = len(group.snippets)
    if n == 0:
        width = N_BASE + (N_KEY_MEMORY if key_memory else 0) + (N_DENSE if use_product else 0)
        return np.zeros((0, width), dtype=np.float32)
    cos = group.snippets @ group.query
    order = np.argsort(-cos, kind="stable")
    rank = np.empty(n)
    rank[order] = np.arange(n)
    lex = group.lexical
    columns = [
        cos,
        cos - cos.max(),
        (cos - cos.mean()) / (cos.std() + 1e-6),
        np.log1p(rank),
        lex,
        lex - lex.max(),
        group.is_faq.astype(float),
        np.full(n, float(group.n_entities)),
        *_document_features(cos, group.doc),
    ]
    memory = group.memory if group.memory is not None else np.zeros((n, 2))
    columns += [memory[:, 0], memory[:, 1], memory[:, 0] - memory[:, 0].max(), memory[:, 1] - memory[:, 1].max()]
    dense = np.stack(columns, axis=1)
    if key_memory:
        keys = group.key_memory if group.key_memory is not None else np.tile([-1.0, 0.0, -1.0, 0.0], (n, 1))
        dense = np.hstack([dense, keys])
    if use_product:
        dense = np.hstack([dense, group.snippets * group.query[None, :]])
    return dense.astype(np.float32)


class Selector:
    """A classifier over :func:`group_features` (LightGBM or a logistic regression, :class:`SelectModel`)
    with a calibrated selection threshold."""

    def __init__(self, config: SelectConfig | None = None):
        self.config = config or SelectConfig()
        self.threshold = 0.5
        self.memory: KeyMemory | None = None  # set by training when config.key_memory
        self._model = None  # a classifier of clarion.classifier: BoostedTrees (lgbm) or BinaryLogReg (logreg)

    def features(self, group: Group) -> np.ndarray:
        return group_features(group, self.config.use_product, self.config.key_memory)

    def fit(self, groups: Sequence[Group], labels: Sequence[np.ndarray]) -> None:
        x = np.vstack([self.features(g) for g in groups])
        y = np.concatenate([np.asarray(lab, dtype=int) for lab in labels])
        self._model = self.classifier().fit(x, y)

    def classifier(self):
        """A fresh classifier of the configured kind (:mod:`clarion.classifier`)."""
        from clarion.classifier import BinaryLogReg, BoostedTrees

        if self.config.model is SelectModel.lgbm:
            return BoostedTrees(**_LGBM_PARAMS, n_estimators=self.config.n_estimators)
        return BinaryLogReg(C=self.config.C, max_iter=2000)

    def scores(self, group: Group) -> np.ndarray:
        """P(snippet is gold) for each candidate of ``group``."""
        if len(group.snippets) == 0:
            return np.zeros(0)
        return self._model.predict_proba(self.features(group))[:, 1]

    def choose(self, scores: np.ndarray, ranked: bool = False) -> list[int]:
        """Indices of the selected candidates, best first (see the module docstring)."""
        if len(scores) == 0:
            return []
        order = [int(i) for i in np.argsort(-scores, kind="stable")]
        if ranked:
            return order[: self.config.rank_k]
        keep = [i for i in order if scores[i] >= self.threshold][: self.config.max_snippets]
        return keep or order[:1]

    def state(self, arrays: dict[str, np.ndarray]) -> dict:
        """JSON state; the classifier's arrays (:func:`clarion.classifier.save_classifier`) go into ``arrays``."""
        from clarion.classifier import save_classifier

        config = asdict(self.config)
        config["model"] = self.config.model.value
        out = {"config": config, "threshold": self.threshold}
        if self.memory is not None:
            out["key_memory"] = self.memory.state(arrays)
        out["classifier"] = save_classifier(self._model, arrays, "selector_")
        return out

    @classmethod
    def from_state(cls, state: dict, arrays: dict[str, np.ndarray]) -> Selector:
        from clarion.classifier import load_classifier

        config = dict(state["config"])
        config["model"] = SelectModel(config.get("model", SelectModel.logreg.value))
        config.setdefault("key_memory", False)  # models saved before the key memory existed
        sel = cls(SelectConfig(**config))
        sel.threshold = float(state["threshold"])
        if "key_memory" in state:
            sel.memory = KeyMemory.from_state(state["key_memory"], arrays)
        sel._model = load_classifier(state["classifier"], arrays)
        return sel

    def _objective(self, tp: int, fp: int, fn: int) -> float:
        """What calibration maximises: the margin over the anchor operating point, else micro F-beta."""
        if not tp:
            return -1.0
        precision, recall = tp / (tp + fp), tp / (tp + fn)
        cfg = self.config
        if cfg.anchor_precision is not None and cfg.anchor_recall is not None:
            return min(precision - cfg.anchor_precision, recall - cfg.anchor_recall)
        beta2 = cfg.calibration_beta**2
        return (1 + beta2) * precision * recall / (beta2 * precision + recall)

    def calibrate_scores(self, all_scores: Sequence[np.ndarray], labels: Sequence[np.ndarray]) -> float:
        """Set :attr:`threshold` to the value maximising :meth:`_objective` on the snippets chosen from
        ``all_scores`` (e.g. out-of-fold scores); returns the micro F1 there."""
        best, best_t, best_f1 = -np.inf, 0.5, 0.0
        for t in np.arange(0.05, 0.95, 0.01):
            self.threshold = float(t)
            tp = fp = fn = 0
            for s, lab in zip(all_scores, labels, strict=True):
                chosen = set(self.choose(s))
                gold = set(np.flatnonzero(lab).tolist())
                tp += len(chosen & gold)
                fp += len(chosen - gold)
                fn += len(gold - chosen)
            value = self._objective(tp, fp, fn)
            if value > best:
                best, best_t, best_f1 = value, float(t), 2 * tp / (2 * tp + fp + fn)
        self.threshold = best_t
        return best_f1

    def bag(self, selectors: Sequence[Selector]) -> None:
        """Predict with the average score of ``selectors``' LightGBM models (fitted on different folds)."""
        from clarion.classifier import BoostedTrees

        self._model = BoostedTrees.bagged([sel._model for sel in selectors])

    def calibrate(self, groups: Sequence[Group], labels: Sequence[np.ndarray]) -> float:
        """:meth:`calibrate_scores` on this selector's scores of ``groups``."""
        return self.calibrate_scores([self.scores(g) for g in groups], labels)


def keep_known_set(
    chosen: Sequence[int], scores: np.ndarray, keys: Sequence, known: Sequence[frozenset], faqs: Sequence[bool] = ()
) -> list[int]:
    """Rule ``known_sets``: ``chosen`` (indices of candidates, best first; their snippet ``keys``) cut to its longest
    leading part whose snippets are one of the ``known`` sets (the snippet sets training turns were answered with),
    when the whole selection is not one of them: every snippet cut scores below every snippet kept. Unchanged when no
    such part exists, or when the cut would drop an FAQ (``faqs[j]``: candidate ``j`` is one): an FAQ is a whole
    answer, often to a question no training turn asked. The selector decides snippet by snippet, while answers reuse
    the same sets of a place's snippets, so a selection that opens with a known set and holds more review sentences
    mostly holds extra ones (docs/rules.md)."""
    order = sorted(chosen, key=lambda j: -float(scores[j]))
    if not order or frozenset(keys[j] for j in order) in known:
        return list(chosen)
    for n in range(len(order) - 1, 0, -1):
        if frozenset(keys[j] for j in order[:n]) in known:
            if faqs and any(faqs[j] for j in order[n:]):
                return list(chosen)
            kept = set(order[:n])
            return [j for j in chosen if j in kept]
    return list(chosen)

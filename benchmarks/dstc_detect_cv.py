"""Train cross-validation of the knowledge-seeking detector alone, over several fold draws.

The dstc11_track5 train split's dialogues go into 5 folds; each fold's turns are scored by a detector
(:class:`clarion.detect.knowledge.Detector`, without the pipeline's FAQ rule) trained on the other four. Draw 0 is
the pipeline's own folds (``dialogue_folds``, as ``benchmarks/dstc_cv.py``); draw ``s`` > 0 puts a dialogue in fold
MD5(``s/dialogue id``) mod 5. A detector makes a dozen errors in 2,455 turns, so one draw's count moves by a few
with the folds alone: a variant is compared on the sum over the draws. No dev data is read.

Each ``--detect`` is one variant, a JSON object of ``DetectConfig`` fields merged into the default configuration:

    python benchmarks/dstc_detect_cv.py --detect '{}' '{"lm_layer": null}' '{"lm_layer": 26}' [--draws 3]

It prints, per variant, the errors of each draw, their sum, and the mean F1. The MiniLM embeddings and SmolLM2
states of the turns are cached on disk (the first run computes them: about 2 minutes for the states of one layer).

``--fractions 0.25 0.5 1`` draws a learning curve instead: each fold's detector learns from that fraction of the
other folds' dialogues (a dialogue is kept when MD5(``curve/dialogue id``) falls in the fraction, so a smaller
fraction's dialogues are a subset of a larger one's), and the held-out fold is scored in full.
"""

from __future__ import annotations

import argparse
import hashlib
import json
from dataclasses import asdict

import numpy as np


def salted(contexts, salt: str, modulo: int) -> np.ndarray:
    """MD5(``salt/dialogue id``) mod ``modulo`` of every context: the same for a dialogue's contexts."""
    from clarion.data.dstc_split import dialogue_ids

    return np.array([int(hashlib.md5(f"{salt}/{d}".encode()).hexdigest(), 16) % modulo for d in dialogue_ids(contexts)])


def draws(contexts, count: int) -> list[np.ndarray]:
    """The fold (0-4) of every context in each of ``count`` draws (draw 0: the pipeline's own folds)."""
    from clarion.data.dstc_split import dialogue_folds

    return [np.array(dialogue_folds(contexts, 5))] + [salted(contexts, str(s), 5) for s in range(1, count)]


def train_turns():
    """The dstc11_track5 train split's contexts, their last user turns, targets (0/1) and MiniLM embeddings
    (cached)."""
    from clarion.data.dstc import load_dataset
    from clarion.data.dstc_split import split_dataset
    from clarion.data.location import dataset_dir
    from clarion.dstc.models.turns import embed_queries, query_texts

    data = split_dataset(load_dataset(dataset_dir("dstc11_track5")), "train")
    texts = query_texts(data)
    targets = np.array([int(label.target) for label in data.labels])
    return data.contexts, texts, targets, embed_queries(texts, True, cached=True)


def kept(contexts, fraction: float) -> np.ndarray:
    """Whether each context's dialogue is among the ``fraction`` of dialogues a learning curve trains on (nested:
    the dialogues of a smaller fraction are among those of a larger one)."""
    return salted(contexts, "curve", 1000) / 1000 < fraction


def out_of_fold(
    texts: list[str], targets: np.ndarray, emb: np.ndarray, fold: np.ndarray, config, learn: np.ndarray | None = None
) -> np.ndarray:
    """P(knowledge-seeking) of every turn from the detector trained on the other folds (only the turns ``learn``
    marks, when given; the turns' SmolLM2 states computed once, for all of them)."""
    from clarion.detect.knowledge import Detector
    from clarion.retrieve.smollm import turn_states

    states = None if config.lm_layer is None else turn_states(texts, config.lm_layer, cached=True)
    scores = np.zeros(len(texts))
    for k in range(5):
        learnt = fold != k if learn is None else (fold != k) & learn
        train, test = np.flatnonzero(learnt), np.flatnonzero(fold == k)
        detector = Detector(config)
        detector.fit([texts[i] for i in train], targets[train], emb[train], None if states is None else states[train])
        test_states = None if states is None else states[test]
        scores[test] = detector.predict_proba([texts[i] for i in test], emb[test], test_states)
    return scores


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--detect", nargs="+", default=["{}"], help="variants: JSON objects of DetectConfig fields")
    parser.add_argument("--draws", type=int, default=3, help="fold draws (default 3)")
    parser.add_argument("--fractions", nargs="+", type=float, help="a learning curve: these fractions of the dialogues")
    args = parser.parse_args()
    if any(not 0 < f <= 1 for f in args.fractions or ()):
        raise SystemExit(f"--fractions: each must be in (0, 1], got {args.fractions}")

    from threadpoolctl import threadpool_limits

    from clarion.detect.knowledge import DetectConfig
    from clarion.errors import InputError

    variants = []
    for text in args.detect:
        try:
            variants.append(DetectConfig(**{**asdict(DetectConfig()), **json.loads(text)}))
        except (json.JSONDecodeError, TypeError, InputError) as err:
            raise SystemExit(f"--detect {text}: {err}") from None
    contexts, texts, targets, emb = train_turns()
    folds = draws(contexts, args.draws)
    print(f"detector alone: {len(texts)} train-split turns, 5 folds, {args.draws} draws")
    runs = [(text, config, None) for text, config in zip(args.detect, variants, strict=True)]
    if args.fractions:
        runs = [
            (f"{text} on {f:g} of the dialogues", config, kept(contexts, f))
            for text, config, _ in runs
            for f in args.fractions
        ]
    with threadpool_limits(limits=2):
        for text, config, learn in runs:
            errors, f1s = [], []
            for fold in folds:
                predicted = out_of_fold(texts, targets, emb, fold, config, learn) >= config.threshold
                errors.append(int((predicted != targets).sum()))
                f1s.append(2 * int((predicted & (targets == 1)).sum()) / (predicted.sum() + targets.sum()))
            print(f"{text}: errors {errors} (sum {sum(errors)}), F1 {np.mean(f1s):.4f}", flush=True)


if __name__ == "__main__":
    main()

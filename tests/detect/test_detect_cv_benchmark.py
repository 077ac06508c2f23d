"""``benchmarks/dstc_detect_cv.py``: the learning curve's choice of training dialogues."""

import numpy as np

from clarion.data.dstc import Context
from clarion.types import Turn


def _contexts(dialogues: int) -> list[Context]:
    """Two contexts per dialogue: the same opening, a different last user turn."""
    out = []
    for d in range(dialogues):
        opening = (Turn("user", f"I need a hotel number {d}"), Turn("system", f"Sure, which area {d}?"))
        out += [Context(opening + (Turn("user", last),)) for last in ("the north", "is it quiet?")]
    return out


def test_the_curve_keeps_whole_dialogues_and_nests_its_fractions(load_benchmark):
    script = load_benchmark("dstc_detect_cv")
    contexts = _contexts(400)
    quarter, half, everything = (script.kept(contexts, f) for f in (0.25, 0.5, 1.0))
    assert everything.all()
    assert (quarter <= half).all() and 0.15 < quarter.mean() < 0.35 and 0.4 < half.mean() < 0.6
    assert (half[0::2] == half[1::2]).all()  # a dialogue's contexts are kept or dropped together


def test_out_of_fold_learns_only_from_the_kept_turns(load_benchmark, monkeypatch):
    script = load_benchmark("dstc_detect_cv")
    from clarion.detect import knowledge

    seen = []

    class Recording:
        def __init__(self, config):
            pass

        def fit(self, texts, targets, embeddings, states):
            seen.append(len(texts))

        def predict_proba(self, texts, embeddings, states):
            return np.zeros(len(texts))

    monkeypatch.setattr(knowledge, "Detector", Recording)
    texts, targets = [f"turn {i}" for i in range(10)], np.arange(10) % 2
    fold = np.arange(10) % 5
    learn = np.arange(10) < 5
    config = knowledge.DetectConfig(use_embeddings=False, lm_layer=None)
    script.out_of_fold(texts, targets, np.zeros((10, 1)), fold, config, learn)
    assert seen == [4] * 5  # the other folds' kept turns: 4 of the 5 turns 0-4
    seen.clear()
    script.out_of_fold(texts, targets, np.zeros((10, 1)), fold, config)
    assert seen == [8] * 5

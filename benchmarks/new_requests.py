"""Is a reply to a clarifying question a new request? Cross-validated on clarion's follow-ups, checked on ClariQ dev.

    python benchmarks/new_requests.py [--folds 5] [--no-understood]

:class:`clarion.dialogue.new_request.NewRequestDetector` is trained as :mod:`clarion.dialogue.any_request` trains it
(the follow-ups, plus ClariQ train's answers and other topics' requests in their place), with the follow-ups split
into folds by request (a request's replies are never on both sides). Prints, on the left-out follow-ups, the AUC,
the accuracy at the threshold and that of always reading the reply as an answer (the engine before); then, for a
detector trained on everything, the share of ClariQ dev's answers it reads as new requests (they are all answers:
each one taken for a new request would lose its topic). Last, for the follow-ups that answer the question, how close
the engine's ``query`` and ``understood`` are to the need as people wrote it (word F1), and how many repeat a pair of
words (the answer-understanding model trained on ClariQ train+dev).
"""

from __future__ import annotations

import argparse

import numpy as np


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--folds", type=int, default=5)
    parser.add_argument("--no-understood", action="store_true", help="Skip the understood-query figures.")
    args = parser.parse_args()

    from sklearn.metrics import roc_auc_score
    from sklearn.model_selection import GroupKFold

    from clarion.data.ambiguous import read_followups
    from clarion.data.clariq import ClariQ
    from clarion.dialogue.any_request import answers, reply_rows
    from clarion.dialogue.new_request import THRESHOLD, NewRequestDetector, features

    rows, y, weights = reply_rows()
    X = features(*zip(*rows, strict=True))
    n = len(read_followups())  # the follow-ups come first
    groups = np.unique([r[0] for r in rows[:n]], return_inverse=True)[1]
    p = np.zeros(n)
    for train, test in GroupKFold(args.folds).split(X[:n], y[:n], groups):
        keep = np.r_[train, np.arange(n, len(y))]
        p[test] = NewRequestDetector.fit(X[keep], y[keep], weights[keep]).probability(X[test])
    print(f"clarion's follow-ups: {n} replies, {y[:n].mean():.0%} new requests ({args.folds} folds by request)")
    print(
        f"  AUC {roc_auc_score(y[:n], p):.3f}, accuracy {np.mean((p >= THRESHOLD) == y[:n]):.3f} "
        f"(always an answer: {1 - y[:n].mean():.3f})"
    )
    detector = NewRequestDetector.fit(X, y, weights)
    data = ClariQ.load()
    dev = answers(data, "dev")
    flagged = detector.probability(features(*zip(*dev, strict=True))) >= THRESHOLD
    print(f"ClariQ dev answers read as new requests: {flagged.mean():.1%} of {len(dev)}")
    if not args.no_understood:
        understood(data)


def word_f1(a: str, b: str) -> float:
    from collections import Counter

    x, y = Counter(a.lower().split()), Counter(b.lower().replace(",", " ").split())
    common = sum((x & y).values())
    return 0.0 if not common else 2 * common / (sum(x.values()) + sum(y.values()))


def understood(data) -> None:
    from clarion.data.ambiguous import read_followups
    from clarion.dialogue.engine import understand
    from clarion.dialogue.state import Exchange, State
    from clarion.dialogue.training import load_or_train
    from clarion.text import tidy_query

    rewriter = load_or_train(data, ("train", "dev"))
    rows = [r for r in read_followups() if not r.new_request]
    queries = [understand(rewriter, State(r.request, (Exchange(r.question, r.reply),))).query for r in rows]
    print(f"the follow-ups' {len(rows)} answers: word F1 to the need as people wrote it, share repeating a word pair")
    for name, texts in (("query", queries), ("understood", [tidy_query(q) for q in queries])):
        f1 = np.mean([word_f1(t, r.understood) for t, r in zip(texts, rows, strict=True)])
        pairs = [list(zip(t.lower().split(), t.lower().split()[1:], strict=False)) for t in texts]
        repeated = np.mean([len(p) != len(set(p)) for p in pairs])
        print(f"  {name:<10} F1 {f1:.3f}, repeating {repeated:.0%}")


if __name__ == "__main__":
    main()

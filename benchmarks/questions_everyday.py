"""How close clarion's written clarifying questions are to the ones people wrote, on clarion's everyday requests.

    python benchmarks/questions_everyday.py [--folds 5] [--no-bank]

For each everyday request that needs clarification, the question people wrote is compared (cosine of the packaged
MiniLM's embeddings, the measure of issue 72) with: the request itself repeated (a baseline that is hard to beat on
this measure), the scope question alone ("What would you like to know about X?"), and the question
:class:`clarion.dialogue.questions.QuestionWriter` writes with its kind classifier trained on the other folds (folds
of 5 neighbouring requests, so a request and its twin are never split); and, for the requests that have one, the
best fitting bank question of the ClariQ model trained on train+dev (what the engine would have asked). Prints the
mean cosine and the share of requests where a question is at least as close as the repeated request, overall and per
kind.
"""

from __future__ import annotations

import argparse
from collections import defaultdict

import numpy as np


def cosines(a: list[str], b: list[str]) -> np.ndarray:
    from clarion.retrieve.dense import encode_queries

    return np.sum(encode_queries(a) * encode_queries(b), axis=1)


def bank_row(requests, people, base) -> None:
    """The ClariQ model's best fitting bank question, for the requests that have one."""
    from clarion.clariq.clarifier import Clarifier
    from clarion.dialogue.choose import PROPOSALS

    proposals = Clarifier.load().rank_many(requests, k=PROPOSALS, fitting=True)
    first = [next((c.text for c in p if c.text.strip()), None) for p in proposals]
    have = [i for i, q in enumerate(first) if q is not None]
    bank = cosines([first[i] for i in have], [people[i] for i in have])
    print(
        f"  bank question         {bank.mean():.3f}  (>= repeated on {np.mean(bank >= base[have]):.0%}; "
        f"{len(have) / len(requests):.0%} of the requests have one that fits)"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--folds", type=int, default=5)
    parser.add_argument("--no-bank", action="store_true", help="Leave out the bank row (no ClariQ model loaded).")
    args = parser.parse_args()

    from sklearn.model_selection import GroupKFold

    from clarion.data.ambiguous import read_everyday
    from clarion.dialogue.questions import QuestionWriter
    from clarion.retrieve.dense import encode_queries

    rows = [r for r in read_everyday() if r.ask and r.question]
    requests, people = [r.request for r in rows], [r.question for r in rows]
    kinds = np.asarray([r.asks_for for r in rows])
    emb = encode_queries(requests)
    written: list = [None] * len(rows)
    predicted = np.empty(len(rows), dtype=object)
    blocks = np.arange(len(rows)) // 5
    for train, test in GroupKFold(args.folds).split(requests, kinds, blocks):
        writer = QuestionWriter.fit([requests[i] for i in train], kinds[train], emb[train])
        held = [requests[i] for i in test]
        predicted[test] = writer.kind(held, emb[test])  # the classifier's kind, whatever question is written
        for i, w in zip(test, writer.write(held, emb[test]), strict=True):
            written[i] = w
    scope = QuestionWriter().write(requests, emb)
    base = cosines(requests, people)
    ours = cosines([w.text for w in written], people)
    plain = cosines([w.text for w in scope], people)
    senses = sum(w.source == "senses" for w in written)
    print(f"{len(rows)} requests that need clarification (clarion's everyday set), MiniLM cosine to people's question")
    print(f"  request repeated      {base.mean():.3f}")
    print(f"  scope question only   {plain.mean():.3f}  (>= repeated on {np.mean(plain >= base):.0%})")
    if not args.no_bank:
        bank_row(requests, people, base)
    frequent = max(np.mean(kinds == k) for k in set(kinds))
    print(
        f"  written (out of fold) {ours.mean():.3f}  (>= repeated on {np.mean(ours >= base):.0%}); kind right on "
        f"{np.mean(predicted == kinds):.0%} (the most frequent kind: {frequent:.0%}); senses asked for {senses}"
    )
    per = defaultdict(list)
    for k, o, b in zip(kinds, ours, base, strict=True):
        per[k].append((o, b))
    for k, v in sorted(per.items(), key=lambda kv: -len(kv[1])):
        o, b = np.asarray(v).T
        print(f"    {k:<11} {len(v):>3}  written {o.mean():.3f}  repeated {b.mean():.3f}")
    for r, w in list(zip(requests, written, strict=True))[:12]:
        print(f"  {r!r} -> {w.text!r}")


if __name__ == "__main__":
    main()

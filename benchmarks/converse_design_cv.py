"""How the answer-understanding model is applied over several turns, chosen on ClariQ train by cross-validation.

    python benchmarks/converse_design_cv.py [--later N] [--rows N] [--score-encoder all-mpnet-base-v2]

Out of fold by topic (5 folds): a rewriter trained on the other folds' rows reads each held-out facet's recorded
conversation (its topic's questions in a seeded order, its own answers); ``query`` is scored by facet MRR among all
train facets (packaged MiniLM, or ``--score-encoder``: the other packaged encoder, which no target was computed with)
at turns 0-3, for each way of chaining the rewrites, beside the organisers' baseline.
"""

from __future__ import annotations

import os
import random

os.environ.setdefault("OMP_NUM_THREADS", "1")


def main() -> None:
    import numpy as np
    import torch

    torch.set_num_threads(1)
    import argparse

    from clarion.data.clariq import ClariQ
    from clarion.dialogue.chaining import CHAINING
    from clarion.dialogue.evaluate import facet_mrr, recorded_traces
    from clarion.dialogue.training import (
        RewriterConfig,
        examples,
        fit,
        merged_labels,
        vocabulary_for,
    )
    from clarion.dialogue.understand import Rewriter, baseline_query
    from clarion.retrieve.dense import encode_cached

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--later", type=int, default=0, help="RewriterConfig.later: examples at turns 2-3.")
    parser.add_argument("--rows", type=int, default=RewriterConfig.rows, help="RewriterConfig.rows: rows sampled.")
    parser.add_argument("--score-encoder", default=None, help="Packaged encoder scoring the queries (default MiniLM).")
    args = parser.parse_args()
    data, config = ClariQ.load(), RewriterConfig(rows=args.rows, later=args.later)
    labels = merged_labels(data, ("train",))
    vocabulary = vocabulary_for(data, labels)
    enc = lambda texts: encode_cached(list(texts), name="dialogue-rewrites")  # noqa: E731
    ex = examples(labels, vocabulary, config, enc)
    topics = sorted(labels.requests)
    fold_of = {t: i % 5 for i, t in enumerate(random.Random(config.seed).sample(topics, len(topics)))}
    traces: dict[str, list] = {name: [] for name in CHAINING} | {"baseline": []}
    name = "converse-design" + (f"-{args.score_encoder}" if args.score_encoder else "")
    score = lambda texts: encode_cached(list(texts), name=name, encoder=args.score_encoder)  # noqa: E731
    for k in range(5):
        keep = np.array([fold_of[g] != k for g in ex.groups])
        rewriter = Rewriter(vocabulary, fit(ex, config, keep))
        held = labels.only([t for t in topics if fold_of[t] == k])
        for name, chain in CHAINING.items():
            traces[name] += recorded_traces(held, lambda s, c=chain, r=rewriter: c(r, s)[0])
        traces["baseline"] += recorded_traces(
            held, lambda s: baseline_query(s.request, [e.answer for e in s.exchanges])
        )
    print("| chaining | turn 0 | turn 1 | turn 2 | turn 3 |\n|---|---|---|---|---|")
    for name, ts in traces.items():
        print(f"| {name} | " + " | ".join(f"{v:.3f}" for v in facet_mrr(ts, labels, score)) + " |")


if __name__ == "__main__":
    main()

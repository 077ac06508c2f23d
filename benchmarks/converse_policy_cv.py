"""The conversation policy's numbers, chosen on ClariQ train by cross-validation (docs/conversation.md, "Policy").

    python benchmarks/converse_policy_cv.py

Out of fold by train topic (5 folds, the folds of ``benchmarks/converse_design_cv.py``):

- the need model's P(need >= 2) (``NeedConfig``'s classifier, out of fold, mean of 3 seeds) beside the share of
  topics that need clarification, per need level: is ``p_unclear`` before any question calibrated?
- after each answer of a recorded conversation, read by a rewriter trained on the other folds: how often the
  query still does not rank the user's facet first among all train facets (packaged MiniLM), after an answer
  rule ``settled`` accepts and after one it does not: the share of ``p_unclear`` a settling answer should leave
  (``policy.SETTLED_LEFT``);
- the policy replayed on those conversations for each ``cost`` and ``SETTLED_LEFT``: questions asked and facet
  MRR when the engine stops (the query stays as it was);
- how many train requests rule ``specific_question`` marks clear, by need level.
"""

from __future__ import annotations

import os
import random

os.environ.setdefault("OMP_NUM_THREADS", "1")


def need_out_of_fold(data):
    import numpy as np

    from clarion.clariq.need import NeedConfig, feature_space, labelled
    from clarion.detect.cv import out_of_fold
    from clarion.detect.features import parse_groups

    config = NeedConfig()
    requests, y = labelled(data, ("train",))
    space = feature_space(data, config.temperature)
    x = space.features(config.read(requests), parse_groups(config.groups))
    p = np.mean([out_of_fold(config.make(), x, y, 5, seed) for seed in (1, 2, 3)], axis=0)
    return requests, y, 1.0 - p[:, 0]


def conversations(data, labels):
    """Per held-out facet: (request, reciprocal rank at turns 0-3, (chosen, new words) per answer)."""
    import numpy as np

    from clarion.dialogue.chaining import CHAINING
    from clarion.dialogue.engine import DEFAULT_CHAINING
    from clarion.dialogue.evaluate import TURNS, facets_of, recorded_order
    from clarion.dialogue.simulate import unique
    from clarion.dialogue.state import Exchange, State
    from clarion.dialogue.training import RewriterConfig, examples, facet_matrix, fit, reciprocal_ranks, vocabulary_for
    from clarion.dialogue.understand import Rewriter
    from clarion.retrieve.dense import encode_cached

    config = RewriterConfig()
    vocabulary = vocabulary_for(data, labels)
    ex = examples(labels, vocabulary, config, lambda t: encode_cached(list(t), name="dialogue-rewrites"))
    topics = sorted(labels.requests)
    fold_of = {t: i % 5 for i, t in enumerate(random.Random(config.seed).sample(topics, len(topics)))}
    rewriters = [
        Rewriter(vocabulary, fit(ex, config, np.array([fold_of[g] != k for g in ex.groups]))) for k in range(5)
    ]
    rows, queries = [], []
    for topic, facet in facets_of(labels):
        request, qids = labels.requests[topic], recorded_order(labels, topic, facet)[:TURNS]
        exchanges = tuple(Exchange(labels.question_text[q], labels.answers[(facet, q)], q) for q in qids)
        readings, texts = [], [request]
        for k in range(1, TURNS + 1):
            chain = CHAINING[DEFAULT_CHAINING]
            query, chosen, new, _ = chain(rewriters[fold_of[topic]], State(request, exchanges[:k]))
            texts.append(query)
            readings = list(zip(chosen, new, strict=True))
        rows.append((request, facet, readings))
        queries.append(texts)
    encode = unique(lambda t: encode_cached(list(t), name="converse-design"))
    facets, facet_emb = facet_matrix(labels, encode)
    index = {f: i for i, f in enumerate(facets)}
    gold = [index[f] for _, f, _ in rows]
    rr = np.stack([reciprocal_ranks(encode([q[k] for q in queries]), facet_emb, gold) for k in range(TURNS + 1)], 1)
    return [(request, rr[i], readings) for i, (request, _, readings) in enumerate(rows)]


def replay(convs, p_need: dict, cost: float, left: float) -> tuple[float, float]:
    """(questions asked, facet MRR where the engine stops) of the policy on recorded conversations."""
    from clarion.dialogue import policy

    asked, final = [], []
    for request, rr, readings in convs:
        p, k = p_need[request], 0
        while k < min(policy.MAX_QUESTIONS, len(readings)) and p > cost:
            p *= left if policy.settles(*readings[k]) else 1.0
            k += 1
        asked.append(k)
        final.append(rr[k])
    return sum(asked) / len(asked), sum(final) / len(final)


def main() -> None:
    import numpy as np
    import torch

    torch.set_num_threads(1)
    from clarion.data.clariq import ClariQ
    from clarion.dialogue import policy
    from clarion.dialogue.training import merged_labels

    data = ClariQ.load()
    requests, y, p = need_out_of_fold(data)
    print("| need | topics | share needing clarification | mean P(need >= 2), out of fold |\n|---|---|---|---|")
    for level in (1, 2, 3, 4):
        print(f"| {level} | {(y == level).sum()} | {float(level >= 2):.0f} | {p[y == level].mean():.3f} |")
    print(f"| all | {len(y)} | {(y >= 2).mean():.3f} | {p.mean():.3f} |")
    convs = conversations(data, merged_labels(data, ("train",)))
    print("\n| after answer | rule `settled` | answers | query misses the facet (rank > 1) |\n|---|---|---|---|")
    for k in (1, 2, 3):
        for settled in (True, False):
            miss = [c[1][k] < 1 for c in convs if len(c[2]) >= k and policy.settles(*c[2][k - 1]) == settled]
            print(f"| {k} | {'yes' if settled else 'no'} | {len(miss)} | {np.mean(miss):.3f} |")
    settled_miss = [c[1][k] < 1 for c in convs for k in range(1, len(c[2]) + 1) if policy.settles(*c[2][k - 1])]
    print(
        f"\nshare left after a settling answer: {np.mean(settled_miss):.3f} / {p.mean():.3f} = "
        f"{np.mean(settled_miss) / p.mean():.2f} (SETTLED_LEFT = {policy.SETTLED_LEFT})"
    )
    p_need = dict(zip(requests, p, strict=True))
    print("\n| cost | SETTLED_LEFT | questions | facet MRR at stop |\n|---|---|---|---|")
    for cost in (0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8):
        for left in (policy.SETTLED_LEFT, 0.5, 0.75):
            print(
                f"| {cost} | {left} | {replay(convs, p_need, cost, left)[0]:.2f} | "
                f"{replay(convs, p_need, cost, left)[1]:.3f} |"
            )
    fired = [int(level) for r, level in zip(requests, y, strict=True) if policy.specific_question(r)]
    print(f"\nrule specific_question: {len(fired)} of {len(y)} train requests, need levels {sorted(fired)}")


if __name__ == "__main__":
    main()

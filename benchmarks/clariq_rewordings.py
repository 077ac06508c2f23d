"""Rewordings of known ClariQ requests: the question ranker's routes (pipeline, snapping, whole bank) on them.

A chatbot's user rarely types a ClariQ request word for word. The TREC Web track description of each labelled
topic (``topic_desc``, e.g. "Find information on President Barack Obama's family history, ..." for "Tell me about
Obama family tree.") is a longer rewording of its request, with the topic's relevance labels. With the model
trained on train only (the one dev is scored with), this prints for the descriptions of the train topics (known:
their questions are attached to them) and of the dev topics (their requests are unlabelled pool members, as the
test requests are for the train+dev model):

- how close each description is to its own request and to the nearest *other* known request (cosine under the
  ranker's route encoder, the fine-tuned MiniLM); for each threshold the share that snaps, the share of those that
  snap to their own request, and the share that would snap with their own request left out of the pool (a new
  request snapping to a sibling topic);
- the official Recall@5/10/20/30 of the descriptions under ``QuestionRanker.rank``'s options: through the pipeline
  as new ClariQ topics (``snap=None, open_bank=False``), snapped when close enough and the rest through the
  pipeline, not snapped (the whole bank for all but the descriptions equal to a known request), and the default
  (snapped when close enough, the rest over the whole bank) at several thresholds; and of the topics' own
  requests; then all of them over the whole bank (``whole_bank``) with several foreign-word penalties
  (``FOREIGN``) and propagation weights (``PROPAGATE``);
- how often a question offered over the whole bank is relevant, by its score (each description's ten best
  questions): where a question is as likely relevant as not, which sets ``FIT``.

    python benchmarks/clariq_rewordings.py [--starter]

``--starter``: the starter model (the packaged MiniLM routes: ``SNAP_PACKAGED`` was read off its table).
"""

from __future__ import annotations

import argparse
import os


def snapping(ranker, labels, topics, embeddings, thresholds) -> None:
    """How close each description is to its own request and to the nearest other known one; per threshold the
    share that snaps, to its own request, and with its own request left out of the pool."""
    import numpy as np

    index = {text: i for i, text in enumerate(ranker.context.pool_texts)}
    sims = embeddings @ ranker.router.route_pool.T
    rows = np.arange(len(topics))
    own = np.asarray([index[labels.requests[t]] for t in topics])
    cos_own = sims[rows, own]
    others = sims.copy()
    others[rows, own] = -np.inf
    cos_other = others.max(axis=1)
    to_own = sims.argmax(axis=1) == own
    print(f"nearest known request is their own: {to_own.mean():.3f}")
    low, high = np.percentile(cos_own, 10), np.percentile(cos_other, 90)
    print(
        f"  cosine to own request: median {np.median(cos_own):.3f} (10th percentile {low:.3f});"
        f" to the nearest other: median {np.median(cos_other):.3f} (90th {high:.3f})"
    )
    print("  threshold  snapped  of them to own  snapped with own left out")
    for tau in thresholds:
        snap = sims.max(axis=1) >= tau
        right = to_own[snap].mean() if snap.any() else float("nan")
        print(f"  {tau:9.2f}  {snap.mean():7.3f}  {right:13.3f}  {(cos_other >= tau).mean():25.3f}")


def show(name: str, rankings: list[list[tuple[str, float]]], topics, labels) -> None:
    """One row: the official Recall@5/10/20/30 of ``rankings`` (best first, one per topic)."""
    from clarion.data.trec import RunRow
    from clarion.evaluate.clariq_official import question_relevance

    pairs_of = zip(topics, rankings, strict=True)
    run = [RunRow(t, q, i + 1, -float(i), "x") for t, pairs in pairs_of for i, (q, _) in enumerate(pairs)]
    m = question_relevance(labels.questions, run).means
    print(f"  {name:60s} " + "  ".join(f"{m[f'Recall{k}']:.4f}" for k in (5, 10, 20, 30)))


def routes(ranker, labels, topics, descs, embeddings, thresholds) -> None:
    """The Recall rows of the descriptions under ``rank``'s options and over the whole bank."""
    from clarion.clariq.ranker_context import insert_no_question
    from clarion.clariq.ranker_route import FOREIGN, PROPAGATE

    snap = ranker.router.snap  # SNAP, or SNAP_PACKAGED for the starter model
    own_requests = [labels.requests[t] for t in topics]
    print("  descriptions ranked                                          R@5     R@10    R@20    R@30")
    for name, texts, options in (
        ("through the pipeline as new topics (no snap, no whole bank)", descs, {"snap": None, "open_bank": False}),
        (f"snapping at {snap}, the rest through the pipeline", descs, {"open_bank": False}),
        ("no snapping: the whole bank for all but exact known requests", descs, {"snap": None}),
        (f"default: snapping at {snap}, the rest over the whole bank", descs, {}),
        *(
            (f"  snapping at {tau}, the rest over the whole bank", descs, {"snap": tau})
            for tau in thresholds
            if tau != snap
        ),
        ("(the topics' own requests, through the pipeline)", own_requests, {}),
    ):
        show(name, ranker.rank(texts, k=30, **options), topics, labels)
    for foreign, propagate in (
        *((f, 0.0) for f in sorted({0.0, 0.05, FOREIGN, 0.2})),
        *((FOREIGN, w) for w in sorted({0.25, PROPAGATE, 1.0})),
    ):
        ranked = ranker.router.whole_bank(descs, embeddings, foreign=foreign, propagate=propagate)
        name = f"  all over the whole bank, foreign-word penalty {foreign}, propagation {propagate}"
        show(name, [insert_no_question(pairs, ranker.no_question_at)[:30] for pairs in ranked], topics, labels)


BANDS = (0.4, 0.5, 0.55, 0.6, 0.65, 0.7, 0.8, 0.9)


def fit_bands(ranker, labels, topics, descs, embeddings) -> None:
    """The share of relevant questions among each description's ten best over the whole bank, by score band."""
    import numpy as np

    from clarion.data.clariq_constants import NO_QUESTION

    scores, relevant, best = [], [], []
    for topic, pairs in zip(topics, ranker.router.whole_bank(descs, embeddings), strict=True):
        ten = [p for p in pairs if p[0] != NO_QUESTION][:10]
        best.append(ten[0][1])
        for qid, score in ten:
            scores.append(score)
            relevant.append(qid in labels.questions[topic])
    scores, relevant = np.asarray(scores), np.asarray(relevant, dtype=float)
    print(f"  lowest best-question score over the whole bank: {min(best):.3f}")
    print("  whole-bank questions (ten best per description) by score: band, questions, share relevant")
    for low, high in zip((-np.inf, *BANDS), (*BANDS, np.inf), strict=True):
        band = (scores >= low) & (scores < high)
        share = f"{relevant[band].mean():.3f}" if band.any() else "-"
        print(f"  [{low:5.2f}, {high:5.2f})  {band.sum():5d}  {share}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--threads", type=int, default=2, help="torch threads")
    parser.add_argument("--starter", action="store_true", help="the starter model (packaged MiniLM, no fine-tunes)")
    args = parser.parse_args()
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    import torch

    torch.set_num_threads(args.threads)
    from clarion.clariq.ranker_route import SNAP, SNAP_PACKAGED
    from clarion.clariq.train import load_ranker
    from clarion.data.clariq import ClariQ
    from clarion.retrieve.dense import encode_queries

    data = ClariQ.load()
    ranker = load_ranker(data, ("train",), starter=args.starter)
    thresholds = sorted({0.6, 0.65, SNAP_PACKAGED, SNAP, 0.8, 0.85})
    print(f"{'starter ' if args.starter else ''}model trained on train only; snapping at {ranker.router.snap}")
    for split in ("train", "dev"):
        labels = data.labels(split)
        topics = list(labels.requests)
        descs = [labels.topic_desc[t] for t in topics]
        embeddings = encode_queries(descs, encoder=ranker.router.route_encoder)  # routing reads this encoder alone
        print(f"\n{split}: {len(topics)} topic descriptions; ", end="")
        snapping(ranker, labels, topics, embeddings, thresholds)
        routes(ranker, labels, topics, descs, embeddings, thresholds)
        fit_bands(ranker, labels, topics, descs, embeddings)


if __name__ == "__main__":
    main()

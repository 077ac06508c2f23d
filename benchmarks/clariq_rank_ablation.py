"""Dev ablation of the ClariQ question ranker, official scorer, models trained on train only.

Rows: BM25 and zero-shot dense alone (the baselines), each of the ranker's encoders alone (zero-shot
all-mpnet-base-v2, MiniLM fine-tuned on train) and the two together (the mean of their cosines), the first-stage
score alone (without and with the learned ``Q00001`` slot), the first LambdaMART, and the pipeline up to
each later stage (the last row is the full pipeline), then the full pipeline's bootstrap standard error and 95%
interval over the dev topics (10,000 resamples). Uses the cached train-only model
(``clarion clariq rank --method full`` with train splits ``train``), training it when absent.

    python benchmarks/clariq_rank_ablation.py [--threads 2]
"""

from __future__ import annotations

import argparse
import os


def encoder_rows(ranker, data, topics, score_run) -> list[tuple[str, dict[str, float]]]:
    """Rows of the ranker's own encoders as dense retrievers, alone and together (mean cosine)."""
    from clarion.clariq.baselines import bank_pool, top_k_run
    from clarion.retrieve.dense import DenseIndex, members
    from clarion.retrieve.packaged import PACKAGED

    ids, texts = bank_pool(data)
    parts = members(ranker.context.encoder)
    encoders = [
        (m, f"dense (zero-shot {m})" if m in PACKAGED else "dense (MiniLM fine-tuned on train)")
        for m in parts
        if m is not None  # the zero-shot MiniLM is the baseline above
    ]
    if len(parts) > 1:
        encoders.append((ranker.context.encoder, "dense (the ranker's two encoders, mean cosine)"))
    rows = []
    for encoder, name in encoders:
        scores = DenseIndex(ids, texts, name="clariq-bank", encoder=encoder).scores([t.request for t in topics])
        rows.append((name, score_run(top_k_run([t.id for t in topics], ids, scores))))
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--threads", type=int, default=2, help="torch threads")
    args = parser.parse_args()
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    import torch

    torch.set_num_threads(args.threads)
    from clarion.clariq.baselines import rank_bm25, rank_dense
    from clarion.clariq.ranker_context import insert_no_question
    from clarion.clariq.train import load_ranker
    from clarion.data.clariq import ClariQ
    from clarion.data.trec import RunRow
    from clarion.evaluate.clariq_official import question_relevance

    data = ClariQ.load()
    labels, topics = data.labels("dev"), data.topics("dev")
    ranker = load_ranker(data, ("train",))
    requests = [t.request for t in topics]

    evaluations = []

    def score(run: dict[str, list[tuple[str, float]]]) -> dict[str, float]:
        rows = [RunRow(t, q, i + 1, -float(i), "x") for t, pairs in run.items() for i, (q, _) in enumerate(pairs)]
        evaluations.append(question_relevance(labels.questions, rows))
        return evaluations[-1].means

    def score_run(run: dict[str, dict[str, float]]) -> dict[str, float]:
        return score({t: sorted(s.items(), key=lambda x: -x[1]) for t, s in run.items()})

    table = []
    for name, method in (("BM25", rank_bm25), ("dense (zero-shot MiniLM)", rank_dense)):
        table.append((name, score_run(method(topics, data, ("train",)))))
    table += encoder_rows(ranker, data, topics, score_run)
    slot = ranker.no_question_at
    stages = [("first", None, "first stage"), ("lambdamart", None, "LambdaMART stage 1")]
    stages += [("full", n, f"+ stages 2..{n}") for n in range(2, len(ranker.models) + 1)]
    for stage, upto, label in stages:
        shortlists = ranker.score_shortlist(requests, stage, upto)
        if stage == "first":
            table.append((f"{label}, no Q00001", score({t.id: r for t, r in zip(topics, shortlists, strict=True)})))
        with_slot = {t.id: insert_no_question(r, slot) for t, r in zip(topics, shortlists, strict=True)}
        table.append((f"{label} + Q00001 at rank {slot + 1}", score(with_slot)))
    print(f"{'method (dev, trained on train)':50s} R@5    R@10   R@20   R@30")
    for name, m in table:
        print(f"{name:50s} {m['Recall5']:.4f} {m['Recall10']:.4f} {m['Recall20']:.4f} {m['Recall30']:.4f}")
    # how much 50 topics can move: the full pipeline's recalls resampled over the dev topics
    full = [evaluations[-1].bootstrap(f"Recall{k}") for k in (5, 10, 20, 30)]
    print(f"{'full pipeline, bootstrap SE over topics':50s} " + " ".join(f"{b.se:.4f}" for b in full))
    print(f"{'full pipeline, 95% bootstrap interval':50s} " + " ".join(f"{b.low:.2f}-{b.high:.2f}" for b in full))


if __name__ == "__main__":
    main()

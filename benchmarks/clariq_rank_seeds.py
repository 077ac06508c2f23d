"""Seed spread of the ClariQ question ranker: train CV and dev, official scorer, models trained on train only.

Trains the default pipeline once per (LightGBM seed, MiniLM fine-tune seed) pair — folds fixed by
``RankerConfig.seed`` — and prints, per training, the out-of-fold train CV (Recall@20 / @30, the first
LambdaMART's Recall@30, the shortlist recall) and dev Recall@5/10/20/30, then the mean and the spread. Dev is
printed to show how much one draw of 50 topics moves with the seeds; choices are made on the CV columns.
Fine-tuned encoders are cached by content (pairs, settings, seed), so a seed that was trained before costs no
fine-tuning; a new fine-tune seed costs 6 MiniLM fine-tunes (~6 minutes on a 2-core CPU).

    python benchmarks/clariq_rank_seeds.py --lambdamart-seeds 13,18,23 --finetune-seeds 13
    python benchmarks/clariq_rank_seeds.py --lambdamart-seeds 13 --finetune-seeds 13,14,15
"""

from __future__ import annotations

import argparse
import os
import statistics
import time


def seeds(text: str) -> list[int]:
    try:
        values = [int(x) for x in text.split(",") if x.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected comma-separated integers, got {text!r}") from None
    if not values:
        raise argparse.ArgumentTypeError("at least one seed is needed")
    return values


def seed_arguments(parser) -> None:
    """The options every ranker benchmark shares: the seed grid and torch's threads."""
    parser.add_argument("--lambdamart-seeds", type=seeds, default=[13], help="first LightGBM seed of each bag")
    parser.add_argument("--finetune-seeds", type=seeds, default=[13], help="seeds of the MiniLM fine-tunes")
    parser.add_argument("--threads", type=int, default=2, help="torch threads")


def score_ranked(ranker, requests: dict[str, str], qrels):
    """The official scorer's Evaluation of ``ranker``'s full pipeline (``Q00001`` in its slot) on ``requests``
    (topic id -> request), judged by ``qrels`` (topic id -> relevant question ids)."""
    from clarion.clariq.benchmark import run_rows
    from clarion.evaluate.clariq_official import question_relevance

    ranked = ranker.rank(list(requests.values()), k=ranker.config.shortlist + 1)
    run = {topic: dict(pairs) for topic, pairs in zip(requests, ranked, strict=True)}
    return question_relevance({topic: qrels[topic] for topic in requests}, run_rows(run))


def train_and_score_dev(data, config):
    """A ranker trained on train with ``config``, and its :func:`score_ranked` Evaluation on the 50 dev topics."""
    from clarion.clariq.ranker import QuestionRanker
    from clarion.clariq.ranker_training import fit_ranker

    ranker = fit_ranker(QuestionRanker, data, ("train",), config)
    requests = {topic.id: topic.request for topic in data.topics("dev")}
    return ranker, score_ranked(ranker, requests, data.labels("dev").questions)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    seed_arguments(parser)
    args = parser.parse_args()
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    import torch

    torch.set_num_threads(args.threads)
    from clarion.clariq.ranker_config import RankerConfig
    from clarion.data.clariq import ClariQ
    from clarion.store import cpu_model

    data = ClariQ.load()
    print(f"machine: {cpu_model()}, {os.cpu_count()} cores; models trained on train, dev scored (50 topics)")
    print(
        "| LightGBM seed | fine-tune seed | train CV R@20 / R@30 | LambdaMART 1 R@30 | shortlist "
        "| dev R@5 / R@10 / R@20 / R@30 | s |"
    )
    print("|---|---|---|---|---|---|---|")
    cv20, cv30, dev20, dev30 = [], [], [], []
    for lm_seed in args.lambdamart_seeds:
        for ft_seed in args.finetune_seeds:
            start = time.perf_counter()
            config = RankerConfig(lambdamart_seed=lm_seed, finetune_seed=ft_seed)
            ranker, dev = train_and_score_dev(data, config)
            cv = ranker.cv_metrics
            cv20.append(cv["cv_Recall20"])
            cv30.append(cv["cv_Recall30"])
            dev20.append(dev["Recall20"])
            dev30.append(dev["Recall30"])
            print(
                f"| {lm_seed} | {ft_seed} | {cv['cv_Recall20']:.4f} / {cv['cv_Recall30']:.4f} "
                f"| {cv['cv_lambdamart_Recall30']:.4f} | {cv['cv_shortlist_recall']:.4f} "
                f"| {dev['Recall5']:.4f} / {dev['Recall10']:.4f} / {dev['Recall20']:.4f} / {dev['Recall30']:.4f} "
                f"| {time.perf_counter() - start:.0f} |",
                flush=True,
            )
    if len(cv20) > 1:
        sd = statistics.stdev
        print(
            f"mean ± sd over {len(cv20)}: train CV R@20 {statistics.mean(cv20):.4f} ± {sd(cv20):.4f}, "
            f"R@30 {statistics.mean(cv30):.4f} ± {sd(cv30):.4f}; dev R@20 {statistics.mean(dev20):.4f} ± "
            f"{sd(dev20):.4f} ({min(dev20):.4f}-{max(dev20):.4f}), R@30 {statistics.mean(dev30):.4f} ± "
            f"{sd(dev30):.4f} ({min(dev30):.4f}-{max(dev30):.4f})"
        )


if __name__ == "__main__":
    main()

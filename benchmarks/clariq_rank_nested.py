"""A dev-like estimate of the ClariQ question ranker from the train labels alone (nested), optionally paired.

Dev is ranked by a model trained on train, through ``QuestionRanker.rank``, with the dev requests as unlabelled
members of the request pool. Train CV (the out-of-fold rows of one training) is not quite that situation, so this
script rebuilds it from train: the 187 train topics fall into ``--outer`` fifths (seed ``--outer-seed``); for each
fifth the whole recipe (its own inner folds, fine-tunes and LambdaMARTs) is trained on the other topics, whose
labels alone are read (``ClariQ.restricted_to``), and the held-out topics are ranked exactly as dev is. Printed per
training and fifth: the inner train CV and the held-out Recall@20 / @30; then the estimate over all 187 topics
(Recall@5/10/20/30, bootstrap 95% intervals) — nearly four times dev's topics, none of them used to choose
anything. With ``--variant`` (RankerConfig overrides as JSON) the variant is trained the same way and paired with the
baseline per topic (each topic's difference averaged over the seeds, 10,000 bootstrap resamples).

Cost on a 2-core CPU: 5 trainings per configuration and seed, ~40 s each once their fine-tuned encoders are cached;
the first run fine-tunes 30 MiniLMs (~25 minutes).

    python benchmarks/clariq_rank_nested.py --lambdamart-seeds 13,18
    python benchmarks/clariq_rank_nested.py --variant '{"shortlist": 150}' --lambdamart-seeds 13,18
"""

from __future__ import annotations

import argparse
import os
import time

from clariq_rank_compare import CUTOFFS, averaged, overrides, seeded_configs
from clariq_rank_seeds import score_ranked, seed_arguments


def nested_held_out(data, config, outer: int = 5, outer_seed: int = 7, report=None):
    """The official scorer's Evaluation of every train topic, each ranked by the recipe ``config`` trained on the
    train topics outside its outer fold; ``report(fold, ranker, held_out_evaluation)`` after each fold."""
    from clarion.clariq.ranker import QuestionRanker
    from clarion.clariq.ranker_training import assign_folds, fit_ranker
    from clarion.evaluate.result import Evaluation

    labels = data.labels("train")
    fold = assign_folds(list(labels.questions), outer, outer_seed)
    per_query: dict[str, dict[str, float]] = {m: {} for m in CUTOFFS}
    for k in range(outer):
        held = sorted(t for t in labels.questions if fold[t] == k)
        known = data.restricted_to("train", [t for t in labels.questions if fold[t] != k])
        ranker = fit_ranker(QuestionRanker, known, ("train",), config)
        evaluation = score_ranked(ranker, {t: labels.requests[t] for t in held}, labels.questions)
        for metric in CUTOFFS:
            per_query[metric].update(evaluation.per_query[metric])
        if report:
            report(k, ranker, evaluation)
    return Evaluation({m: sum(v.values()) / len(v) for m, v in per_query.items()}, per_query)


def summary(named, results, paired: bool) -> None:
    """The nested estimates per config with their intervals, and the paired difference of the variant."""
    from clarion.evaluate.result import paired_difference

    print("\n| config | cut-off | nested estimate | 95% interval |")
    print("|---|---|---|---|")
    for name in named:
        mean = averaged(results[name])
        for metric in CUTOFFS:
            interval = mean.bootstrap(metric)
            print(f"| {name} | {metric} | {mean[metric]:.4f} | {interval.low:.4f} to {interval.high:.4f} |")
    if paired:
        base, var = averaged(results["baseline"]), averaged(results["variant"])
        print("\n| cut-off | baseline | variant | difference, paired per topic (95% interval) |")
        print("|---|---|---|---|")
        for metric in CUTOFFS:
            diff = paired_difference(base, var, metric)
            print(
                f"| {metric} | {base[metric]:.4f} | {var[metric]:.4f} "
                f"| {diff.value:+.4f} ({diff.low:+.4f} to {diff.high:+.4f}) |"
            )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--variant", type=overrides, default=None, help="RankerConfig overrides to pair (JSON)")
    parser.add_argument("--baseline", type=overrides, default={}, help="overrides of the baseline (default: {})")
    seed_arguments(parser)
    parser.add_argument("--outer", type=int, default=5, help="outer folds over the train topics")
    parser.add_argument("--outer-seed", type=int, default=7, help="seed of the outer fold assignment")
    args = parser.parse_args()
    if args.outer < 2:
        parser.error(f"--outer must be at least 2, got {args.outer}")
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    import torch

    torch.set_num_threads(args.threads)
    from clarion.data.clariq import ClariQ
    from clarion.store import cpu_model

    named = {"baseline": args.baseline, **({"variant": args.variant} if args.variant is not None else {})}
    configs = seeded_configs(parser, named, args.lambdamart_seeds, args.finetune_seeds)

    data = ClariQ.load()
    print(
        f"machine: {cpu_model()}, {os.cpu_count()} cores; train topics in {args.outer} outer folds "
        f"(seed {args.outer_seed}), each ranked as dev is by the recipe trained on the others"
    )
    print(
        "| config | LightGBM seed | fine-tune seed | outer fold | inner train CV R@20 / R@30 "
        "| held-out R@20 / R@30 | s |"
    )
    print("|---|---|---|---|---|---|---|")
    results: dict[str, list] = {name: [] for name in named}
    for (name, lm_seed, ft_seed), config in configs.items():
        start = time.perf_counter()

        def report(k, ranker, held, name=name, lm_seed=lm_seed, ft_seed=ft_seed, start=start):
            cv = ranker.cv_metrics
            print(
                f"| {name} | {lm_seed} | {ft_seed} | {k} | {cv['cv_Recall20']:.4f} / {cv['cv_Recall30']:.4f} "
                f"| {held['Recall20']:.4f} / {held['Recall30']:.4f} | {time.perf_counter() - start:.0f} |",
                flush=True,
            )

        evaluation = nested_held_out(data, config, args.outer, args.outer_seed, report)
        results[name].append(evaluation)
        print(
            f"| {name} | {lm_seed} | {ft_seed} | all {len(evaluation.per_query['Recall30'])} topics | "
            f"| **{evaluation['Recall20']:.4f} / {evaluation['Recall30']:.4f}** | |",
            flush=True,
        )

    summary(named, results, args.variant is not None)


if __name__ == "__main__":
    main()

"""Compare two ClariQ ranker configurations, paired per topic: train CV and dev, models trained on train only.

Trains the baseline (the default configuration unless ``--baseline``) and the variant (``--variant``: RankerConfig
overrides as a JSON object) once per (LightGBM seed, MiniLM fine-tune seed) pair, prints each training's out-of-fold
train CV and dev recalls, then per cut-off the mean per-topic difference variant − baseline with its paired bootstrap
95% interval (each topic's difference averaged over the trainings first; 10,000 resamples of the topics) on train CV
(187 topics) and on dev (50 topics), and the verdict of the project's bar for a change: the mean train CV Recall@30
at least ``--bar`` higher and Recall@20 no lower. Dev is printed beside train CV and is not part of the verdict.
Fine-tuned encoders are cached by content, so a configuration that does not touch the fine-tune costs ~40 s per
training on a 2-core CPU; a new fine-tune seed or setting costs 6 MiniLM fine-tunes (~6 minutes).

    python benchmarks/clariq_rank_compare.py --variant '{"shortlist": 150}' --lambdamart-seeds 13,18,23,28,33
    python benchmarks/clariq_rank_compare.py --variant '{"finetune_lr": 1e-4}' --finetune-seeds 13,14
"""

from __future__ import annotations

import argparse
import json
import os
import statistics

from clariq_rank_seeds import seed_arguments, train_and_score_dev

CUTOFFS = ("Recall5", "Recall10", "Recall20", "Recall30")


def overrides(text: str) -> dict:
    try:
        value = json.loads(text)
    except json.JSONDecodeError as err:
        raise argparse.ArgumentTypeError(f"not JSON ({err.msg} at column {err.colno}): {text!r}") from None
    if not isinstance(value, dict):
        raise argparse.ArgumentTypeError(f"expected a JSON object of RankerConfig fields, got {text!r}")
    return value


def averaged(evaluations):
    """One Evaluation whose per-topic values are the mean over ``evaluations`` (the same topics in each)."""
    from clarion.evaluate.result import Evaluation

    per_query = {
        m: {t: statistics.mean(e.per_query[m][t] for e in evaluations) for t in evaluations[0].per_query[m]}
        for m in CUTOFFS
    }
    return Evaluation({m: statistics.mean(v.values()) for m, v in per_query.items()}, per_query)


def seeded_configs(parser, named: dict[str, dict], lambdamart_seeds, finetune_seeds) -> dict:
    """``(name, LightGBM seed, fine-tune seed) -> RankerConfig`` for each named set of overrides; a bad field is a
    usage error of ``parser`` naming the option."""
    from clarion.clariq.ranker_config import RankerConfig
    from clarion.errors import InputError

    configs = {}
    for name, over in named.items():
        for lm_seed in lambdamart_seeds:
            for ft_seed in finetune_seeds:
                fields = {"lambdamart_seed": lm_seed, "finetune_seed": ft_seed, **over}
                try:
                    configs[name, lm_seed, ft_seed] = RankerConfig(**fields)
                except (TypeError, InputError) as err:
                    parser.error(f"--{name}: {err}")
    return configs


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--variant", type=overrides, required=True, help="RankerConfig overrides (JSON object)")
    parser.add_argument("--baseline", type=overrides, default={}, help="overrides of the baseline (default: {})")
    seed_arguments(parser)
    parser.add_argument("--bar", type=float, default=0.003, help="train CV Recall@30 gain the variant must reach")
    args = parser.parse_args()
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    import torch

    torch.set_num_threads(args.threads)
    from clarion.data.clariq import ClariQ
    from clarion.evaluate.result import paired_difference
    from clarion.store import cpu_model

    named = {"baseline": args.baseline, "variant": args.variant}
    configs = seeded_configs(parser, named, args.lambdamart_seeds, args.finetune_seeds)

    data = ClariQ.load()
    print(f"machine: {cpu_model()}, {os.cpu_count()} cores; models trained on train, dev scored (50 topics)")
    print(f"baseline {json.dumps(args.baseline)}, variant {json.dumps(args.variant)}")
    print("| config | LightGBM seed | fine-tune seed | train CV R@20 / R@30 | dev R@20 / R@30 |")
    print("|---|---|---|---|---|")
    results: dict[str, dict[str, list]] = {"baseline": {"cv": [], "dev": []}, "variant": {"cv": [], "dev": []}}
    for (name, lm_seed, ft_seed), config in configs.items():
        ranker, dev = train_and_score_dev(data, config)
        cv = ranker.cv_evaluation
        results[name]["cv"].append(cv)
        results[name]["dev"].append(dev)
        print(
            f"| {name} | {lm_seed} | {ft_seed} | {cv['Recall20']:.4f} / {cv['Recall30']:.4f} "
            f"| {dev['Recall20']:.4f} / {dev['Recall30']:.4f} |",
            flush=True,
        )

    print("\n| split | cut-off | baseline | variant | difference (95% interval) |")
    print("|---|---|---|---|---|")
    gains = {}
    for part in ("cv", "dev"):
        base, var = averaged(results["baseline"][part]), averaged(results["variant"][part])
        for metric in CUTOFFS:
            diff = paired_difference(base, var, metric)
            gains[part, metric] = diff.value
            print(
                f"| {'train CV' if part == 'cv' else 'dev'} | {metric} | {base[metric]:.4f} | {var[metric]:.4f} "
                f"| {diff.value:+.4f} ({diff.low:+.4f} to {diff.high:+.4f}) |"
            )
    cleared = gains["cv", "Recall30"] >= args.bar and gains["cv", "Recall20"] >= 0
    print(
        f"\nbar (train CV Recall@30 +{args.bar:.4f}, Recall@20 no lower): "
        f"{'cleared' if cleared else 'not cleared'} (Recall@30 {gains['cv', 'Recall30']:+.4f}, "
        f"Recall@20 {gains['cv', 'Recall20']:+.4f})"
    )


if __name__ == "__main__":
    main()

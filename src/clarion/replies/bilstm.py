"""The Yandex Algorithm 2018 (ML track) winner's reply ranker, as the seed describes it.

Word vectors (here the packaged all-MiniLM-L6-v2's token embedding table, frozen, in place of fastText, which is
not available offline) -> a BiLSTM -> a dense layer; the token vectors are averaged for the context and for the
reply (one shared encoder), and the Euclidean distance between the two averages is the score. It is trained by
MSE towards ``value x confidence`` with value 0.001 / 1 / 2 for bad / neutral / good (``weighted=False``: towards
the value alone). Weights are saved as safetensors (no pickle).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar

import numpy as np

from clarion.errors import ModelError
from clarion.replies.methods import Method, targets

VALUE = np.array([0.001, 1.0, 2.0])
"""Target value of relevance 0 / 1 / 2 (bad / neutral / good)."""
CONTEXT_TOKENS, REPLY_TOKENS = 64, 32


def _tokenizer_and_table():
    from clarion.retrieve.dense import load_encoder

    transformer = load_encoder(None)[0]
    table = transformer.auto_model.embeddings.word_embeddings.weight.detach().clone()
    return transformer.tokenizer, table


def _ids(tokenizer, texts: list[str], length: int, keep_end: bool) -> np.ndarray:
    """(n, length) token ids, 0-padded; a long context keeps its end (the latest words)."""
    out = np.zeros((len(texts), length), dtype=np.int64)
    for i, ids in enumerate(tokenizer(texts, add_special_tokens=False)["input_ids"]):
        ids = (ids[-length:] if keep_end else ids[:length]) or [tokenizer.unk_token_id]
        out[i, : len(ids)] = ids
    return out


def _network(table, hidden: int):
    import torch
    from torch import nn

    class Encoder(nn.Module):
        def __init__(self):
            super().__init__()
            self.words = nn.Embedding.from_pretrained(table, freeze=True, padding_idx=0)
            self.lstm = nn.LSTM(table.shape[1], hidden, batch_first=True, bidirectional=True)
            self.dense = nn.Linear(2 * hidden, 2 * hidden)

        def forward(self, ids):
            mask = (ids != 0).unsqueeze(-1).float()
            states, _ = self.lstm(self.words(ids))
            tokens = torch.tanh(self.dense(states)) * mask
            return tokens.sum(dim=1) / mask.sum(dim=1).clamp(min=1.0)

    return Encoder()


@dataclass
class BiLstmMethod(Method):
    name: ClassVar[str] = "bilstm"
    uses_embeddings: ClassVar[bool] = False
    trained: ClassVar[bool] = True
    hidden: int = 64
    epochs: int = 4
    batch: int = 64
    lr: float = 2e-3
    seed: int = 13
    net: Any = field(default=None, repr=False)
    tokenizer: Any = field(default=None, repr=False)

    def _inputs(self, groups):
        pairs = [(" | ".join(g.context), r) for g in groups for r in g.replies]
        context = _ids(self.tokenizer, [c for c, _ in pairs], CONTEXT_TOKENS, keep_end=True)
        reply = _ids(self.tokenizer, [r for _, r in pairs], REPLY_TOKENS, keep_end=False)
        return context, reply

    def _build(self):
        import torch

        torch.manual_seed(self.seed)
        self.tokenizer, table = _tokenizer_and_table()
        self.net = _network(table, self.hidden)

    def fit(self, groups, embedded=None, progress=None):
        import torch

        self._build()
        context, reply = map(torch.from_numpy, self._inputs(groups))
        rel, conf = targets(groups, self.weighted)
        target = torch.tensor(VALUE[rel.astype(int)] * conf, dtype=torch.float32)
        optimiser = torch.optim.Adam([p for p in self.net.parameters() if p.requires_grad], lr=self.lr)
        generator = torch.Generator().manual_seed(self.seed)
        steps = (len(target) + self.batch - 1) // self.batch
        tick = progress("bilstm epochs", self.epochs * steps) if progress else (lambda n: None)
        self.net.train()
        for _ in range(self.epochs):
            for idx in torch.randperm(len(target), generator=generator).split(self.batch):
                distance = (self.net(context[idx]) - self.net(reply[idx])).norm(dim=1)
                loss = torch.nn.functional.mse_loss(distance, target[idx])
                optimiser.zero_grad()
                loss.backward()
                optimiser.step()
                tick(1)
        self.net.eval()
        return self

    def scores(self, groups, embedded=None):
        import torch

        if self.net is None:
            raise ModelError("the bilstm reply ranker is not trained")
        context, reply = map(torch.from_numpy, self._inputs(groups))
        with torch.inference_mode():
            return (self.net(context) - self.net(reply)).norm(dim=1).numpy().astype(np.float64)

    def save(self, directory):
        from safetensors.torch import save_file

        super().save(directory)
        weights = {k: v.contiguous() for k, v in self.net.state_dict().items() if not k.startswith("words.")}
        save_file(weights, str(directory / "bilstm.safetensors"), metadata={"hidden": str(self.hidden)})

    @classmethod
    def load(cls, directory):
        from safetensors import safe_open
        from safetensors.torch import load_file

        method = super().load(directory)
        path = directory / "bilstm.safetensors"
        try:
            with safe_open(str(path), framework="pt") as handle:
                method.hidden = int(handle.metadata()["hidden"])
            weights = load_file(str(path))
        except (OSError, KeyError, ValueError, RuntimeError) as err:
            raise ModelError(f"{path}: cannot read the bilstm weights ({err}); retrain the model") from None
        method._build()
        missing = method.net.load_state_dict(weights, strict=False)
        if missing.unexpected_keys or [k for k in missing.missing_keys if not k.startswith("words.")]:
            raise ModelError(f"{path}: the bilstm weights do not fit the network; retrain the model")
        method.net.eval()
        return method

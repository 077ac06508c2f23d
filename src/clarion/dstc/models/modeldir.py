"""A trained :class:`~clarion.dstc.models.pipeline.DstcModel` on disk, without pickle.

``<dir>/state.json`` (vocabularies, configs, threshold, neighbour responses), ``<dir>/arrays.npz`` (weights and
embeddings, loaded with ``allow_pickle=False``), ``<dir>/lm.safetensors`` (the fine-tuned SmolLM2 tensors, ``lm``
generator only) and ``<dir>/meta.json`` (written last by
:func:`clarion.store.write_meta`: clarion version, config, data fingerprint, metrics, environment).
"""

from __future__ import annotations

import json
import zipfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np

from clarion.classifier import tfidf_from_state, tfidf_state
from clarion.data.io import atomic_writer, read_json
from clarion.detect.knowledge import Detector
from clarion.dstc.models.pipeline import DstcModel, PipelineConfig
from clarion.errors import ClarionError, InputError, ModelError
from clarion.rerank.snippets import Selector
from clarion.respond.consensus import NeighbourBank
from clarion.respond.follow_up import Closings
from clarion.respond.lm import WEIGHTS
from clarion.store import is_complete, read_meta, write_meta, writing

STATE, ARRAYS = "state.json", "arrays.npz"
FORMAT_VERSION = 3
"""The detector's and the selector's classifiers saved by :mod:`clarion.classifier` (a header each, every weight in
``arrays.npz``), and the closing questions learnt from the training responses (the bank's ``closings``,
:class:`~clarion.respond.follow_up.Closings`). A directory of another format (an older clarion's) is refused: retrain
it (:func:`check_format`)."""


def check_format(directory: Path, state: dict) -> None:
    """A :class:`ModelError` unless ``state`` (``directory``'s state.json) is of :data:`FORMAT_VERSION`."""
    version = state.get("format_version") if isinstance(state, dict) else None
    if version != FORMAT_VERSION:
        raise ModelError(
            f"{directory}: DSTC model format {version}, expected {FORMAT_VERSION} (saved by another clarion); "
            "delete it and retrain it (clarion dstc train)"
        )


def stale_format(directory: str | Path) -> bool:
    """Whether ``directory`` holds the readable state of a DSTC model of another format than :data:`FORMAT_VERSION`
    (one an older clarion saved, which :func:`load_model` refuses)."""
    try:
        state = read_json(Path(directory) / STATE)
    except (ClarionError, OSError):
        return False
    return not isinstance(state, dict) or state.get("format_version") != FORMAT_VERSION


def save_model(
    model: DstcModel, directory: str | Path, data_fingerprint: str, metrics: Mapping[str, Any] | None = None
) -> Path:
    """Write ``model`` to ``directory`` (meta.json last, so a half-written model is never complete)."""
    arrays: dict[str, np.ndarray] = {
        "bank_query": model.bank.query_emb,
        "bank_knowledge": model.bank.knowledge_emb,
    }
    if model.bank.body_emb is not None:
        arrays["bank_body"] = model.bank.body_emb
    if model.faq_negatives is not None:
        arrays["faq_negatives"] = model.faq_negatives
    if model.faq_negatives_stripped is not None:
        arrays["faq_negatives_stripped"] = model.faq_negatives_stripped
    state = {
        "format_version": FORMAT_VERSION,
        "config": model.config.to_json(),
        "detector": model.detector.state(arrays),
        "selector": model.selector.state(arrays),
        "vectorizer": tfidf_state(model.vectorizer, "select_tfidf_", arrays),
        "bank": {
            "responses": model.bank.responses,
            "names": model.bank.names,
            "keys": [sorted(keys, key=str) for keys in model.bank.keys],
            "entity_names": [[*entity, name] for entity, name in sorted(model.bank.entity_names.items(), key=str)],
            "closings": model.bank.closings.to_json(),
        },
    }
    with writing(directory) as directory:
        with atomic_writer(directory / STATE) as handle:
            json.dump(state, handle, ensure_ascii=False)
        with atomic_writer(directory / ARRAYS, "wb") as handle:
            np.savez(handle, **arrays)
        (directory / WEIGHTS).unlink(missing_ok=True)
        if model.lm is not None:
            model.lm.save(directory)
        write_meta(directory, model.config.to_json(), data_fingerprint, metrics)
    return directory


def load_model(directory: str | Path) -> DstcModel:
    """Read a model written by :func:`save_model`; anything missing or foreign raises :class:`ModelError`."""
    directory = Path(directory)
    if not directory.exists():
        raise ModelError(f"{directory}: no such model directory; train one with `clarion dstc train`")
    if not is_complete(directory):
        raise ModelError(f"{directory}: not a trained DSTC model (no meta.json); run `clarion dstc train`")
    read_meta(directory)
    if not (directory / STATE).is_file():
        kind = "a ClariQ model, not a DSTC one" if (directory / "ranker").is_dir() else f"no {STATE}"
        raise ModelError(f"{directory}: not a trained DSTC model ({kind}); run `clarion dstc train`")
    try:
        state = read_json(directory / STATE)
        check_format(directory, state)
        with np.load(directory / ARRAYS, allow_pickle=False) as npz:
            arrays = {k: npz[k] for k in npz.files}
        bank = NeighbourBank(
            list(state["bank"]["responses"]),
            list(state["bank"]["names"]),
            arrays["bank_query"],
            arrays["bank_knowledge"],
            [frozenset(tuple(k) for k in keys) for keys in state["bank"].get("keys", [])],
            Closings.from_json(state["bank"]["closings"]),
            arrays.get("bank_body"),  # absent in models trained without the relevance gate
            {(d, e): name for d, e, name in state["bank"].get("entity_names", [])},  # absent in older models
        )
        return DstcModel(
            PipelineConfig.from_json(state["config"]),
            Detector.from_state(state["detector"], arrays),
            Selector.from_state(state["selector"], arrays),
            tfidf_from_state(state["vectorizer"], "select_tfidf_", arrays),
            bank,
            lm_dir=directory if (directory / WEIGHTS).is_file() else None,  # loaded on first use
            faq_negatives=arrays.get("faq_negatives"),  # absent in models trained before the FAQ rule
            faq_negatives_stripped=arrays.get("faq_negatives_stripped"),  # absent before names were stripped
        )
    except ModelError:
        raise
    except (OSError, KeyError, TypeError, ValueError, EOFError, zipfile.BadZipFile, InputError) as err:
        raise ModelError(
            f"{directory}: incomplete or incompatible DSTC model ({err}); retrain it (clarion dstc train)"
        ) from None

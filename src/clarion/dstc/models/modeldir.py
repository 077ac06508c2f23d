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

from clarion.data.io import atomic_writer, read_json
from clarion.detect.knowledge import Detector
from clarion.dstc.models.persist import tfidf_from_state, tfidf_state
from clarion.dstc.models.pipeline import DstcModel, PipelineConfig
from clarion.errors import InputError, ModelError
from clarion.rerank.snippets import Selector
from clarion.respond.consensus import NeighbourBank
from clarion.respond.follow_up import Closings
from clarion.respond.lm import WEIGHTS
from clarion.store import is_complete, read_meta, write_meta, writing

STATE, ARRAYS = "state.json", "arrays.npz"
FORMAT_VERSION = 3
"""3: the detector's and the selector's classifiers saved by :mod:`clarion.classifier` (a header each, every weight
in ``arrays.npz``), and the closing questions learnt from the training responses (the bank's ``closings``,
:class:`~clarion.respond.follow_up.Closings`); 2 kept the selector's LightGBM text in ``state.json`` and had no
closings (they are learnt from its saved responses when it is read); 1 had one configuration field per rule. Older
formats are upgraded when read (:func:`upgraded`)."""


def upgraded(state: dict, arrays: dict[str, np.ndarray]) -> dict:
    """``state`` in the current format (``arrays`` updated with it): format 1's configuration gets its rules listed by
    name and loses the settings of removed rules (the detector's FAQ glossary); format 2's classifiers get headers and
    its bank the closing questions of its responses."""
    version = state.get("format_version")
    if version == FORMAT_VERSION:
        return state
    if version not in (1, 2):
        raise ModelError(f"model format {version}, expected {FORMAT_VERSION} (or 1-2, upgraded when read)")
    if version == 1:
        from clarion.dstc.models.config import upgrade_v1

        state = {**state, "config": {**upgrade_v1(state["config"]), "format": 2}}
        detector = dict(state["detector"])
        detector["config"] = {k: v for k, v in detector["config"].items() if k != "faq_glossary"}
        state = {**state, "detector": detector}
    from clarion.detect import knowledge
    from clarion.rerank import snippets

    detector, selector = knowledge.upgraded_state(state["detector"]), snippets.upgraded_state(state["selector"], arrays)
    bank = state["bank"]
    closings = Closings.learn(bank["responses"], [[tuple(k) for k in keys] for keys in bank.get("keys", [])])
    bank = {**bank, "closings": closings.to_json()}
    return {**state, "format_version": FORMAT_VERSION, "detector": detector, "selector": selector, "bank": bank}


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
        with np.load(directory / ARRAYS, allow_pickle=False) as npz:
            arrays = {k: npz[k] for k in npz.files}
        try:
            state = upgraded(state, arrays)
        except ModelError as err:
            raise ModelError(f"{directory}: {err}; retrain it (clarion dstc train)") from None
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

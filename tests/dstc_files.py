"""DSTC data fixtures shared by the tests of every package (a pytest plugin of tests/conftest.py): the real validation
directories (loaded once), tiny hand-made data directories, the synthetic dataset of ``dstc_synthetic`` and a tiny
model trained on it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from clarion.data.dstc import load_dataset

KNOWLEDGE9 = {
    "hotel": {
        "1": {
            "name": "Alpha Hotel",
            "docs": {
                "0": {"title": "Is there parking?", "body": "Yes, parking is free."},
                "1": {"title": "Are pets allowed?", "body": "No pets, sorry."},
            },
        }
    },
    "taxi": {"*": {"name": None, "docs": {"0": {"title": "How do I pay?", "body": "By card or cash."}}}},
}

KNOWLEDGE11 = {
    "hotel": {
        "1": {
            "name": "Alpha Hotel",
            "reviews": {
                "0": {"traveler_type": "Couples", "sentences": {"0": "Lovely quiet rooms.", "1": "Noisy bar."}},
            },
            "faqs": {"0": {"question": "Is there parking?", "answer": "Yes, free parking."}},
        }
    }
}

LOGS = [
    [{"speaker": "U", "text": "I need a hotel in the north."}],
    [
        {"speaker": "U", "text": "I need a hotel in the north."},
        {"speaker": "S", "text": "Alpha Hotel is in the north."},
        {"speaker": "U", "text": "Do they have parking?"},
    ],
]

LABELS9 = [
    {"target": False},
    {
        "target": True,
        "knowledge": [{"domain": "hotel", "entity_id": 1, "doc_id": 0}],
        "response": "Yes, parking is free.",
    },
]

LABELS11 = [
    {"target": False},
    {
        "target": True,
        "knowledge": [
            {"domain": "hotel", "entity_id": 1, "doc_type": "faq", "doc_id": 0},
            {"domain": "hotel", "entity_id": 1, "doc_type": "review", "doc_id": 0, "sent_id": 0},
        ],
        "response": "Yes, free parking, and guests liked the quiet rooms.",
    },
]

TINY = {"dstc9": (KNOWLEDGE9, LABELS9), "dstc11": (KNOWLEDGE11, LABELS11)}


def write_dir(root: Path, fmt: str, *, logs=None, labels=None, knowledge=None, raw: dict | None = None) -> Path:
    """A data directory under ``root`` with the tiny ``fmt`` files, any of them replaced; ``raw`` maps a file
    name to literal text (``None`` to leave the file out)."""
    default_knowledge, default_labels = TINY[fmt]
    root.mkdir(parents=True, exist_ok=True)
    files = {
        "logs.json": LOGS if logs is None else logs,
        "labels.json": default_labels if labels is None else labels,
        "knowledge.json": default_knowledge if knowledge is None else knowledge,
    }
    for name, obj in files.items():
        (root / name).write_text(json.dumps(obj))
    for name, text in (raw or {}).items():
        if text is None:
            (root / name).unlink()
        else:
            (root / name).write_text(text)
    return root


@pytest.fixture(params=["dstc9", "dstc11"])
def tiny_format(request) -> str:
    return request.param


@pytest.fixture(scope="session")
def dstc9_dir(data_root, data_missing) -> Path:
    path = data_root / "dstc10_track2_val"
    if not path.is_dir():
        data_missing("dstc10_track2_val not found")
    return path


@pytest.fixture(scope="session")
def dstc11_dir(data_root, data_missing) -> Path:
    path = data_root / "dstc11_track5"
    if not path.is_dir():
        data_missing("dstc11_track5 not found")
    return path


@pytest.fixture(scope="session")
def dstc9_data(dstc9_dir):
    return load_dataset(dstc9_dir)


@pytest.fixture(scope="session")
def dstc11_data(dstc11_dir):
    return load_dataset(dstc11_dir)


class Tiny:
    """The tiny hand-made files and the directory builder, for tests (conftest modules are not importable)."""

    KNOWLEDGE9 = KNOWLEDGE9
    KNOWLEDGE11 = KNOWLEDGE11
    LOGS = LOGS
    LABELS9 = LABELS9
    LABELS11 = LABELS11
    write_dir = staticmethod(write_dir)


@pytest.fixture(scope="session")
def tiny() -> type[Tiny]:
    return Tiny


@pytest.fixture(scope="session")
def synthetic(tmp_path_factory):
    """The synthetic DSTC11 dataset of ``dstc_synthetic`` (24 contexts), loaded with labels."""
    from dstc_synthetic import write_synthetic

    return load_dataset(write_synthetic(tmp_path_factory.mktemp("syn")))


@pytest.fixture(scope="session")
def tiny_model(synthetic):
    """A model trained on ``synthetic`` with the tiny settings (lexical features only; seconds)."""
    from clarion.dstc.models.pipeline import PipelineConfig
    from clarion.dstc.models.train import train

    model, info = train(synthetic, PipelineConfig.tiny())
    assert 0.0 <= info["selection_threshold"] <= 1.0
    return model

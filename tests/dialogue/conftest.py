"""Fixtures for the conversation engine: a small stand-in for the ClariQ clarifier (its need and rank are the
parts the engine calls), a bag-of-words encoder, and an answer-understanding model trained with it on ClariQ
train rows (fast: no transformer)."""

from __future__ import annotations

import pytest
from dialogue_fakes import BANK, FakeClarifier, bow_encode


@pytest.fixture(scope="session")
def bow_rewriter(data_root):
    from clarion.data.clariq import ClariQ
    from clarion.dialogue.training import RewriterConfig, train_rewriter

    return train_rewriter(ClariQ.load(data_root), ("train",), RewriterConfig(rows=1200, trees=60), encode=bow_encode)


@pytest.fixture
def make_assistant(bow_rewriter):
    from clarion.dialogue import Assistant
    from clarion.dialogue.choose import QuestionChooser

    def make(p_clear=0.1, cost=0.5, answerer=None):
        clarifier = FakeClarifier(p_clear)
        chooser = QuestionChooser(list(BANK), bow_encode(list(BANK.values())))
        return Assistant(clarifier, bow_rewriter, chooser, answerer, cost=cost)

    return make


DOCUMENTS = [
    {"id": "d1", "title": "Roof costs", "text": "What a new roof costs per square foot."},
    {"id": "d2", "title": "Hip roof pictures", "text": "Pictures of hip roof designs, one per page."},
    {"id": "d3", "title": "Throat lumps", "text": "Remedies for a lump in the throat."},
]


@pytest.fixture
def documents_file(tmp_path):
    import json

    path = tmp_path / "docs.jsonl"
    path.write_text("".join(json.dumps(d) + "\n" for d in DOCUMENTS), encoding="utf-8")
    return path


@pytest.fixture
def bow_dense(monkeypatch):
    """The dense encoder replaced by :func:`bow_encode` (the collection's code paths, no transformer)."""
    from clarion.retrieve import dense

    monkeypatch.setattr(
        dense, "encode_cached", lambda texts, name="pool", show_progress=False, encoder=None: bow_encode(texts)
    )
    monkeypatch.setattr(dense, "encode_queries", lambda texts, **_: bow_encode(texts))

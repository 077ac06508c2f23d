"""Fixtures for the conversation engine: a small stand-in for the ClariQ clarifier (its need and rank are the
parts the engine calls), a bag-of-words encoder, and an answer-understanding model trained with it on ClariQ
train rows (fast: no transformer)."""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass

import numpy as np
import pytest

from clarion.types import Candidate

BANK = {
    "Q1": "are you interested in more than one hip roof design",
    "Q2": "would you like to see pictures of hip roofs",
    "Q3": "do you want to know how to build a hip roof",
    "Q4": "are you interested in more than a single hip roof design",  # a rewording of Q1
    "Q5": "do you want to know the cost of a hip roof",
}


def bow_encode(texts):
    """Hashed bag-of-words vectors, L2-normalised (a deterministic stand-in for a sentence encoder)."""
    out = np.zeros((len(texts), 512), dtype=np.float32)
    for i, text in enumerate(texts):
        for word in re.findall(r"[a-z0-9]+", text.lower()):
            out[i, int(hashlib.md5(word.encode()).hexdigest(), 16) % 512] += 1.0
    norms = np.linalg.norm(out, axis=1, keepdims=True)
    return out / np.where(norms == 0, 1, norms)


@dataclass
class _Context:
    bank_ids: list
    bank_texts: list


@dataclass
class _Ranker:
    context: _Context


class FakeClarifier:
    """need() and rank() of :class:`clarion.clariq.clarifier.Clarifier` for a fixed request set."""

    def __init__(self, p_clear=0.1, bank=BANK):
        self.bank = bank
        self.p_clear = p_clear
        self.ranker = _Ranker(_Context(list(bank), list(bank.values())))
        self.calls = 0

    def need(self, request):
        self.calls += 1
        clear = "capital" in request.lower() or self.p_clear >= 0.5
        p1 = 0.9 if clear else self.p_clear
        rest = (1 - p1) / 3
        return (1 if clear else 3), {1: p1, 2: rest, 3: rest, 4: rest}

    def rank(self, request, k=30, fitting=False):
        if "capital" in request.lower():
            return [Candidate("Q00001", "", 1.0)]
        return [Candidate(q, t, 10.0 - i) for i, (q, t) in enumerate(self.bank.items())][:k]


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

"""Stand-ins for the conversation engine's tests: a small clarifier (its need and rank are the parts the engine
calls) and a bag-of-words encoder (no transformer)."""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass

import numpy as np

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

    directory = None
    """No model directory: ``clarion converse --workers`` then lets each worker choose, as the driver did."""

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

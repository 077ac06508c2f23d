"""Service fixtures: one app per test module, with small models loaded once.

``/v1/respond`` runs the real DSTC pipeline, trained on the synthetic DSTC11 data with the tiny settings (seconds).
The ClariQ pipeline takes minutes to train even with tiny settings, so ``/v1/clarify`` and the conversation engine
get :class:`BankClarifier`: the Clarifier API (need, rank, ranked_as, is_new) over five bank questions, scored by
word overlap (the service is under test here; the models have their own tests).
"""

from __future__ import annotations

import re
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from clarion.types import Candidate

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "dstc"))  # the synthetic DSTC data writer

BANK = {
    "Q00001": "",
    "Q1": "are you looking for a specific web site",
    "Q2": "do you want to know the history of hip roofs",
    "Q3": "would you like to see pictures of hip roofs",
    "Q4": "do you want to know how to build a hip roof",
}


@dataclass
class _Context:
    bank_ids: list
    bank_texts: list


@dataclass
class _Ranker:
    context: _Context


def _words(text: str) -> set[str]:
    return set(re.findall(r"[a-z0-9]+", text.lower()))


class BankClarifier:
    """The methods of :class:`clarion.clariq.clarifier.Clarifier` the service and the engine call, over
    :data:`BANK`: a request naming "capital" is clear (need 1), any other is ambiguous (need 3)."""

    def __init__(self):
        self.ranker = _Ranker(_Context(list(BANK), list(BANK.values())))
        self.directory = None

    def need(self, request: str):
        from clarion.clariq.constants import validate_request

        clear = "capital" in validate_request(request).lower()
        p1 = 0.9 if clear else 0.1
        rest = (1 - p1) / 3
        return (1 if clear else 3), {1: p1, 2: rest, 3: rest, 4: rest}

    def rank(self, request: str, k: int = 30, fitting: bool = False):
        from clarion.errors import InputError

        if isinstance(k, bool) or not isinstance(k, int) or not 1 <= k <= len(BANK):
            raise InputError(f"k must be at most {len(BANK)} (the shortlist and 'ask nothing'), got {k}")
        said = _words(request)
        scored = sorted(BANK.items(), key=lambda item: (-len(_words(item[1]) & said), item[0]))
        return [Candidate(q, text, float(len(BANK) - i)) for i, (q, text) in enumerate(scored)][:k]

    def ranked_as(self, request: str):
        return None

    def is_new(self, request: str) -> bool:
        return False


@pytest.fixture(scope="session")
def grounder(tmp_path_factory):
    """The DSTC assistant: the tiny-settings pipeline trained on the synthetic DSTC11 data."""
    from dstc_synthetic import write_synthetic

    from clarion.dstc.assistant import Grounder
    from clarion.dstc.io import load_dataset
    from clarion.dstc.models.pipeline import PipelineConfig
    from clarion.dstc.models.train import train

    synthetic = load_dataset(write_synthetic(tmp_path_factory.mktemp("syn")))
    model, _ = train(synthetic, PipelineConfig.tiny())
    return Grounder(model, synthetic.knowledge)


@pytest.fixture(scope="session")
def needs(grounder):
    from clarion.serve.needs import dstc_needs

    return [
        {"kind": "clariq", "id": "F0001", "level": "3", "text": "Find pictures of hip roofs.", "opener": "hip roof"},
        {"kind": "clariq", "id": "F0002", "level": "2", "text": "How to build a hip roof.", "opener": "hip roof"},
        *dstc_needs(grounder.knowledge)[:2],
    ]

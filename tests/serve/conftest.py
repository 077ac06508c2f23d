"""Service fixtures: one app per test module, with small models loaded once.

``/v1/respond`` runs the real DSTC pipeline, trained on the synthetic DSTC11 data with the tiny settings (seconds);
``/v1/replies/rank`` the zero-shot cosine reply ranker.
The ClariQ pipeline takes minutes to train even with tiny settings, so ``/v1/clarify`` and the conversation engine
get :class:`BankClarifier`: the Clarifier API (need, rank, ranked_as, is_new) over five bank questions, scored by
word overlap (the service is under test here; the models have their own tests).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import pytest

from clarion.types import Candidate

BANK = {
    "Q00001": "",
    "Q1": "are you looking for a specific web site",
    "Q2": "do you want to know the history of hip roofs",
    "Q3": "would you like to see pictures of hip roofs",
    "Q4": "do you want to know how to build a hip roof",
}

SHORTLIST = 40
"""The stand-in ranker's shortlist (it returns at most the bank, but accepts k up to SHORTLIST + 1 as the real one)."""


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
        from clarion.data.clariq_constants import validate_request

        clear = "capital" in validate_request(request).lower()
        p1 = 0.9 if clear else 0.1
        rest = (1 - p1) / 3
        return (1 if clear else 3), {1: p1, 2: rest, 3: rest, 4: rest}

    def rank(self, request: str, k: int = 30, fitting: bool = False):
        from clarion.errors import InputError

        if isinstance(k, bool) or not isinstance(k, int) or not 1 <= k <= SHORTLIST + 1:
            raise InputError(f"k must be at most {SHORTLIST + 1} (the shortlist and 'ask nothing'), got {k}")
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
    from clarion.data.dstc import load_dataset
    from clarion.dstc.assistant import Grounder
    from clarion.dstc.models.pipeline import PipelineConfig
    from clarion.dstc.models.train import train
    from dstc_synthetic import write_synthetic

    synthetic = load_dataset(write_synthetic(tmp_path_factory.mktemp("syn")))
    model, _ = train(synthetic, PipelineConfig.tiny())
    return Grounder(model, synthetic.knowledge)


@pytest.fixture(scope="session")
def saved(grounder, tmp_path_factory):
    """The tiny DSTC model saved to a directory, and the synthetic data directory (its knowledge.json): what
    ``clarion serve --feature respond --dstc-model MODEL --knowledge DATA`` loads in seconds."""
    from clarion.dstc.models.modeldir import save_model
    from dstc_synthetic import write_synthetic

    root = tmp_path_factory.mktemp("saved")
    save_model(grounder.model, root / "model", "fp")
    return root / "model", write_synthetic(root / "data")


@pytest.fixture(scope="session")
def needs(grounder):
    from clarion.serve.needs import dstc_needs

    return [
        {"kind": "clariq", "id": "F0001", "level": "3", "text": "Find pictures of hip roofs.", "opener": "hip roof"},
        {"kind": "clariq", "id": "F0002", "level": "2", "text": "How to build a hip roof.", "opener": "hip roof"},
        *dstc_needs(grounder.knowledge)[:2],
    ]


def bow_encode(texts):
    """Hashed bag-of-words vectors, L2-normalised: a deterministic, instant stand-in for the sentence encoder."""
    import hashlib

    import numpy as np

    out = np.zeros((len(texts), 512), dtype=np.float32)
    for i, text in enumerate(texts):
        for word in _words(text):
            out[i, int(hashlib.md5(word.encode()).hexdigest(), 16) % 512] += 1.0
    norms = np.linalg.norm(out, axis=1, keepdims=True)
    return out / np.where(norms == 0, 1, norms)


@pytest.fixture(scope="session")
def make_assistant(data_root):
    """``make_assistant(answerer=None)``: the real conversation engine over small parts: :class:`BankClarifier`, the
    answer-understanding model trained on ClariQ train rows with :func:`bow_encode`, and ``answerer`` (None: the
    answer is the resolved query)."""
    from clarion.data.clariq import ClariQ
    from clarion.dialogue import Assistant
    from clarion.dialogue.choose import QuestionChooser
    from clarion.dialogue.training import RewriterConfig, train_rewriter

    rewriter = train_rewriter(
        ClariQ.load(data_root), ("train",), RewriterConfig(rows=1200, trees=60), encode=bow_encode
    )
    asked = [q for q, text in BANK.items() if text]
    chooser = QuestionChooser(asked, bow_encode([BANK[q] for q in asked]))
    return lambda answerer=None: Assistant(BankClarifier(), rewriter, chooser, answerer)


@pytest.fixture(scope="session")
def assistant(make_assistant):
    return make_assistant()


@pytest.fixture(scope="session")
def grounded_services(make_assistant, grounder, needs):
    """Services whose conversation engine answers from the synthetic knowledge base (the tiny DSTC pipeline)."""
    from clarion.dialogue.answer import KnowledgeAnswerer
    from clarion.serve.config import Feature
    from clarion.serve.services import Services

    return Services({Feature.converse: make_assistant(KnowledgeAnswerer(grounder))}, needs)


@pytest.fixture(scope="session")
def services(assistant, grounder, needs):
    from clarion.replies import ReplyRanker
    from clarion.replies.methods import Cosine
    from clarion.serve.config import Feature
    from clarion.serve.services import Services

    replies = ReplyRanker(Cosine())  # zero-shot: the packaged MiniLM's cosine of each reply to the context
    models = {Feature.converse: assistant, Feature.clarify: BankClarifier(), Feature.respond: grounder}
    return Services(models | {Feature.replies: replies}, needs)


@pytest.fixture(scope="module")
def make_client(services, tmp_path_factory):
    """``make_client(loaded=None, **config)``: a started TestClient of an app over ``loaded`` (default:
    :func:`services`), closed after the module."""
    from fastapi.testclient import TestClient

    from clarion.serve import ServeConfig, create_app

    opened = []

    def make(loaded=None, **config) -> TestClient:
        config.setdefault("db", tmp_path_factory.mktemp("db") / "eval.sqlite")
        app = create_app(ServeConfig(**config), loaded or services)
        client = TestClient(app, raise_server_exceptions=False)
        opened.append(client.__enter__())
        return client

    yield make
    for client in opened:
        client.__exit__(None, None, None)


@pytest.fixture(scope="module")
def client(make_client):
    return make_client(admin_token="a-token-of-sixteen+")

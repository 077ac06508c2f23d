"""Loading the engine's parts: the ClariQ clarifier, the answer-understanding model trained on the same splits, the
question chooser over the bank's embeddings, and the answerer."""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path

from clarion.errors import InputError
from clarion.store import no_progress


def bank_embeddings(clarifier):
    """The packaged MiniLM's embeddings of the clarifier's bank (cached on disk)."""
    from clarion.retrieve.dense import encode_cached

    bank = clarifier.ranker.context
    return list(bank.bank_ids), encode_cached(list(bank.bank_texts), name="clariq-bank")


def chooser_for(clarifier):
    from clarion.dialogue.choose import QuestionChooser

    return QuestionChooser(*bank_embeddings(clarifier))


def answerer_for(knowledge, documents, progress=None):
    from clarion.dialogue.answer import DocumentAnswerer, KnowledgeAnswerer

    if knowledge is not None and documents is not None:
        raise InputError("give knowledge or documents, not both")
    if documents is not None:
        from clarion.data.io import as_path
        from clarion.retrieve.collection import Collection

        return DocumentAnswerer(Collection.load(as_path(documents, "documents")))
    if knowledge is not None:
        from clarion.dstc.assistant import Grounder

        kwargs = {"progress": progress} if progress is not None else {}
        return KnowledgeAnswerer(Grounder.load(knowledge=knowledge, **kwargs))
    return None


def trained_models(directory: Path):
    """The :class:`~clarion.clariq.train.EngineModels` a ClariQ model directory holds (its ``meta.json``): its
    splits, and whether it is a starter model."""
    from clarion.clariq.train import EngineModels
    from clarion.store import read_meta

    config = read_meta(directory).get("config", {})
    splits = config.get("splits")
    return EngineModels(
        tuple(splits) if isinstance(splits, list) and splits else ("train", "dev"), config.get("starter") is True
    )


def load_parts(knowledge, documents, model_dir, progress, default_splits: Sequence[str] | None = None, starter=True):
    """(clarifier, rewriter, chooser, answerer) for :class:`~clarion.dialogue.engine.Assistant`. Without
    ``model_dir``, the ClariQ models trained on ``default_splits``; when that is None, those of
    :func:`~clarion.clariq.train.engine_models` (train+dev when cached, else train when cached, else the starter
    models when ``starter``, else train), said in one line. The answer-understanding model is trained on the same
    splits, its starter configuration beside a starter ClariQ model."""
    from clarion.clariq.clarifier import Clarifier
    from clarion.clariq.train import EngineModels, engine_models
    from clarion.data.clariq import ClariQ
    from clarion.dialogue.training import RewriterConfig, load_or_train

    answerer = answerer_for(knowledge, documents, progress)  # bad paths fail before any model loads
    data = ClariQ.load()
    if model_dir is None:
        named = default_splits is not None
        models = EngineModels(tuple(default_splits)) if named else engine_models(data, starter=starter)
        clarifier = Clarifier.load(progress=progress, splits=models.splits, starter=models.starter)
    else:
        clarifier = Clarifier.load(model_dir, progress=progress)
        models = trained_models(clarifier.directory)
    config = RewriterConfig.starter() if models.starter else RewriterConfig()
    rewriter = load_or_train(data, models.splits, config, progress=progress or no_progress)
    return clarifier, rewriter, chooser_for(clarifier), answerer


def load_for_splits(splits: Sequence[str], cost: float | None = None, starter: bool = False):
    """The engine trained on ``splits`` (the benchmark's train-only engine; ``starter``: with the starter models),
    models trained when absent."""
    from clarion.clariq.train import default_model_dir, load_ranker
    from clarion.data.clariq import ClariQ
    from clarion.dialogue import policy
    from clarion.dialogue.engine import Assistant

    data = ClariQ.load()
    load_ranker(data, tuple(splits), starter=starter)  # trains the pipeline when absent
    directory = default_model_dir(data, tuple(splits), starter=starter)
    print(f"ClariQ models: {directory}", file=sys.stderr)
    parts = load_parts(None, None, directory, None, splits)
    return Assistant(*parts, cost=policy.DEFAULT_COST if cost is None else cost)

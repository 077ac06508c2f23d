"""A trained question ranker on disk: ``ranker.json`` (configuration, context, "no question" slot, feature lists,
cross-validation metrics), ``lambdamart<i>.txt`` per LambdaMART stage (LightGBM's text format) and the fine-tuned
MiniLM copied into ``encoder/``. Nothing is pickled."""

from __future__ import annotations

import shutil
from dataclasses import asdict
from pathlib import Path
from typing import TYPE_CHECKING

from clarion.clariq.ranker_config import RankerConfig
from clarion.clariq.ranker_context import Context
from clarion.data.io import read_json, write_json
from clarion.errors import InputError, ModelError
from clarion.rerank.competition import COMPETITION_FEATURES
from clarion.rerank.features import FEATURES
from clarion.rerank.lambdamart import LambdaMART
from clarion.retrieve.dense import Encoder, encoder_id, members
from clarion.retrieve.packaged import is_packaged

if TYPE_CHECKING:
    from clarion.clariq.ranker import QuestionRanker

ENCODER_DIR = "encoder"
"""Where a saved ranker keeps its fine-tuned MiniLM."""


def save_ranker(ranker: QuestionRanker, directory: str | Path) -> Path:
    """Write ``ranker`` to ``directory`` (see the module docstring)."""
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    for i, model in enumerate(ranker.models):
        model.save(directory / f"lambdamart{i + 1}.txt")
    context = asdict(ranker.context)
    context["encoder"] = save_encoder(ranker.context.encoder, directory)
    write_json(
        directory / "ranker.json",
        {
            "config": asdict(ranker.config),
            "no_question_at": ranker.no_question_at,
            "models": len(ranker.models),
            "cv_metrics": ranker.cv_metrics,
            "features": list(FEATURES),
            "competition_features": list(COMPETITION_FEATURES),
            "context": context,
        },
    )
    return directory


def save_encoder(encoder: Encoder, directory: Path) -> list[str | None]:
    """The encoder's members as saved: packaged names and ``None`` as they are, a fine-tuned directory copied
    into ``directory`` (``encoder``, ``encoder-2``, ...) and named relative to it."""
    saved: list[str | None] = []
    copies = 0
    for member in members(encoder):
        if is_packaged(member):
            saved.append(member)
            continue
        copies += 1
        name = ENCODER_DIR if copies == 1 else f"{ENCODER_DIR}-{copies}"
        if Path(member).resolve() != (directory / name).resolve():
            shutil.rmtree(directory / name, ignore_errors=True)
            shutil.copytree(member, directory / name)
        saved.append(name)
    return saved


def load_encoder(directory: Path, saved) -> Encoder:
    """The encoder :func:`save_encoder` saved (older models: one directory name or ``None``)."""
    if not isinstance(saved, list):
        saved = [saved]
    loaded = tuple(m if is_packaged(m) else str(directory / m) for m in saved)
    return loaded[0] if len(loaded) == 1 else loaded


def _checked_state(directory: Path) -> dict:
    """``ranker.json``, refused with a :class:`ModelError` when it was written for other features or another
    configuration."""
    path = directory / "ranker.json"
    if not path.is_file():
        raise ModelError(f"{directory}: not a trained question ranker (no ranker.json); train it first")
    state = read_json(path)
    stale = state.get("models", 1) > 1 and state.get("competition_features") != list(COMPETITION_FEATURES)
    if state.get("features") != list(FEATURES) or stale:
        raise ModelError(f"{directory}: trained with other features; retrain it (clarion clariq train)")
    if not isinstance(state.get("config"), dict) or set(state["config"]) != set(asdict(RankerConfig())):
        raise ModelError(f"{directory}: trained with another RankerConfig; retrain it (clarion clariq train)")
    if not isinstance(state.get("context"), dict) or "no_question_at" not in state:
        raise ModelError(f"{path}: not a ranker state written by this version; retrain it (clarion clariq train)")
    return state


def load_ranker(cls: type[QuestionRanker], directory: str | Path) -> QuestionRanker:
    """The ranker :func:`save_ranker` wrote to ``directory``, as a ``cls``."""
    directory = Path(directory)
    state = _checked_state(directory)
    try:
        ctx = state["context"]
        owned = {int(u): q for u, q in ctx["owned"].items()}
        encoder = load_encoder(directory, ctx.get("encoder"))
        context = Context(ctx["bank_ids"], ctx["bank_texts"], ctx["pool_texts"], owned, encoder)
        n_models = int(state["models"])
        ranker_config, position = RankerConfig(**state["config"]), int(state["no_question_at"])
    except (KeyError, TypeError, ValueError, AttributeError, InputError) as err:
        path = directory / "ranker.json"
        raise ModelError(f"{path}: damaged ranker state ({type(err).__name__}: {err}); retrain it") from None
    encoder_id(encoder)  # a clear ModelError if the directory lost its fine-tuned MiniLM
    models = [LambdaMART.load(directory / f"lambdamart{i + 1}.txt") for i in range(n_models)]
    ranker = cls(ranker_config, context, models, position)
    ranker.cv_metrics = state.get("cv_metrics", {})
    return ranker

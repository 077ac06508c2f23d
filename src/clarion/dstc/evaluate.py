"""Score a prediction file against a DSTC data directory with the track's official-compatible scorer.

The format (DSTC9/10 or DSTC11) is detected from ``knowledge.json``; the scorer is looked up in :data:`SCORERS`
(:func:`clarion.evaluate.dstc9.score`, :func:`clarion.evaluate.dstc11.score`). Both files are validated first:
the prediction list must have one entry per ``logs.json`` context and every referenced snippet must exist.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from pathlib import Path
from typing import Any

from clarion.data.dstc import KNOWLEDGE, LABELS, LOGS, parse_labels, read_knowledge, read_logs
from clarion.data.dstc_schema import Format
from clarion.data.io import no_directory, read_json
from clarion.errors import DataError, InputError
from clarion.evaluate import dstc9, dstc11

SCORERS: dict[Format, Callable[..., dict[str, Any]]] = {
    Format.DSTC9: dstc9.score,
    Format.DSTC11: dstc11.score,
}


def load_for_scoring(data_dir: str | Path, pred_path: str | Path) -> tuple[Format, list[dict], list[dict]]:
    """The format, the validated ``labels.json`` objects and the validated prediction objects."""
    data_dir = Path(data_dir)
    if not data_dir.is_dir():
        raise DataError(data_dir, f"data directory {no_directory(data_dir)}")
    knowledge = read_knowledge(data_dir / KNOWLEDGE)
    n = len(read_logs(data_dir / LOGS))
    fmt = knowledge.format
    refs = read_json(data_dir / LABELS)
    parse_labels(refs, fmt, data_dir / LABELS, n_contexts=n, knowledge=knowledge)
    hyps = read_json(pred_path)
    parse_labels(hyps, fmt, pred_path, n_contexts=n, knowledge=knowledge)
    return fmt, refs, hyps


def evaluate_predictions(data_dir: str | Path, pred_path: str | Path, **options: Any) -> dict[str, Any]:
    """Official-compatible scores of ``pred_path`` on ``data_dir`` (``logs.json``, ``knowledge.json``,
    ``labels.json``), in the track's JSON shape (``{"detection": ..., "selection": ..., "generation": ...}``).

    ``options`` go to the scorer (``meteor=False`` skips METEOR — DSTC11: the Java jar; ``wordnet=`` for DSTC9).
    """
    fmt, refs, hyps = load_for_scoring(data_dir, pred_path)
    scorer = SCORERS[fmt]
    accepted = inspect.signature(scorer).parameters
    for name in options:
        if name not in accepted or accepted[name].kind is not inspect.Parameter.KEYWORD_ONLY:
            known = ", ".join(n for n, p in accepted.items() if p.kind is inspect.Parameter.KEYWORD_ONLY)
            raise InputError(f"option {name!r} does not apply to {fmt.value} data (its options: {known})")
    return scorer(refs, hyps, **options)

"""Standard rank fusions and score normalisations, through ranx (not re-implemented).

Bassani & Romelli, "ranx.fuse: A Python Library for Metasearch", CIKM 2022. RRF: Cormack et al., SIGIR 2009;
CombSUM/CombMNZ: Fox & Shaw, TREC-2 1994; ISR/log-ISR: Mourão et al. 2014; RBC: Bailey et al. 2017.

ranx needs every run to hold the same queries and writes into the runs it is given; the wrappers here add
empty rankings for missing queries, hand ranx copies, and return plain :data:`~clarion.types.Run` dicts.
Candidates absent from a run get nothing from it (ranx's convention: 0 after normalisation). A fusion whose
scores overflow (``inf``/``nan``: a huge weight or exponent, or huge raw scores with ``norm='none'``) raises
:class:`~clarion.errors.InputError` rather than returning scores no run file can hold.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Mapping, Sequence
from enum import Enum
from numbers import Real

from clarion.bounds import FINITE
from clarion.errors import InputError
from clarion.types import Run, check_run, check_runs


class Norm(str, Enum):
    """Per-query score normalisations (ranx names in :data:`RANX_NORM`)."""

    MIN_MAX = "min-max"
    Z_SCORE = "z-score"
    MAX = "max"
    SUM = "sum"
    RANK = "rank"
    BORDA = "borda"
    NONE = "none"


RANX_NORM = {
    Norm.MIN_MAX: "min-max",
    Norm.Z_SCORE: "zmuv",
    Norm.MAX: "max",
    Norm.SUM: "sum",
    Norm.RANK: "rank",
    Norm.BORDA: "borda",
    Norm.NONE: None,
}


def as_norm(norm: Norm | str) -> Norm:
    try:
        return Norm(norm)
    except ValueError:
        allowed = ", ".join(n.value for n in Norm)
        raise InputError(f"unknown normalisation {norm!r}; choose one of: {allowed}") from None


def _to_ranx(runs: Sequence[Run]):
    from ranx import Run as RRun

    queries: dict[str, None] = {}
    for run in runs:
        queries.update(dict.fromkeys(run))
    return [
        RRun({q: {d: float(s) for d, s in run.get(q, {}).items()} for q in queries}, name=f"run{i}")
        for i, run in enumerate(runs)
    ]


def _from_ranx(rrun) -> Run:
    return {q: {d: float(s) for d, s in docs.items()} for q, docs in rrun.to_dict().items()}


def normalize(run: Run, norm: Norm | str = Norm.MIN_MAX) -> Run:
    """``run`` with each query's scores normalised by ranx (``norm='none'`` returns a copy).

    Scores must be finite numbers (:func:`~clarion.types.check_run`); a run without candidates is returned as
    a copy.
    """
    norm = as_norm(norm)
    check_run(run, "run")
    if norm is Norm.NONE or not any(run.values()):
        return {q: dict(c) for q, c in run.items()}
    if norm is Norm.BORDA:
        raise InputError("borda normalisation needs several runs; use it through ranx_fuse")
    from ranx import normalize as ranx_normalize

    with warnings.catch_warnings():  # ranx's numba kernels warn about integer casts
        warnings.simplefilter("ignore")
        return _from_ranx(ranx_normalize(_to_ranx([run])[0], RANX_NORM[norm]))


def check_finite(run: Run, label: str) -> Run:
    """``run`` unchanged, or :class:`InputError` naming ``label`` (the method and its parameters) and the first
    score that is not finite."""
    for query, scores in run.items():
        for cand, score in scores.items():
            if not math.isfinite(score):
                raise InputError(
                    f"{label}: fused score of query {query!r}, candidate {cand!r} is {score} (overflow); "
                    "use smaller parameter values or normalised scores (--norm)"
                )
    return run


def check_weights(value, n_runs: int, name: str = "weights") -> list[float]:
    """``value`` as ``n_runs`` floats, each finite and >= 0, not all 0; else :class:`InputError` naming ``name``."""
    if isinstance(value, str | bytes) or not isinstance(value, Sequence) or len(value) != n_runs:
        raise InputError(f"{name} must be {n_runs} numbers (one per run), got {value!r}")
    for w in value:
        if isinstance(w, bool) or not isinstance(w, Real) or not math.isfinite(w) or w < 0:
            raise InputError(f"weight must be float in [0, inf], got {w!r}")
    weights = [float(w) for w in value]
    if sum(weights) <= 0:
        raise InputError(f"{name} must not all be 0, got {value!r}")
    return weights


def describe(name: str, params: dict | None, norm: Norm) -> str:
    """``'combgmnz (gamma=2.0, norm min-max)'``: a method as error messages name it."""
    shown = [f"{key}={value!r}" for key, value in (params or {}).items()]
    return f"{name} ({', '.join([*shown, f'norm {norm.value}'])})"


def ranx_fuse(
    runs: Sequence[Run],
    method: str,
    norm: Norm | str = Norm.MIN_MAX,
    params: dict | None = None,
    label: str | None = None,
) -> Run:
    """Fuse ``runs`` with ranx fusion ``method`` (``rrf``, ``sum``, ``mnz``, ``wsum``, ...) after ``norm``.

    Every run must be a :data:`~clarion.types.Run` with finite scores and at least one candidate; ``weights``,
    when given, one number >= 0 per run; every other parameter a finite number that ranx's ``method`` takes.
    Anything else, and scores that overflow, raise :class:`InputError` naming the run, or ``label`` (default
    ``ranx METHOD``) and ``params``. Each parameter's range (``rrf``'s k >= 1, ...) is checked by
    :func:`clarion.fuse.fuse`, which names methods as the CLI does. Fused scores are rounded to 12 significant
    digits, so that candidates tied in exact arithmetic are tied in the result (float noise does not order them).

    >>> fused = ranx_fuse([{"q": {"a": 2, "b": 1}}, {"q": {"b": 2, "c": 1}}], "mnz")
    >>> sorted(fused["q"], key=fused["q"].get, reverse=True)[0]
    'b'
    """
    from ranx import fuse

    norm = as_norm(norm)
    runs = check_runs(runs)
    if len(runs) < 2:
        raise InputError(f"{method} fuses at least two runs, got {len(runs)}")
    for i, run in enumerate(runs, start=1):
        if not any(run.values()):
            raise InputError(f"run {i} has no candidates (queries: {len(run)}): nothing to fuse from it")
    if params is not None and not isinstance(params, Mapping):
        raise InputError(f"ranx {method}: params must be a dict name -> value, got {type(params).__name__}")
    for name, value in (params or {}).items():
        if name != "weights" and not FINITE.admits(value):
            raise InputError(f"ranx {method}: parameter {name} must be a finite number, got {value!r}")
    if (params or {}).get("weights") is not None:
        params = {**params, "weights": check_weights(params["weights"], len(runs))}
    with warnings.catch_warnings():  # ranx's numba kernels warn about integer casts
        warnings.simplefilter("ignore")
        try:
            fused = fuse(_to_ranx(runs), norm=RANX_NORM[norm], method=method, params=dict(params or {}))
        except (AssertionError, ValueError, ZeroDivisionError, TypeError) as err:  # TypeError: an unknown name
            raise InputError(f"ranx {method} with {params or {}}: {err}") from None
    return check_finite(_settled(_from_ranx(fused)), describe(label or f"ranx {method}", params, norm))


def _settled(run: Run) -> Run:
    """``run`` with each score rounded to 12 significant digits, so that candidates tied in exact arithmetic are tied
    in the output too and ordered by id: min-max normalisation leaves float noise ("0.5000000000000001" against
    "0.4999999999999999" for two candidates each a run's middle) that would otherwise decide their order."""
    return {q: {d: float(f"{s:.12g}") for d, s in docs.items()} for q, docs in run.items()}

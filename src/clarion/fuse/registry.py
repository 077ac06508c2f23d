"""Every fusion method by name: its parameters (validation and search ranges) and how to apply it.

:class:`Method` is the one set of choices shared by the library, the CLI (``clarion fuse --method``) and the
tuner. ``two-step`` and ``alpha`` take MRR runs plus an NDCG run; every other method fuses a flat list of runs
through ranx (:mod:`clarion.fuse.standard`).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from enum import Enum

from clarion.bounds import Bound
from clarion.errors import InputError
from clarion.fuse.alpha import alpha_ensemble
from clarion.fuse.standard import Norm, as_norm, check_weights, ranx_fuse
from clarion.fuse.two_step import P_MAX, two_step
from clarion.types import Run, check_runs


class Method(str, Enum):
    """Fusion methods (ranx's name in brackets where it differs)."""

    TWO_STEP = "two-step"
    ALPHA = "alpha"
    RRF = "rrf"
    COMBSUM = "combsum"
    COMBMNZ = "combmnz"
    COMBMAX = "combmax"
    COMBMIN = "combmin"
    COMBMED = "combmed"
    COMBANZ = "combanz"
    COMBGMNZ = "combgmnz"
    WSUM = "wsum"
    WMNZ = "wmnz"
    MIXED = "mixed"
    ISR = "isr"
    LOG_ISR = "log-isr"
    LOGN_ISR = "logn-isr"
    RBC = "rbc"
    BORDA = "borda"
    WEIGHTED_BORDA = "weighted-borda"
    CONDORCET = "condorcet"
    WEIGHTED_CONDORCET = "weighted-condorcet"


@dataclass(frozen=True)
class Param:
    """One parameter: its type (``int``, ``float`` or ``weights``, one per run), the allowed range
    (inclusive unless ``open_low`` / ``open_high``; ``None`` = unbounded), the random-search range and the default."""

    name: str
    kind: str
    low: float | None
    high: float | None
    search: tuple[float, float]
    default: object
    help: str
    open_low: bool = False
    open_high: bool = False

    def check(self, value, n_runs: int):
        """The validated value; out of range or of the wrong type raises :class:`InputError`."""
        if self.kind == "weights":
            return self._check_weights(value, n_runs)
        self.bound.check(self.name, value)
        return int(value) if self.kind == "int" else float(value)

    @property
    def bound(self) -> Bound:
        """The allowed values of an ``int`` or ``float`` parameter."""
        return Bound(self.kind, self.low, self.high, self.open_low, self.open_high)

    def _check_weights(self, value, n_runs: int) -> list[float]:
        if value is None:
            return [1.0 / n_runs] * n_runs
        return check_weights(value, n_runs, self.name)

    def range_text(self) -> str:
        if self.kind == "weights":
            return "each in [0, inf], not all 0"
        return self.bound.range_text()

    def parse(self, text: str, n_runs: int):
        """The value of ``text`` as given on the command line (weights: comma-separated)."""
        try:
            if self.kind == "weights":
                value = [float(w) for w in text.split(",")]
            elif self.kind == "int" and text.strip().lstrip("+-").isdigit():
                value = int(text)
            else:
                value = float(text)
        except ValueError:
            raise InputError(f"{self.name}: not a number: {text!r}") from None
        return self.check(value, n_runs)

    def sample(self, rng: random.Random, n_runs: int):
        """A random value from the search range (weights: uniform on the simplex)."""
        low, high = self.search
        if self.kind == "int":
            return rng.randint(int(low), int(high))
        if self.kind == "float":
            return round(rng.uniform(low, high), 2)
        raw = [rng.expovariate(1.0) for _ in range(n_runs)]
        return [round(w / sum(raw), 3) for w in raw]


Apply = Callable[[list[Run], Run | None, dict, Norm], Run]


@dataclass(frozen=True)
class FusionMethod:
    """A registry entry: the method, a one-line summary, its parameters and how to apply it."""

    method: Method
    summary: str
    params: tuple[Param, ...]
    apply: Apply
    roles: bool = False
    """True when the method needs MRR runs and an NDCG run rather than a flat list of runs."""


def _two_step(runs: list[Run], ndcg: Run | None, params: dict, norm: Norm) -> Run:
    return two_step(runs, ndcg, **params)


def _alpha(runs: list[Run], ndcg: Run | None, params: dict, norm: Norm) -> Run:
    return alpha_ensemble(runs, ndcg, norm=norm, **params)


def _ranx(name: str, method: Method) -> Apply:
    def apply(runs: list[Run], ndcg: Run | None, params: dict, norm: Norm) -> Run:
        return ranx_fuse(runs, name, norm, params, label=method.value)

    return apply


def _rho(name: str, search: tuple[int, int], default: int, help: str) -> Param:
    return Param(name, "int", 0, None, search, default, help)


_TWO_STEP_PARAMS = (
    _rho("rho_h", (1, 10), 3, "high certainty: in every MRR model's top rho_h"),
    _rho("rho_t", (0, 3), 1, "top answers: in some MRR model's top rho_t"),
    _rho("rho_nn", (1, 20), 5, "NDCG agreement: in N's top rho_nn ..."),
    _rho("rho_nm", (1, 30), 10, "... and in some MRR model's top rho_nm"),
    Param("p", "float", 0, P_MAX, (0.0, 6.0), 3.0, "tail order: r_N^p * r_M1"),
)
_WEIGHTS = Param("weights", "weights", None, None, (0, 1), None, "one weight per run, comma-separated")


def _plain(method: Method, ranx_name: str, summary: str, *params: Param) -> FusionMethod:
    return FusionMethod(method, summary, params, _ranx(ranx_name, method))


METHODS: dict[Method, FusionMethod] = {
    m.method: m
    for m in (
        FusionMethod(Method.TWO_STEP, "two-step MRR/NDCG ensemble (Schwartz 2021)", _TWO_STEP_PARAMS, _two_step, True),
        FusionMethod(
            Method.ALPHA,
            "alpha * mean(MRR scores) + (1 - alpha) * NDCG score, normalised",
            (Param("alpha", "float", 0, 1, (0.0, 1.0), 0.5, "weight of the MRR models"),),
            _alpha,
            True,
        ),
        _plain(
            Method.RRF,
            "rrf",
            "reciprocal rank fusion, sum of 1/(k + rank)",
            Param("k", "int", 1, 1_000_000, (1, 100), 60, "rank offset"),
        ),
        _plain(Method.COMBSUM, "sum", "sum of normalised scores"),
        _plain(Method.COMBMNZ, "mnz", "sum of scores times number of runs retrieving"),
        _plain(Method.COMBMAX, "max", "maximum normalised score"),
        _plain(Method.COMBMIN, "min", "minimum normalised score"),
        _plain(Method.COMBMED, "med", "median normalised score"),
        _plain(Method.COMBANZ, "anz", "sum of scores divided by number of runs retrieving"),
        _plain(
            Method.COMBGMNZ,
            "gmnz",
            "sum of scores times (number retrieving)^gamma",
            Param("gamma", "float", 0, 10, (0.0, 2.0), 1.0, "exponent"),
        ),
        _plain(Method.WSUM, "wsum", "weighted sum of normalised scores", _WEIGHTS),
        _plain(Method.WMNZ, "wmnz", "weighted CombMNZ", _WEIGHTS),
        _plain(Method.MIXED, "mixed", "weighted mix of CombSUM-style scores", _WEIGHTS),
        _plain(Method.ISR, "isr", "inverse square rank"),
        _plain(Method.LOG_ISR, "log_isr", "logarithmic inverse square rank"),
        _plain(
            Method.LOGN_ISR,
            "logn_isr",
            "normalised log-ISR",
            Param("sigma", "float", 0, 1, (0.001, 0.1), 0.01, "smoothing", open_low=True),  # 0 zeroes singletons
        ),
        _plain(
            Method.RBC,
            "rbc",
            "rank-biased centroids",
            Param("phi", "float", 0, 1, (0.5, 0.99), 0.8, "persistence", open_high=True),  # 1: every weight is 0
        ),
        _plain(Method.BORDA, "bordafuse", "Borda count"),
        _plain(Method.WEIGHTED_BORDA, "w_bordafuse", "weighted Borda count", _WEIGHTS),
        _plain(Method.CONDORCET, "condorcet", "Condorcet pairwise majority"),
        _plain(Method.WEIGHTED_CONDORCET, "w_condorcet", "weighted Condorcet", _WEIGHTS),
    )
}


def get_method(method: Method | str) -> FusionMethod:
    """The registry entry of ``method``; an unknown name lists the known ones."""
    try:
        return METHODS[Method(method)]
    except ValueError:
        raise InputError(
            f"unknown fusion method {method!r}; choose one of: {', '.join(m.value for m in Method)}"
        ) from None


def check_params(entry: FusionMethod, params: dict | None, n_runs: int) -> dict:
    """``params`` completed with defaults and validated; unknown names raise :class:`InputError`."""
    if params is not None and not isinstance(params, Mapping):
        raise InputError(f"{entry.method.value}: params must be a dict name -> value, got {type(params).__name__}")
    params = dict(params or {})
    known = {p.name: p for p in entry.params}
    unknown = sorted(set(params) - set(known))
    if unknown:
        allowed = ", ".join(known) or "none"
        raise InputError(f"{entry.method.value}: unknown parameter(s) {', '.join(unknown)}; allowed: {allowed}")
    return {name: p.check(params.get(name, p.default), n_runs) for name, p in known.items()}


def fuse(
    method: Method | str,
    runs: list[Run],
    ndcg_run: Run | None = None,
    params: dict | None = None,
    norm: Norm | str = Norm.MIN_MAX,
) -> Run:
    """Apply a fusion method by name.

    For ``two-step`` and ``alpha``, ``runs`` are the MRR runs (most accurate first) and ``ndcg_run`` is
    required; for the other methods ``ndcg_run``, when given, is simply appended to ``runs``.

    >>> fuse("rrf", [{"q": {"a": 1.0, "b": 0.5}}, {"q": {"b": 1.0, "c": 0.5}}])["q"]["b"] > 0
    True
    """
    entry = get_method(method)
    norm = as_norm(norm)
    runs = check_runs(runs, each=False)  # each run is checked by the method itself
    if entry.roles:
        if ndcg_run is None:
            raise InputError(f"{entry.method.value} needs an NDCG run (--ndcg) besides the MRR runs (--mrr)")
        if not runs:
            raise InputError(f"{entry.method.value} needs at least one MRR run (--mrr)")
        n_runs = len(runs) + 1
    else:
        runs = runs + ([ndcg_run] if ndcg_run is not None else [])
        n_runs = len(runs)
    checked = check_params(entry, params, n_runs)
    return entry.apply(runs, ndcg_run if entry.roles else None, checked, norm)

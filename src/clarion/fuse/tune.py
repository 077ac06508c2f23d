"""Random search of fusion parameters on a validation split, for one metric or a weighted mix.

As in Schwartz (NAACL 2021), who chose the two-step parameters by random search on validation data; and
Bergstra & Bengio, "Random Search for Hyper-Parameter Optimization", JMLR 2012. Trial 0 is always the
method's defaults, so tuning never returns something worse than them on the validation target.

A target is ``[QRELS:]METRIC[=WEIGHT]`` (ranx metric names: ``mrr``, ``precision@1``, ``recall@30`` ...);
several targets are summed with their weights, each evaluated against its named qrels (``default`` when
unnamed). The score to maximise is ``Σ weight · mean(metric)``.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass, field
from numbers import Real

from clarion.errors import InputError
from clarion.evaluate.ranking import check_metrics, evaluate
from clarion.fuse.registry import Method, check_params, fuse, get_method
from clarion.fuse.standard import Norm
from clarion.types import Qrels, Run, check_run, check_runs

DEFAULT_QRELS = "default"


@dataclass(frozen=True)
class Target:
    """One term of the tuning objective."""

    metric: str
    weight: float = 1.0
    qrels: str = DEFAULT_QRELS

    def __post_init__(self) -> None:
        if not isinstance(self.metric, str) or not self.metric.strip():
            raise InputError(f"target metric must be a metric name such as 'mrr', got {self.metric!r}")
        weight = self.weight
        if isinstance(weight, bool) or not isinstance(weight, Real) or not math.isfinite(weight) or weight <= 0:
            raise InputError(f"target {self.metric!r}: weight must be a positive number, got {weight!r}")
        if not isinstance(self.qrels, str) or not self.qrels:
            raise InputError(f"target {self.metric!r}: qrels must be a qrels name, got {self.qrels!r}")

    @classmethod
    def parse(cls, text: str) -> Target:
        """``"mrr"``, ``"recall@30=0.5"``, ``"best:mrr=0.7"`` -> Target."""
        if not isinstance(text, str):
            raise InputError(f"target must be a string such as 'best:mrr=0.5', got {type(text).__name__}")
        spec, _, weight = text.partition("=")
        name, _, metric = spec.rpartition(":")
        metric = metric.strip()
        if not metric:
            raise InputError(f"target {text!r}: expected [QRELS:]METRIC[=WEIGHT], e.g. best:mrr=0.5")
        try:
            value = float(weight) if weight else 1.0
        except ValueError:
            raise InputError(f"target {text!r}: weight {weight!r} is not a number") from None
        if not math.isfinite(value) or value <= 0:
            raise InputError(f"target {text!r}: weight must be a positive number")
        check_metrics([metric])  # a misspelt metric fails here, before any search
        return cls(metric, value, name.strip() or DEFAULT_QRELS)

    def label(self) -> str:
        prefix = "" if self.qrels == DEFAULT_QRELS else f"{self.qrels}:"
        return f"{prefix}{self.metric}"


@dataclass
class Trial:
    params: dict
    score: float
    metrics: dict[str, float]


@dataclass
class TuneResult:
    best: Trial
    trials: list[Trial] = field(default_factory=list)


def overlap_problem(judged: Qrels, queries: Collection[str]) -> str | None:
    """Why qrels ``judged`` cannot score runs over ``queries`` (every trial would score 0), or None."""
    if not judged:
        return "holds no judgments"
    if any(query in queries for query in judged):
        return None
    shown = ", ".join(repr(q) for q in sorted(queries)[:3]) or "none"
    return f"judges no query of the runs (it judges e.g. {next(iter(judged))!r}; the runs rank e.g. {shown})"


def _check_named(target: Target, qrels: Mapping[str, Qrels]) -> None:
    if target.qrels not in qrels:
        names = ", ".join(qrels) or "none"
        raise InputError(f"target {target.label()!r} names qrels {target.qrels!r}; given: {names}")


def objective(run: Run, qrels: Mapping[str, Qrels], targets: list[Target]) -> tuple[float, dict[str, float]]:
    """The weighted target score of ``run`` and each target's mean value."""
    values: dict[str, float] = {}
    for target in targets:
        _check_named(target, qrels)
        try:
            result = evaluate(qrels[target.qrels], run, [target.metric])
        except (KeyError, ValueError, AssertionError, NotImplementedError) as err:
            raise InputError(f"target metric {target.metric!r} is not a ranx metric ({err})") from None
        values[target.label()] = result.means[target.metric]
    return sum(t.weight * values[t.label()] for t in targets), values


def random_search(
    method: Method | str,
    runs: list[Run],
    qrels: Mapping[str, Qrels],
    targets: list[Target],
    ndcg_run: Run | None = None,
    norm: Norm | str = Norm.MIN_MAX,
    n_trials: int = 50,
    seed: int = 0,
    fixed: dict | None = None,
    on_trial: Callable[[Trial], None] | None = None,
) -> TuneResult:
    """Try the defaults and ``n_trials - 1`` random parameter sets; return the best by the target score.

    ``fixed`` parameters are never sampled. Ties keep the earlier trial (the defaults first).
    """
    entry = get_method(method)
    runs = check_runs(runs, "MRR run" if entry.roles else "run")
    if ndcg_run is not None:
        check_run(ndcg_run, "NDCG run")
    if not targets:
        raise InputError("give at least one target metric")
    bad = [t for t in targets if not isinstance(t, Target)]
    if bad:
        raise InputError(f"targets must be Target objects (Target.parse('mrr')), got {bad[0]!r}")
    if isinstance(n_trials, bool) or not isinstance(n_trials, int) or n_trials < 1:
        raise InputError(f"n_trials must be a whole number >= 1, got {n_trials!r}")
    n_runs = len(runs) + (1 if ndcg_run is not None else 0)
    given = dict(fixed or {})
    fixed = {k: v for k, v in check_params(entry, given, n_runs).items() if k in given}
    queries: set[str] = set(ndcg_run or {}).union(*runs)
    for target in targets:  # before any trial: a misnamed qrels failed only after the first fusion
        _check_named(target, qrels)
    for name in dict.fromkeys(t.qrels for t in targets):
        problem = overlap_problem(qrels[name], queries)
        if problem:
            raise InputError(f"qrels {name!r} {problem}")
    rng = random.Random(seed)
    result = TuneResult(Trial({}, -math.inf, {}))
    trials: list[Trial] = []
    for i in range(n_trials):
        sampled = {p.name: p.default if i == 0 else p.sample(rng, n_runs) for p in entry.params}
        params = {k: v for k, v in {**sampled, **fixed}.items() if v is not None}
        fused = fuse(entry.method, runs, ndcg_run, params, norm)
        score, values = objective(fused, qrels, targets)
        trial = Trial(params, score, values)
        trials.append(trial)
        if score > result.best.score:
            result = TuneResult(trial)
        if on_trial:
            on_trial(trial)
    result.trials = trials
    return result

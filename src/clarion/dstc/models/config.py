"""The DSTC pipeline's configuration: its trained stages' options and the named rules it uses.

:class:`PipelineConfig` is everything that defines a trained model (written to meta.json, hashed into the model
directory). Heuristics are not fields of their own: ``rules`` maps the names of the rules the model uses
(:data:`clarion.rules.RULES`, task ``dstc``) to their parameters. A saved configuration of another format than
:data:`CONFIG_FORMAT` is refused: retrain the model.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field

from clarion.bounds import FLAG, Bound, as_choice, check_fields
from clarion.detect.knowledge import OLDER_DETECTOR, DetectConfig
from clarion.errors import InputError
from clarion.rerank.snippets import SelectConfig, SelectModel
from clarion.respond.consensus import Generator
from clarion.respond.lm import LmConfig
from clarion.rules import RULES, default_rules, resolved

CONFIG_FORMAT = 2
"""The configuration's format (``format`` in its JSON): rules listed by name in ``rules``."""

_PIPELINE_BOUNDS = {
    "neighbour_weight": Bound("float", 0),
    "neighbour_k": Bound("int", 1),
    "consensus_k": Bound("int", 1),
    "exact_weight": Bound("float", 0),
    "consensus_beta": Bound("float", 0, open_low=True),
    "max_contexts": Bound("int", 1, optional=True),
    "dense": FLAG,
}


@dataclass
class PipelineConfig:
    """Everything that defines a trained model (written to meta.json, hashed into the model directory)."""

    detect: DetectConfig = field(default_factory=DetectConfig)
    select: SelectConfig = field(default_factory=SelectConfig)
    generator: Generator = Generator.consensus
    neighbour_weight: float = 1.0
    neighbour_k: int = 20
    consensus_k: int = 30  # consensus generator: nearest turns in the pool
    exact_weight: float = 3.0  # consensus generator: weight of the turns with the same gold snippet set
    consensus_beta: float = 0.6
    """The consensus generator's MBR utility: F-beta of word n-grams (:func:`clarion.respond.pool.ngram_utility`);
    below 1 it prefers the body that adds least beyond what the pool agrees on. 0.6 on train cross-validation
    (docs/dstc.md); 1 (F1) in models trained before it."""
    rules: dict = field(default_factory=default_rules)  # rule name -> parameters (clarion.rules.RULES)
    max_contexts: int | None = None  # tiny settings train on the first N contexts only
    dense: bool = True  # False: no MiniLM at all (lexical features only; the tiny CI setting)
    lm: LmConfig = field(default_factory=LmConfig)  # the lm generator's fine-tuning and decoding

    def __post_init__(self) -> None:
        self.generator = as_choice("PipelineConfig.generator", Generator, self.generator)
        for name, kind in (("detect", DetectConfig), ("select", SelectConfig), ("lm", LmConfig)):
            if not isinstance(getattr(self, name), kind):
                raise InputError(f"PipelineConfig.{name} must be a {kind.__name__}, got {getattr(self, name)!r}")
        check_fields(self, _PIPELINE_BOUNDS)
        self.rules = resolved(self.rules)

    def uses(self, rule: str) -> bool:
        """Whether the model applies the rule named ``rule`` (a rule of the ``dstc`` task)."""
        if rule not in RULES or RULES[rule].task != "dstc":
            raise KeyError(f"no DSTC rule {rule!r}")
        return rule in self.rules

    def param(self, rule: str, name: str):
        """Parameter ``name`` of the rule ``rule``, or None when the model does not use the rule."""
        if name not in RULES[rule].params:
            raise KeyError(f"rule {rule!r} has no parameter {name!r}")
        return self.rules[rule][name] if rule in self.rules else None

    def with_rules(self, **changes) -> PipelineConfig:
        """A copy with the rules ``changes`` names set: parameters (``{}``: the defaults), or None to drop the rule:
        ``config.with_rules(ask_entity=None)``. An unknown rule is an :class:`~clarion.errors.InputError`."""
        from dataclasses import replace

        out = replace(self, rules={**self.rules})
        for name, params in changes.items():
            out.set_rule(name, params)
        return out

    def set_rule(self, name: str, params: dict | None) -> None:
        """Use the rule ``name`` with ``params`` merged into its current (or default) parameters; None: drop it."""
        if params is None:
            resolved({name: None})  # an unknown rule is an error, on or off
            self.rules.pop(name, None)
        else:
            self.rules[name] = resolved({name: {**self.rules.get(name, {}), **params}})[name]

    def to_json(self) -> dict:
        out = asdict(self)
        if self.generator is not Generator.lm:  # model directories of the other generators keep their hash
            del out["lm"]
        out["generator"] = self.generator.value
        out["select"]["model"] = self.select.model.value
        out["format"] = CONFIG_FORMAT
        return out

    @classmethod
    def from_json(cls, obj: dict) -> PipelineConfig:
        """Read :meth:`to_json`'s output; another format (an older clarion's) is an
        :class:`~clarion.errors.InputError` saying to retrain."""
        obj = dict(obj)
        version = obj.pop("format", 1)  # format 1 had no ``format`` key
        if version != CONFIG_FORMAT:
            raise InputError(
                f"PipelineConfig: configuration format {version}, expected {CONFIG_FORMAT}; retrain the model "
                "(clarion dstc train)"
            )
        select = dict(obj.get("select", {}))
        if "model" in select:
            select["model"] = SelectModel(select["model"])
        return cls(
            detect=DetectConfig(**{**OLDER_DETECTOR, **obj.get("detect", {})}),
            select=SelectConfig(**select),
            generator=Generator(obj.get("generator", Generator.consensus.value)),
            neighbour_weight=float(obj.get("neighbour_weight", 1.0)),
            neighbour_k=int(obj.get("neighbour_k", 20)),
            consensus_k=int(obj.get("consensus_k", 30)),
            exact_weight=float(obj.get("exact_weight", 3.0)),
            consensus_beta=float(obj.get("consensus_beta", 1.0)),
            rules=obj.get("rules", default_rules()),
            max_contexts=obj.get("max_contexts"),
            dense=bool(obj.get("dense", True)),
            lm=LmConfig.from_json(obj.get("lm", {})),
        )

    @classmethod
    def tiny(cls) -> PipelineConfig:
        """The CI setting (``CLARION_TINY=1``): 400 contexts, lexical features only — seconds on a CPU."""
        select = SelectConfig(n_estimators=30, use_product=False, calibration_folds=2)  # no embeddings to multiply
        lm = LmConfig(epochs=1, batch=2, max_examples=4, max_new_tokens=8, samples=2)  # --generator lm only
        detect = DetectConfig(use_embeddings=False, lm_layer=None)
        return cls(detect=detect, select=select, max_contexts=400, dense=False, lm=lm)

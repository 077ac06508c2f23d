"""The DSTC pipeline's configuration: its trained stages' options and the named rules it uses.

:class:`PipelineConfig` is everything that defines a trained model (written to meta.json, hashed into the model
directory). Heuristics are not fields of their own: ``rules`` maps the names of the rules the model uses
(:data:`clarion.rules.RULES`) to their parameters. A configuration written by an older clarion (``format`` 1: one
field per rule, an absent field meaning the rule was off) is read through :func:`upgrade_v1`. Rules that were removed
(:data:`clarion.rules.REMOVED_RULES`) are dropped when a saved configuration is read.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field

from clarion.bounds import FLAG, Bound, as_choice, check_fields
from clarion.detect.knowledge import DetectConfig
from clarion.errors import InputError
from clarion.rerank.snippets import SelectConfig, SelectModel
from clarion.respond.consensus import Generator
from clarion.respond.lm import LmConfig
from clarion.rules import REMOVED_RULES, RULES, default_rules, removed, resolved

CONFIG_FORMAT = 2
"""The configuration's format: 2 lists rules by name; 1 (no ``format`` key) had one field per rule."""

_PIPELINE_BOUNDS = {
    "neighbour_weight": Bound("float", 0),
    "neighbour_k": Bound("int", 1),
    "consensus_k": Bound("int", 1),
    "exact_weight": Bound("float", 0),
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
        """Whether the model applies the rule named ``rule``."""
        if rule not in RULES:
            raise KeyError(f"no rule {rule!r}")
        return rule in self.rules

    def param(self, rule: str, name: str):
        """Parameter ``name`` of the rule ``rule``, or None when the model does not use the rule."""
        if name not in RULES[rule].params:
            raise KeyError(f"rule {rule!r} has no parameter {name!r}")
        return self.rules[rule][name] if rule in self.rules else None

    def with_rules(self, **changes) -> PipelineConfig:
        """A copy with the rules ``changes`` names set: parameters (``{}``: the defaults), or None to drop the rule
        (a removed rule set to None: a no-op): ``config.with_rules(ask_entity=None)``."""
        from dataclasses import replace

        out = replace(self, rules={**self.rules})
        for name, params in changes.items():
            out.set_rule(name, params)
        return out

    def set_rule(self, name: str, params: dict | None) -> None:
        """Use the rule ``name`` with ``params`` merged into its current (or default) parameters; None: drop it."""
        if params is None:
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
        """Read :meth:`to_json`'s output; an older format is upgraded first (:func:`upgrade_v1`)."""
        obj = dict(obj)
        if obj.pop("format", 1) == 1:
            obj = upgrade_v1(obj)
        select = dict(obj.get("select", {}))
        if "model" in select:
            select["model"] = SelectModel(select["model"])
        return cls(
            detect=DetectConfig(**obj.get("detect", {})),
            select=SelectConfig(**select),
            generator=Generator(obj.get("generator", Generator.consensus.value)),
            neighbour_weight=float(obj.get("neighbour_weight", 1.0)),
            neighbour_k=int(obj.get("neighbour_k", 20)),
            consensus_k=int(obj.get("consensus_k", 30)),
            exact_weight=float(obj.get("exact_weight", 3.0)),
            rules=without_removed(obj.get("rules", default_rules())),
            max_contexts=obj.get("max_contexts"),
            dense=bool(obj.get("dense", True)),
            lm=LmConfig.from_json(obj.get("lm", {})),
        )

    @classmethod
    def tiny(cls) -> PipelineConfig:
        """The CI setting (``CLARION_TINY=1``): 400 contexts, lexical features only — seconds on a CPU."""
        select = SelectConfig(n_estimators=30, use_product=False, calibration_folds=2)  # no embeddings to multiply
        lm = LmConfig(epochs=1, batch=2, max_examples=4, max_new_tokens=8, samples=2)  # --generator lm only
        return cls(detect=DetectConfig(use_embeddings=False), select=select, max_contexts=400, dense=False, lm=lm)


_PARAM_FIELDS: dict[str, tuple[str, str]] = {
    "overlap_pool": ("overlap_pool", "jaccard"),
    "faq_cover": ("faq_cover", "cover"),
    "relevance_gate": ("relevance_gate", "margin"),
    "relevance_exact": ("relevance_exact", "margin"),
    "abstain_below": ("abstain", "below"),
    "abstain_cosine": ("abstain_unrelated", "cosine"),
    "unknown_aspect_cosine": ("unknown_aspect", "cosine"),
    "review_floor": ("review_floor", "cosine"),
    "faq_fallback_memory": ("faq_outranks_memory", "cosine"),
    "memory_elsewhere": ("faq_outranks_memory", "elsewhere"),
    "detail_penalty": ("detail_penalty", "penalty"),
}
LEGACY_FIELDS: dict[str, tuple[str, str | None]] = {
    **_PARAM_FIELDS,
    **{name: (name, None) for name, rule in RULES.items() if not rule.params},
    **{name: (name, None) for name in sorted(REMOVED_RULES.difference(_PARAM_FIELDS))},
}
"""Format 1's field per rule -> (rule, parameter); a flag's parameter is None. A removed rule's name is still read
(:func:`without_removed` then drops it, or refuses it switched on)."""
NEUTRAL_FIELDS = {"abstain_below": 0, "detail_penalty": 0}
"""Format 1 fields of removed rules whose value 0 made the rule do nothing: set to 0, the rule is off."""
REMOVED_FIELDS = frozenset({"name_article"})
"""Format 1 fields of rules that no longer exist (they named one dataset's wording); ignored when read."""
_REMOVED_DETECT = frozenset({"faq_glossary"})


def without_removed(rules, option: str | None = None):
    """``rules`` (name -> parameters) without the removed rules (:data:`clarion.rules.REMOVED_RULES`). With
    ``option`` (a user's setting), one switched on (parameters, ``true``) is an InputError; without (a saved model's
    configuration), every one is dropped."""
    if not isinstance(rules, dict):
        return rules
    for name in sorted(REMOVED_RULES.intersection(rules)):
        if option is not None and rules[name] is not None and rules[name] is not False:
            raise removed(name, option)
    return {name: params for name, params in rules.items() if name not in REMOVED_RULES}


def legacy_rules(obj: dict) -> tuple[dict, dict]:
    """``obj`` split into its format 1 rule fields, as ``rules`` overrides (name -> parameters, or None: off), and
    the other fields."""
    rules: dict = {}
    rest = {}
    for key, value in obj.items():
        if key in REMOVED_FIELDS:
            continue
        if key not in LEGACY_FIELDS:
            rest[key] = value
            continue
        rule, param = LEGACY_FIELDS[key]
        if param is None:
            rules[rule] = {} if value else None
        elif value is None or value is False or (key in NEUTRAL_FIELDS and value == NEUTRAL_FIELDS[key]):
            rules[rule] = None
        elif rules.get(rule, {}) is not None:
            rules[rule] = {**(rules.get(rule) or {}), param: value}
    return rules, rest


def upgrade_v1(obj: dict) -> dict:
    """A format 1 configuration as format 2: each rule field becomes an entry of ``rules`` (an absent field, from a
    model trained before the rule existed, leaves the rule off), removed fields are dropped, and the options older
    models were trained without are spelt out (no entity gate, FAQ questions embedded as written, FAQ-only knowledge
    ranked by the classifier, selection from the turn with its names)."""
    flat = {key: obj.get(key) for key in LEGACY_FIELDS} | {k: v for k, v in obj.items() if k not in LEGACY_FIELDS}
    rules, rest = legacy_rules(flat)
    detect = {"entity_faq_cosine": None, **rest.get("detect", {})}
    select = {"faq_cosine": False, "strip_names": False, **rest.get("select", {})}
    return {
        **rest,
        "detect": {k: v for k, v in detect.items() if k not in _REMOVED_DETECT},
        "select": select,
        "generator": rest.get("generator", Generator.neighbour.value),
        "rules": {name: params for name, params in rules.items() if params is not None},
    }

"""Named heuristic rules: what each does, its parameters, registered by name.

A rule is a heuristic the knowledge-grounded pipeline may apply on top of its trained stages (detection, snippet
selection, response generation). Every rule has a name, the stage it acts in, one sentence saying what it does and
its parameters with their defaults. A model's configuration lists the rules it uses (``PipelineConfig.rules``: rule
name -> parameters); a rule absent from that mapping is off. ``docs/rules.md`` has each rule's measured contribution
(train cross-validation with the rule switched off) and how to add one.

>>> RULES["ask_entity"].stage
'dialogue'
>>> resolved({"ask_entity": True})
{'ask_entity': {}}
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from clarion.bounds import Bound
from clarion.errors import InputError


@dataclass(frozen=True)
class Rule:
    """A named heuristic: the ``stage`` it acts in, what it does, its parameters (name -> default) and their bounds;
    ``default``: whether the default configuration uses it; ``training``: whether training reads it (switching it
    needs a new model)."""

    name: str
    stage: str
    summary: str
    params: Mapping[str, float | None] = field(default_factory=dict)
    bounds: Mapping[str, Bound] = field(default_factory=dict)
    default: bool = True
    training: bool = False


RULES: dict[str, Rule] = {}
"""Every rule by name, in the order the docs list them."""


def register(rule: Rule) -> Rule:
    """Add ``rule`` to :data:`RULES` (a name registered twice is a programming error)."""
    if rule.name in RULES:
        raise ValueError(f"rule {rule.name!r} registered twice")
    RULES[rule.name] = rule
    return rule


def _rule(name, stage, summary, params=None, bounds=None, **kwargs) -> None:
    register(Rule(name, stage, summary, dict(params or {}), dict(bounds or {}), **kwargs))


# --- entity: which place the turn is about --------------------------------------------------------------------------
_rule("ask_entity", "dialogue", 'no place named in the dialogue: ask "which one do you mean?", select nothing')
# --- responding: what the answer says ------------------------------------------------------------------------------
_rule("entity_follow_up", "respond", '"... either of them?" when the selection spans several places')
_rule("comparisons", "respond", "a selection about several places is answered by a comparison, names swapped")
_rule(
    "faq_cover",
    "respond",
    "add a selected FAQ's answer when the chosen body holds less than `cover` of its words",
    {"cover": 0.5},
    {"cover": Bound("float", 0, 1)},
)
_rule(
    "relevance_gate",
    "respond",
    "no exact-set answer: a body `margin` less on the turn than the best only votes",
    {"margin": 0.1},
    {"margin": Bound("float", 0, 2)},
    training=True,
)


REMOVED_RULES = frozenset(
    {
        "review_cues",
        "aspect_requests",
        "coordinated_detection",
        "follow_ups",
        "preference_apart",
        "rule_needs_place",
        "faq_outranks_memory",
        "unsure_outranking",
        "outrank_by_question",
        "accessibility_apart",
        "age_apart",
        "stay_ends_apart",
        "faq_every_place",
        "coordinated_faqs",
        "aspect_anchors",
        "abstain",
        "abstain_unrelated",
        "unknown_aspect",
        "review_floor",
        "last_resort_faq",
        "overlap_pool",
        "faithful",
        "relevance_exact",
        "detail_penalty",
        "faq_agreement",
        "denials_said",
        "aspect_words",
        "dish_answers",
        "downsides",
        "upsides",
    }
)
"""Rules clarion no longer has: their measured contribution was within the noise (docs/rules.md). A configuration
switching one off is accepted (a no-op); switching one on is an :class:`~clarion.errors.InputError`
(:func:`removed`)."""


def removed(name: str, owner: str = "PipelineConfig.rules") -> InputError:
    """The one-line error for a configuration that switches on (or sets a parameter of) the removed rule ``name``."""
    return InputError(
        f"{owner}: rule {name!r} was removed because its measured contribution was within the noise (docs/rules.md)"
    )


def default_rules() -> dict[str, dict]:
    """The rules the default configuration uses, each with its default parameters."""
    return {name: dict(rule.params) for name, rule in RULES.items() if rule.default}


def resolved(rules: Mapping[str, Mapping | None | bool], owner: str = "PipelineConfig.rules") -> dict[str, dict]:
    """``rules`` (name -> parameters; ``{}``, ``True`` or a partial mapping take the defaults, ``None`` or ``False``
    drop the rule) checked against :data:`RULES`, each with every parameter filled in. An unknown rule or parameter,
    or a value outside its bound, is an :class:`~clarion.errors.InputError` naming it and the allowed names."""
    if not isinstance(rules, Mapping):
        raise InputError(f"{owner} must map rule names to parameters, got {rules!r}")
    out: dict[str, dict] = {}
    for name, given in rules.items():
        if given is None or given is False:
            continue
        rule = RULES.get(name)
        if rule is None and name in REMOVED_RULES:
            raise removed(name, owner)
        if rule is None:
            raise InputError(f"{owner}: no rule {name!r}; rules: {', '.join(RULES)}")
        given = {} if given is True else given
        if not isinstance(given, Mapping):
            raise InputError(f"{owner}.{name} takes parameters ({', '.join(rule.params) or 'none'}), got {given!r}")
        unknown = sorted(set(given).difference(rule.params))
        if unknown:
            raise InputError(f"{owner}.{name} has no parameter {unknown[0]!r} ({', '.join(rule.params) or 'none'})")
        params = {**rule.params, **given}
        for key, bound in rule.bounds.items():
            bound.check(f"{owner}.{name}.{key}", params[key], exact=True)
        out[name] = params
    return {name: out[name] for name in RULES if name in out}  # one order: the registry's

"""Named heuristic rules: what each does, its parameters, registered by name in one registry.

A rule is a heuristic a task applies on top of its trained models. Two tasks have rules: ``dstc``, the
knowledge-grounded pipeline (acting in its detection, snippet selection or response stages), and ``converse``, the
conversation engine's policy (:mod:`clarion.dialogue.policy`). Every rule has a name, its task, the stage it acts
in, one sentence saying what it does and its parameters with their defaults. Whoever applies a task's rules holds
the switched-on ones as a mapping (rule name -> parameters: ``PipelineConfig.rules`` for ``dstc``, the engine's
``rules`` for ``converse``); a rule absent from it is off. ``docs/rules.md`` has each rule's measured contribution
(the rule switched off) and how to add one.

>>> RULES["ask_entity"].stage, RULES["closing"].task
('dialogue', 'converse')
>>> resolved({"ask_entity": True})
{'ask_entity': {}}
>>> list(default_rules("converse"))
['closing', 'settled', 'specific_question']
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from clarion.bounds import Bound
from clarion.errors import InputError

TASKS = ("dstc", "converse")
"""The tasks that have rules: the DSTC pipeline and the conversation engine's policy."""


@dataclass(frozen=True)
class Rule:
    """A named heuristic of ``task`` (:data:`TASKS`): the ``stage`` it acts in, what it does, its parameters (name ->
    default) and their bounds; ``default``: whether the default configuration uses it; ``training``: whether
    training reads it (switching it needs a new model)."""

    name: str
    stage: str
    summary: str
    params: Mapping[str, float | None] = field(default_factory=dict)
    bounds: Mapping[str, Bound] = field(default_factory=dict)
    default: bool = True
    training: bool = False
    task: str = "dstc"


RULES: dict[str, Rule] = {}
"""Every rule of every task by name, in the order the docs list them."""


def register(rule: Rule) -> Rule:
    """Add ``rule`` to :data:`RULES` (a name registered twice, or an unknown task, is a programming error)."""
    if rule.name in RULES:
        raise ValueError(f"rule {rule.name!r} registered twice")
    if rule.task not in TASKS:
        raise ValueError(f"rule {rule.name!r}: no task {rule.task!r} ({', '.join(TASKS)})")
    RULES[rule.name] = rule
    return rule


def _rule(name, stage, summary, params=None, bounds=None, **kwargs) -> None:
    register(Rule(name, stage, summary, dict(params or {}), dict(bounds or {}), **kwargs))


# --- dstc, entity: which place the turn is about --------------------------------------------------------------------
_rule("ask_entity", "dialogue", 'no place named in the dialogue: ask "which one do you mean?", select nothing')
# --- dstc, selection: which snippets answer ------------------------------------------------------------------------
_rule(
    "known_sets",
    "select",
    "a selection no training turn was answered with, opening with a set one was: cut the review sentences after it",
)
# --- dstc, responding: what the answer says ------------------------------------------------------------------------
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
# --- converse, policy: clarify, answer or stop (clarion.dialogue.policy) -------------------------------------------
_rule("closing", "policy", 'a turn that only closes the conversation ("thanks, bye") is a stop', task="converse")
_rule(
    "settled",
    "policy",
    "an answer that accepts the question or brings words of its own leaves `SETTLED_LEFT` of `p_unclear`",
    task="converse",
)
_rule(
    "specific_question",
    "policy",
    'a question after one fact ("Who wrote Pride and Prejudice?") is clear: `p_unclear` is 0',
    task="converse",
)


def rules_of(task: str) -> dict[str, Rule]:
    """The rules of ``task`` (:data:`TASKS`) by name, in the registry's order."""
    if task not in TASKS:
        raise ValueError(f"no task {task!r} ({', '.join(TASKS)})")
    return {name: rule for name, rule in RULES.items() if rule.task == task}


def default_rules(task: str = "dstc") -> dict[str, dict]:
    """The rules of ``task`` the default configuration uses, each with its default parameters."""
    return {name: dict(rule.params) for name, rule in rules_of(task).items() if rule.default}


def resolved(
    rules: Mapping[str, Mapping | None | bool], owner: str = "PipelineConfig.rules", task: str = "dstc"
) -> dict[str, dict]:
    """``rules`` (name -> parameters; ``{}``, ``True`` or a partial mapping take the defaults, ``None`` or ``False``
    drop the rule) checked against the rules of ``task``, each with every parameter filled in. An unknown rule (or
    another task's) or parameter, or a value outside its bound, is an :class:`~clarion.errors.InputError` naming it
    and the allowed names."""
    if not isinstance(rules, Mapping):
        raise InputError(f"{owner} must map rule names to parameters, got {rules!r}")
    known = rules_of(task)
    out: dict[str, dict] = {}
    for name, given in rules.items():
        rule = known.get(name)
        if rule is None:
            raise InputError(f"{owner}: no rule {name!r}; rules: {', '.join(known)}")
        if given is None or given is False:
            continue
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
    return {name: out[name] for name in known if name in out}  # one order: the registry's

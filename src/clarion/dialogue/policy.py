"""The decision for one user turn: clarify, answer or stop, as a policy over the need estimate and a cost of asking.

``p_unclear`` starts as the need model's probability that the request is not fully clear (ClariQ need >= 2). Each
answer the understanding model reads as settling something — it kept the question's content (the user accepted
it) or the answer brings words of its own ("no, I just want pictures of one") — multiplies it by
:data:`SETTLED_LEFT`; a bare refusal leaves it as it was, since the need is as open as before. The engine asks
while ``p_unclear`` exceeds ``cost`` (the price of one more question, on the same probability scale: 0.3 asks
readily, 0.8 seldom), a question is left to ask and fewer than :data:`MAX_QUESTIONS` were asked. A user turn that
only closes the conversation ("thanks, bye") is a stop. A request that is a question after one fact about
something named ("What is the capital of France?", "How many ounces are in a cup?") is clear: rule
``specific_question`` sets ``p_unclear`` to 0, so the engine answers. The need model cannot tell such a request
from ClariQ's ambiguous ones: trained where almost every request needs clarification, it gives every request
about the same probability.

The rules (``closing``, ``settled``, ``specific_question``) are the ``converse`` rules of the one registry,
:data:`clarion.rules.RULES`; the engine holds the switched-on ones as a mapping of their names (:func:`switched_on`),
so a benchmark can switch one off (leave it out) and measure it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType

from clarion.detect.form import asks_fact
from clarion.dialogue.understand import tokens
from clarion.errors import InputError
from clarion.rules import default_rules, resolved

TASK = "converse"
"""The task whose rules (:func:`clarion.rules.rules_of`) the policy applies."""

DEFAULT_COST = 0.5
MAX_QUESTIONS = 3
SETTLED_LEFT = 0.2
"""Share of ``p_unclear`` left after an answer that settles something: on ClariQ train (out of fold), a settling
answer leaves the facet unranked first 0.132 of the time, over a mean P(need >= 2) of 0.871 (0.15)
(``benchmarks/converse_policy_cv.py``)."""

CLOSING_WORDS = frozenset(
    "thanks thank you thx ty bye goodbye cheers ok okay great perfect that's thats all it for now nothing else "
    "done good enough fine no nope i'm im set".split()
)
"""Words of a turn that only ends the conversation (generic English)."""
CLOSING_CUES = frozenset("thanks thank thx bye goodbye cheers".split())


def closing(text: str) -> bool:
    """Rule ``closing``: every word is a closing word and one thanks or says goodbye."""
    words = tokens(text)
    return bool(words) and set(words) <= CLOSING_WORDS and bool(set(words) & CLOSING_CUES)


def specific_question(text: str) -> bool:
    """Rule ``specific_question``: :func:`clarion.detect.form.asks_fact` (a question after one fact about
    something named)."""
    return asks_fact(text)


def settles(chosen: str, new_words: int) -> bool:
    """Rule ``settled``: the answer accepted the question, or brought content of its own."""
    from clarion.dialogue.understand import AFFIRMING

    return chosen in AFFIRMING or new_words > 0


def switched_on(rules: Mapping | None = None, owner: str = "rules") -> dict[str, dict]:
    """The policy's rules that are on: ``rules`` (rule name -> parameters, ``{}`` or ``True``: on; ``None``,
    ``False`` or absent: off) checked against the ``converse`` rules of :data:`clarion.rules.RULES` (an unknown one
    is an :class:`~clarion.errors.InputError` naming ``owner``); None: every rule on by default."""
    return default_rules(TASK) if rules is None else resolved(rules, owner, TASK)


ON = MappingProxyType(switched_on())
"""The rules on by default: every one."""


def check_cost(cost: object) -> float:
    if isinstance(cost, bool) or not isinstance(cost, int | float) or not 0 <= cost <= 1:  # NaN fails too
        raise InputError(f"cost must be a number in [0, 1] (the price of a question), got {cost!r}")
    return float(cost)


@dataclass(frozen=True)
class Readings:
    """What the answers so far revealed, per answer: the chosen rewrite and how many new words it brought."""

    chosen: tuple[str, ...] = ()
    new_words: tuple[int, ...] = ()


def p_unclear(start: float, readings: Readings, rules: Mapping[str, object] = ON, request: str = "") -> float:
    """The probability the need is still unclear after the answers, from ``start`` (the estimate for the request
    alone), with the rules named in ``rules`` on (:func:`switched_on`)."""
    if "specific_question" in rules and specific_question(request):
        return 0.0
    p = start
    for chosen, new in zip(readings.chosen, readings.new_words, strict=True):
        if "settled" in rules and settles(chosen, new):
            p *= SETTLED_LEFT
    return p


def should_ask(p: float, cost: float, asked: int, has_question: bool) -> bool:
    return has_question and asked < MAX_QUESTIONS and p > cost

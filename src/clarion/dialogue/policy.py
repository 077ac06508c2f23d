"""The decision for one user turn: clarify, answer or stop, as a policy over the need estimate and a cost of asking.

``p_unclear`` starts as the need model's probability that the request is not fully clear (ClariQ need >= 2). Each
answer the understanding model reads as settling something — it kept the question's content (the user accepted
it) or the answer brings words of its own ("no, I just want pictures of one") — multiplies it by
:data:`SETTLED_LEFT`; a bare refusal leaves it as it was, since the need is as open as before. The engine asks
while ``p_unclear`` exceeds ``cost`` (the price of one more question, on the same probability scale: 0.3 asks
readily, 0.8 seldom), a question is left to ask and fewer than :data:`MAX_QUESTIONS` were asked. A user turn that
only closes the conversation ("thanks, bye") is a stop.

The rules are named and registered (:data:`RULES`), so a benchmark can switch one off and measure it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from clarion.dialogue.understand import tokens
from clarion.errors import InputError

DEFAULT_COST = 0.5
MAX_QUESTIONS = 3
SETTLED_LEFT = 0.25
"""Share of ``p_unclear`` left after an answer that settles something."""

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


def settles(chosen: str, new_words: int) -> bool:
    """Rule ``settled``: the answer accepted the question, or brought content of its own."""
    from clarion.dialogue.understand import AFFIRMING

    return chosen in AFFIRMING or new_words > 0


RULES: dict[str, Callable] = {"closing": closing, "settled": settles}
"""The policy's named rules."""


def check_cost(cost: object) -> float:
    if isinstance(cost, bool) or not isinstance(cost, int | float) or not 0 <= cost <= 1:  # NaN fails too
        raise InputError(f"cost must be a number in [0, 1] (the price of a question), got {cost!r}")
    return float(cost)


@dataclass(frozen=True)
class Readings:
    """What the answers so far revealed, per answer: the chosen rewrite and how many new words it brought."""

    chosen: tuple[str, ...] = ()
    new_words: tuple[int, ...] = ()


def p_unclear(p_need: dict[int, float], readings: Readings, rules: dict[str, Callable] = RULES) -> float:
    """The probability the need is still unclear after the answers."""
    p = 1.0 - p_need[1]
    for chosen, new in zip(readings.chosen, readings.new_words, strict=True):
        if "settled" in rules and rules["settled"](chosen, new):
            p *= SETTLED_LEFT
    return p


def should_ask(p: float, cost: float, asked: int, has_question: bool) -> bool:
    return has_question and asked < MAX_QUESTIONS and p > cost

"""Answers to a question with options: which option the user picked.

A written question with options ends "...: A, B, or C?" (:func:`clarion.dialogue.questions.options_in` reads them
back from the turn, so the service stays stateless). An answer picks an option by its position ("the second one",
"2", "the last") or by its words ("the planet", "I mean the Roman one"); the engine then reads the answer as the
option itself, so the query is narrowed by the option's words ("mercury the planet"). An answer that picks none
(it names something else: "the car brand") is read as it was typed.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from clarion.detect.form import stopwords
from clarion.dialogue.questions import options_in
from clarion.dialogue.state import Exchange, State

ORDINALS = {
    "first": 0, "1": 0, "1st": 0, "one": 0,
    "second": 1, "2": 1, "2nd": 1, "two": 1,
    "third": 2, "3": 2, "3rd": 2, "three": 2,
    "fourth": 3, "4": 3, "4th": 3, "four": 3,
}  # fmt: skip
"""Words that pick an option by its position."""
_WORD = re.compile(r"[a-z0-9]+")


def picked(answer: str, options: Sequence[str]) -> int | None:
    """The index of the option ``answer`` picks, or None: by position (:data:`ORDINALS`, "last"; only in a short
    answer), else the option sharing the most content words with the answer (a tie picks none)."""
    if not options:
        return None
    words = _WORD.findall(answer.lower())
    stop = stopwords()
    overlaps = [len(set(words) & (set(_WORD.findall(o.lower())) - stop)) for o in options]
    best = max(overlaps)
    if best > 0 and overlaps.count(best) == 1:
        return overlaps.index(best)
    if len(words) <= 4:
        if "last" in words:
            return len(options) - 1
        for word in words:
            if word in ORDINALS and ORDINALS[word] < len(options):
                return ORDINALS[word]
    return None


def with_picks(state: State) -> tuple[State, list[int | None]]:
    """``state`` with each answer that picks an option of its question read as that option, and the picks."""
    exchanges, picks = [], []
    for e in state.exchanges:
        options = options_in(e.question)
        pick = picked(e.answer, options)
        picks.append(pick)
        exchanges.append(e if pick is None else Exchange(e.question, options[pick], e.question_id))
    if not any(p is not None for p in picks):
        return state, picks
    return State(state.request, tuple(exchanges), state.last, state.pending), picks

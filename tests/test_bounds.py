"""clarion.bounds: what a setting may hold, said in one line."""

from __future__ import annotations

import doctest

import pytest

import clarion.bounds
from clarion.bounds import FLAG, Bound, as_choice
from clarion.errors import InputError
from clarion.respond.consensus import Generator


def test_the_module_examples_hold():
    assert doctest.testmod(clarion.bounds).failed == 0


@pytest.mark.parametrize(
    ("bound", "good", "bad"),
    [
        (Bound("int", 1), [1, 7, 10**9, 3.0], [0, -1, 2.5, True, "3", None, float("inf")]),
        (Bound("float", 0, open_low=True), [1e-9, 0.5, 100], [0, -1e-9, float("nan"), float("inf"), False]),
        (Bound("float", 0, 1, open_low=True), [0.5, 1], [0, 1.0000001]),
        (Bound("float", -1, 1, optional=True), [None, -1, 1], [-1.5, "0.1"]),
        (FLAG, [True, False], [0, 1, None, "True"]),
    ],
)
def test_bounds_admit_exactly_their_values(bound, good, bad):
    assert all(bound.admits(value) for value in good)
    assert not any(bound.admits(value) for value in bad)


def test_exact_ints_refuse_whole_floats_and_messages_name_the_setting():
    assert Bound("int", 1).admits(3.0) and not Bound("int", 1).admits(3.0, exact=True)
    with pytest.raises(InputError, match=r"^k must be int in \[1, 1000\], got 0$"):
        Bound("int", 1, 1000).check("k", 0)
    assert Bound("float", 0, 1, open_low=True, optional=True).text() == "float in (0, 1] or None"


def test_choices_take_members_or_their_values():
    assert as_choice("g", Generator, "lm") is as_choice("g", Generator, Generator.lm) is Generator.lm
    with pytest.raises(InputError, match="^g must be one of template, neighbour, consensus, lm, got 'gpt'$"):
        as_choice("g", Generator, "gpt")

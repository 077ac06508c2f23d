"""``benchmarks/dstc_cv.py --closings``: where BLEU's words are, bodies against closing questions."""

import pytest


@pytest.fixture(scope="module")
def dstc_cv(load_benchmark):
    return load_benchmark("dstc_cv")


def turn(target, response=None):
    return {"target": target, "response": response} if target else {"target": False}


def test_closing_report_splits_bodies_from_closing_questions(dstc_cv, capsys):
    refs = [
        turn(True, "The rooms are quiet. Would you like to book a room?"),
        turn(True, "Guests say the rooms are quiet and clean."),
        turn(False),
    ]
    hyps = [
        turn(True, "The rooms are quiet. Would you like to book a room?"),
        turn(True, "Guests found it noisy. Would you like to book a room?"),
        turn(True, "Anything else?"),  # not knowledge-seeking in the reference: not counted
    ]
    dstc_cv.closing_report(refs, hyps)
    out = capsys.readouterr().out
    assert "references 50%, responses 100%" in out
    # 26 response tokens (13a: the periods and question marks are tokens), 16 of them in the two closing questions
    assert "62% of the responses' words" in out
    # the closing questions match the one reference that has it: 8 of 16 unigrams (and of each higher order)
    assert "closing questions: 50.0 / 50.0 / 50.0 / 50.0" in out
    assert "bodies alone" in out


def test_closing_report_is_silent_without_common_turns(dstc_cv, capsys):
    dstc_cv.closing_report([turn(False)], [turn(True, "Yes.")])
    assert capsys.readouterr().out == ""

"""Whether a turn asks an opinion (the reviews answer it, not an FAQ its other words are near)."""

from __future__ import annotations

from clarion.respond.opinions import asks_opinion


def test_a_turn_asking_an_opinion_holds_a_word_of_praise_or_complaint_or_asks_the_reviews():
    """``asks_opinion``: the reviews answer these, not an FAQ about a facility their other words are near
    (``PipelineConfig.outrank_by_question``)."""
    for turn in (
        "Is the restaurant located in a nice area?",
        "Before I do, does either hotel offer friendly staff?",
        "Is the breakfast any good?",
        "Are the rooms noisy?",
        "What do reviews say about the parking?",
    ):
        assert asks_opinion(turn), turn
    for turn in (
        "Is the front desk open all night?",
        "How old do I have to be to check in at ?",  # "old" is a complaint's word, "how old" asks a rule
        "Is there a safe in the rooms?",
        "Do they sell beer?",
    ):
        assert not asks_opinion(turn), turn

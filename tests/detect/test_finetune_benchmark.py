"""``benchmarks/dstc_detect_finetune.py``: a packaged encoder fine-tuned as a classifier of the user turn."""

import numpy as np
import pytest

QUESTIONS = ["is the wifi any good?", "are the rooms clean?", "do guests like the breakfast?", "is it noisy at night?"]
REQUESTS = ["book it for 2 people", "a table for four at 7 pm", "I need it on Friday", "for 3 nights please"]


@pytest.mark.slow
def test_the_fine_tuned_encoder_learns_to_tell_questions_from_booking_requests(load_benchmark):
    from clarion.retrieve.packaged import minilm_path

    script = load_benchmark("dstc_detect_finetune")
    texts, targets = QUESTIONS + REQUESTS, np.array([1] * 4 + [0] * 4)
    test = ["is the staff friendly?", "book a room for 5 people"]
    scores = script.finetune_scores(minilm_path(), texts, targets, test, epochs=30)
    assert scores.shape == (2,) and scores[0] > 0.5 > scores[1]
    assert script.finetune_scores(minilm_path(), texts, targets, [], epochs=1).shape == (0,)

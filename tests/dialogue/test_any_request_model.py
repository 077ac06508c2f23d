"""The stored model for any request: trained (CI's sample), saved, loaded back the same."""

from __future__ import annotations

import numpy as np
import pytest

pytestmark = pytest.mark.slow


STEPS: list[list] = []


@pytest.fixture(scope="module")
def model(data_root):
    from clarion.dialogue.any_request import AnyRequest

    def progress(description, total):
        step = [description, total, 0]
        STEPS.append(step)
        return lambda n=1: step.__setitem__(2, step[2] + n)

    return AnyRequest.train(data_root, small=True, progress=progress)  # trained once for the module (about a minute)


def test_training_shows_its_steps_and_every_text_it_encodes(model):
    assert STEPS[0] == ["training the clarification model for any request", 4, 4]
    encodings = [s for s in STEPS[1:] if s[0].startswith("any request: encoding")]
    assert len(encodings) == 2 and all(total == done > 0 for _, total, done in encodings)


def test_trained_saved_and_loaded_it_assesses_the_same(tmp_path, model):
    from clarion.dialogue.any_request import AnyRequest

    requests = ["Give me a list of good coffee shops?", "What is the boiling point of water at sea level?"]
    before = model.assess(requests)
    again = AnyRequest.load(model.save(tmp_path / "any", "test"))
    after = again.assess(requests)
    assert np.allclose([p for p, _ in before], [p for p, _ in after])
    assert [w.text for _, w in before] == [w.text for _, w in after]
    assert before[0][0] > before[1][0]  # the coffee shops need a place; the boiling point is a fact
    question = "Which city or area are you looking for coffee shops in?"
    assert again.is_new_request("coffee shops", question, "how do i reset my password")
    assert not again.is_new_request("coffee shops", question, "in Lisbon, near the river")


def test_a_damaged_model_is_a_one_line_model_error(tmp_path, model):
    from clarion.dialogue.any_request import AnyRequest
    from clarion.errors import ModelError

    directory = model.save(tmp_path / "any", "test")
    (directory / "state.json").write_text("{}")
    with pytest.raises(ModelError, match="not a clarification model for any request"):
        AnyRequest.load(directory)

"""Rules removed because their measured contribution was within the noise (``clarion.rules.REMOVED_RULES``): a
configuration switching one off still works, and a model saved with them in its configuration still loads."""

from __future__ import annotations

import json

import numpy as np

from clarion.dstc.models.config import PipelineConfig
from clarion.dstc.models.modeldir import ARRAYS, STATE, load_model, save_model
from clarion.rules import REMOVED_RULES, RULES

RESPOND = {"abstain", "abstain_unrelated", "unknown_aspect", "review_floor", "last_resort_faq", "overlap_pool"}
RESPOND |= {"faq_cover", "entity_follow_up", "comparisons", "faithful", "relevance_gate", "relevance_exact"}
RESPOND |= {"detail_penalty", "faq_agreement", "denials_said", "aspect_words", "dish_answers", "downsides", "upsides"}


def test_the_removed_respond_rules_are_listed_and_no_longer_registered():
    assert RESPOND <= REMOVED_RULES and not REMOVED_RULES.intersection(RULES)
    assert "ask_entity" in RULES and PipelineConfig().uses("ask_entity")


def test_a_model_saved_with_removed_rules_loads_without_them(tiny_model, synthetic, tmp_path):
    directory = save_model(tiny_model, tmp_path / "m", "fp")
    state = json.loads((directory / STATE).read_text())
    state["config"]["rules"].update({"downsides": {}, "abstain": {"below": 0.1}, "relevance_gate": {"margin": 0.1}})
    state["bank"]["entity_names"] = [["hotel", 1, "ALPHA LODGE"]]  # what older models kept for comparisons
    (directory / STATE).write_text(json.dumps(state))
    with np.load(directory / ARRAYS) as npz:
        arrays = {k: npz[k] for k in npz.files}
    bodies = np.zeros((len(tiny_model.bank.responses), 384), np.float32)  # the relevance gate's embedded bodies
    np.savez(directory / ARRAYS, **arrays, bank_body=bodies)
    again = load_model(directory)
    assert again.config.rules == tiny_model.config.rules
    assert again.predict(synthetic) == tiny_model.predict(synthetic)


def test_a_format_1_configuration_listing_removed_rules_reads_without_them():
    old = {"detail_penalty": 0.2, "downsides": True, "abstain_below": 0.1, "relevance_gate": 0.1, "ask_entity": True}
    assert PipelineConfig.from_json(old).rules == {"ask_entity": {}}
    current = PipelineConfig.from_json({"format": 2, "rules": {"ask_entity": {}, "faq_cover": {"cover": 0.5}}})
    assert current.rules == {"ask_entity": {}}

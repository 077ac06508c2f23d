"""Rules removed because their measured contribution was within the noise (`clarion.rules.REMOVED_RULES`): switched
off they are accepted and do nothing, switched on they are a one-line error, and saved configurations drop them."""

from __future__ import annotations

import json

import pytest

from clarion.dstc.models.modeldir import STATE, load_model, save_model
from clarion.dstc.models.options import prediction_config, with_overrides
from clarion.dstc.models.pipeline import PipelineConfig
from clarion.errors import InputError
from clarion.rules import REMOVED_RULES, RULES

DETECT_STAGE = (
    "review_cues",
    "aspect_requests",
    "coordinated_detection",
    "follow_ups",
    "preference_apart",
    "rule_needs_place",
    "faq_outranks_memory",
    "unsure_outranking",
    "outrank_by_question",
    "accessibility_apart",
    "age_apart",
    "stay_ends_apart",
    "faq_every_place",
    "coordinated_faqs",
    "aspect_anchors",
)
REMOVED = "was removed because its measured contribution was within the noise"


def test_the_removed_rules_are_no_rules_and_the_kept_one_is():
    assert set(DETECT_STAGE) <= REMOVED_RULES and not REMOVED_RULES & set(RULES)
    assert PipelineConfig().uses("ask_entity")
    with pytest.raises(KeyError):
        PipelineConfig().uses("follow_ups")  # asking for a removed rule is a programming error


@pytest.mark.parametrize("name", DETECT_STAGE)
def test_a_removed_rule_switched_off_is_accepted_and_does_nothing(name):
    base = PipelineConfig()
    for setting in (f"rules.{name}=null", f"rules.{name}=false", f"{name}=false", f"{name}=null"):
        assert prediction_config(base, [setting]) == base, setting
    assert with_overrides(base, {"rules": {name: None}}) == base
    assert base.with_rules(**{name: None}) == base
    assert PipelineConfig(rules={**base.rules, name: None}) == base


@pytest.mark.parametrize("name", DETECT_STAGE)
def test_a_removed_rule_switched_on_is_an_error_naming_it(name):
    for setting in (f"rules.{name}=true", f"rules.{name}={{}}", f"{name}=true"):
        with pytest.raises(InputError, match=f"--set: rule '{name}' {REMOVED}") as err:
            prediction_config(PipelineConfig(), [setting])
        assert "\n" not in str(err.value) and "docs/rules.md" in str(err.value)
    with pytest.raises(InputError, match=f"PipelineConfig.rules: rule '{name}' {REMOVED}"):
        PipelineConfig(rules={name: {}})
    with pytest.raises(InputError, match=f"rule '{name}' {REMOVED}"):
        PipelineConfig().with_rules(**{name: {}})


def test_the_earlier_fields_of_a_removed_rule_with_parameters_follow_it():
    base = PipelineConfig()
    for setting in ("faq_fallback_memory=null", "memory_elsewhere=null", "rules.faq_outranks_memory=null"):
        assert prediction_config(base, [setting]) == base, setting
    for setting in ("faq_fallback_memory=0.7", "memory_elsewhere=0.15", "rules.faq_outranks_memory.cosine=0.6"):
        with pytest.raises(InputError, match=f"rule 'faq_outranks_memory' {REMOVED}"):
            prediction_config(base, [setting])


def test_a_configuration_listing_removed_rules_is_read_without_them():
    saved = PipelineConfig().to_json()
    saved["rules"] = {**saved["rules"], "follow_ups": {}, "faq_outranks_memory": {"cosine": 0.7, "elsewhere": 0.15}}
    assert PipelineConfig.from_json(saved) == PipelineConfig()
    # format 1: one field per rule
    old = {"aspect_anchors": True, "follow_ups": True, "faq_fallback_memory": 0.7, "memory_elsewhere": 0.15}
    upgraded = PipelineConfig.from_json({**old, "ask_entity": True})
    assert set(upgraded.rules) == {"ask_entity"}


def test_a_saved_model_whose_config_lists_removed_rules_loads_and_predicts_as_before(tiny_model, synthetic, tmp_path):
    directory = save_model(tiny_model, tmp_path / "m", "fp")
    state = json.loads((directory / STATE).read_text())
    state["config"]["rules"].update({name: {} for name in DETECT_STAGE})
    state["config"]["rules"]["faq_outranks_memory"] = {"cosine": 0.7, "elsewhere": 0.15}
    (directory / STATE).write_text(json.dumps(state))
    loaded = load_model(directory)
    assert loaded.config.rules == tiny_model.config.rules and not REMOVED_RULES & set(loaded.config.rules)
    assert loaded.predict(synthetic) == tiny_model.predict(synthetic)


RESPOND = {"abstain", "abstain_unrelated", "unknown_aspect", "review_floor", "last_resort_faq", "overlap_pool"}
RESPOND |= {"faithful", "relevance_exact"}
RESPOND |= {"detail_penalty", "faq_agreement", "denials_said", "aspect_words", "dish_answers", "downsides", "upsides"}


def test_the_removed_respond_rules_are_listed_and_no_longer_registered():
    assert RESPOND <= REMOVED_RULES and not REMOVED_RULES.intersection(RULES)
    assert "ask_entity" in RULES and PipelineConfig().uses("ask_entity")


def test_a_model_saved_with_removed_rules_loads_without_them(tiny_model, synthetic, tmp_path):
    directory = save_model(tiny_model, tmp_path / "m", "fp")
    state = json.loads((directory / STATE).read_text())
    state["config"]["rules"].update({"downsides": {}, "abstain": {"below": 0.1}, "relevance_exact": {"margin": 0.1}})
    (directory / STATE).write_text(json.dumps(state))
    again = load_model(directory)
    assert again.config.rules == tiny_model.config.rules
    assert again.predict(synthetic) == tiny_model.predict(synthetic)


def test_a_format_1_configuration_listing_removed_rules_reads_without_them():
    old = {"detail_penalty": 0.2, "downsides": True, "abstain_below": 0.1, "relevance_exact": 0.1, "ask_entity": True}
    assert PipelineConfig.from_json(old).rules == {"ask_entity": {}}
    current = PipelineConfig.from_json({"format": 2, "rules": {"ask_entity": {}, "relevance_exact": {"margin": 0.1}}})
    assert current.rules == {"ask_entity": {}}

"""``FIELD=VALUE`` settings of a pipeline configuration (`clarion.dstc.models.options`)."""

from __future__ import annotations

import pytest

from clarion.dstc.models.options import parse_settings, prediction_config, with_overrides
from clarion.dstc.models.pipeline import PipelineConfig
from clarion.errors import InputError


def test_settings_are_json_values_and_dotted_fields_nest():
    assert parse_settings(["rules.ask_entity=true", "rules.faq_cover=null", "detect.entity_faq_cosine=0.5"]) == {
        "rules": {"ask_entity": True, "faq_cover": None},
        "detect": {"entity_faq_cosine": 0.5},
    }
    assert parse_settings([]) == {}


@pytest.mark.parametrize(
    ("setting", "message"),
    [
        ("ask_entity", "expected FIELD=VALUE"),
        ("=true", "expected FIELD=VALUE"),
        ("ask_entity=yes", "the value is not JSON"),
    ],
)
def test_a_malformed_setting_is_refused_by_name(setting, message):
    with pytest.raises(InputError, match=message) as err:
        parse_settings([setting])
    assert setting in str(err.value)


def test_overrides_merge_into_a_checked_configuration():
    config = with_overrides(PipelineConfig(), {"rules": {"ask_entity": False}, "detect": {"entity_faq_cosine": 0.5}})
    assert not config.uses("ask_entity") and config.detect.entity_faq_cosine == 0.5
    assert config.detect.strip_names and PipelineConfig().uses("ask_entity")  # the rest kept, the original too
    named = with_overrides(PipelineConfig().with_rules(ask_entity=None), {"rules": {"ask_entity": True}})
    assert named.uses("ask_entity") and named.rules["ask_entity"] == {}
    with pytest.raises(InputError, match="no rule 'downside'"):
        with_overrides(PipelineConfig(), {"rules": {"downside": None}})
    with pytest.raises(InputError, match=r"no field 'ask_entity' \(a rule: rules.ask_entity\)"):
        with_overrides(PipelineConfig(), {"ask_entity": False})  # a rule is set under rules
    with pytest.raises(InputError, match="no field 'ask_entities'"):
        with_overrides(PipelineConfig(), {"ask_entities": True})
    with pytest.raises(InputError, match="rules.ask_entity has no parameter 'below'"):
        with_overrides(PipelineConfig(), {"rules": {"ask_entity": {"below": 0.2}}})
    with pytest.raises(InputError, match="detect takes fields"):
        with_overrides(PipelineConfig(), {"detect": 0.5})
    with pytest.raises(InputError, match="PipelineConfig.lm has no field 'epoch'"):
        with_overrides(PipelineConfig(), {"lm": {"epoch": 2}})


def test_prediction_settings_refuse_what_training_fixed():
    without = PipelineConfig().with_rules(ask_entity=None)
    assert prediction_config(without, ["rules.ask_entity=true"]).uses("ask_entity")
    assert not prediction_config(PipelineConfig(), ["rules.ask_entity=false"]).uses("ask_entity")
    settings = ("detect.C=1", "select.n_estimators=5", "dense=false", 'generator="lm"', "rules.relevance_gate=null")
    for setting in (*settings, "rules.relevance_gate.margin=0.2"):
        with pytest.raises(InputError, match="fixed when the model is trained"):
            prediction_config(PipelineConfig(), [setting])


RULE_NAMES = "ask_entity, known_sets, entity_follow_up, comparisons, faq_cover, relevance_gate"


@pytest.mark.parametrize(
    ("setting", "rule"),
    [
        ("rules.downsides=null", "downsides"),
        ("rules.abstain=false", "abstain"),
        ("rules.downsides=true", "downsides"),
        ("rules.abstain.below=0.2", "abstain"),
        ("rules.closing=true", "closing"),  # a rule of the conversation engine, not of the DSTC pipeline
    ],
)
def test_an_unknown_rule_on_or_off_is_a_one_line_error_naming_it(setting, rule):
    for apply in (
        lambda: prediction_config(PipelineConfig(), [setting]),
        lambda: with_overrides(PipelineConfig(), parse_settings([setting])),
    ):
        with pytest.raises(InputError) as err:
            apply()
        assert str(err.value) == f"--set: no rule {rule!r}; rules: {RULE_NAMES}"


@pytest.mark.parametrize("setting", ["detail_penalty=0", "abstain_below=null", "faithful=true", "name_article=false"])
def test_a_field_no_configuration_has_is_refused(setting):
    with pytest.raises(InputError) as err:
        prediction_config(PipelineConfig(), [setting])
    assert str(err.value) == f"--set: PipelineConfig has no field {setting.split('=')[0]!r}"

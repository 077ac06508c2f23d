"""``FIELD=VALUE`` settings of a pipeline configuration (`clarion.dstc.models.options`)."""

from __future__ import annotations

import pytest

from clarion.dstc.models.options import parse_settings, prediction_config, with_overrides
from clarion.dstc.models.pipeline import PipelineConfig
from clarion.errors import InputError


def test_settings_are_json_values_and_dotted_fields_nest():
    assert parse_settings(["ask_entity=true", "abstain_below=null", "detect.entity_faq_cosine=0.5"]) == {
        "ask_entity": True,
        "abstain_below": None,
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
    config = with_overrides(PipelineConfig(), {"ask_entity": False, "detect": {"entity_faq_cosine": 0.5}})
    assert not config.uses("ask_entity") and config.detect.entity_faq_cosine == 0.5
    assert config.detect.strip_names and PipelineConfig().uses("ask_entity")  # the rest kept, the original too
    named = with_overrides(PipelineConfig().with_rules(ask_entity=None), {"rules": {"ask_entity": True}})
    assert named.uses("ask_entity") and named.rules["ask_entity"] == {}
    with pytest.raises(InputError, match="no rule 'downside'"):
        with_overrides(PipelineConfig(), {"rules": {"downside": None}})
    with pytest.raises(InputError, match="name_article was a rule fitted to one dataset's wording"):
        with_overrides(PipelineConfig(), {"name_article": False})
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
    assert prediction_config(without, ["ask_entity=true"]).uses("ask_entity")
    assert prediction_config(without, ["rules.ask_entity=true"]).uses("ask_entity")
    settings = ("detect.C=1", "select.n_estimators=5", "dense=false", 'generator="lm"', "relevance_gate=0.2")
    for setting in (*settings, "rules.relevance_gate=null"):
        with pytest.raises(InputError, match="fixed when the model is trained"):
            prediction_config(PipelineConfig(), [setting])


OFF = ("rules.downsides=null", "rules.abstain=false", "detail_penalty=0", "abstain_below=null")


@pytest.mark.parametrize("setting", [*OFF, "relevance_exact=null", "rules.relevance_exact=null", "dish_answers=false"])
def test_a_removed_rule_switched_off_is_accepted_and_changes_nothing(setting):
    assert prediction_config(PipelineConfig(), [setting]) == PipelineConfig()
    assert with_overrides(PipelineConfig(), parse_settings([setting])) == PipelineConfig()


@pytest.mark.parametrize(
    ("setting", "rule"),
    [
        ("rules.downsides=true", "downsides"),
        ("rules.abstain.below=0.2", "abstain"),
        ("detail_penalty=0.3", "detail_penalty"),
        ("abstain_below=0.1", "abstain"),
        ("faithful=true", "faithful"),
    ],
)
def test_a_removed_rule_switched_on_is_a_one_line_error_naming_it(setting, rule):
    with pytest.raises(InputError) as err:
        prediction_config(PipelineConfig(), [setting])
    assert str(err.value) == (
        f"--set: rule {rule!r} was removed because its measured contribution was within the noise (docs/rules.md)"
    )

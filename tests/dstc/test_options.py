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
    named = with_overrides(PipelineConfig(), {"rules": {"downsides": None, "abstain": {"below": 0.2}}})
    assert not named.uses("downsides") and named.param("abstain", "below") == 0.2 and named.uses("upsides")
    assert with_overrides(PipelineConfig(), {"detail_penalty": 0.3}).param("detail_penalty", "penalty") == 0.3
    with pytest.raises(InputError, match="no rule 'downside'"):
        with_overrides(PipelineConfig(), {"rules": {"downside": None}})
    with pytest.raises(InputError, match="name_article was a rule fitted to one dataset's wording"):
        with_overrides(PipelineConfig(), {"name_article": False})
    with pytest.raises(InputError, match="no field 'ask_entities'"):
        with_overrides(PipelineConfig(), {"ask_entities": True})
    with pytest.raises(InputError, match="rules.abstain.below must be float"):  # out of its bounds
        with_overrides(PipelineConfig(), {"abstain_below": "high"})
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

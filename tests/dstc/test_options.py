"""``FIELD=VALUE`` settings of a pipeline configuration (`clarion.dstc.models.options`)."""

from __future__ import annotations

import pytest

from clarion.dstc.models.options import parse_settings, prediction_config, with_overrides
from clarion.dstc.models.pipeline import PipelineConfig
from clarion.errors import InputError


def test_settings_are_json_values_and_dotted_fields_nest():
    assert parse_settings(["aspect_anchors=true", "abstain_below=null", "detect.entity_faq_cosine=0.5"]) == {
        "aspect_anchors": True,
        "abstain_below": None,
        "detect": {"entity_faq_cosine": 0.5},
    }
    assert parse_settings([]) == {}


@pytest.mark.parametrize(
    ("setting", "message"),
    [
        ("aspect_anchors", "expected FIELD=VALUE"),
        ("=true", "expected FIELD=VALUE"),
        ("aspect_anchors=yes", "the value is not JSON"),
    ],
)
def test_a_malformed_setting_is_refused_by_name(setting, message):
    with pytest.raises(InputError, match=message) as err:
        parse_settings([setting])
    assert setting in str(err.value)


def test_overrides_merge_into_a_checked_configuration():
    config = with_overrides(PipelineConfig(), {"aspect_anchors": True, "detect": {"entity_faq_cosine": 0.5}})
    assert config.uses("aspect_anchors") and config.detect.entity_faq_cosine == 0.5
    assert config.detect.strip_names and not PipelineConfig().uses("aspect_anchors")  # the rest kept, the original too
    named = with_overrides(PipelineConfig(), {"rules": {"ask_entity": None, "faq_outranks_memory": {"cosine": 0.6}}})
    assert not named.uses("ask_entity") and named.param("faq_outranks_memory", "cosine") == 0.6
    assert with_overrides(PipelineConfig(), {"faq_fallback_memory": 0.5}).param("faq_outranks_memory", "cosine") == 0.5
    with pytest.raises(InputError, match="no rule 'downside'"):
        with_overrides(PipelineConfig(), {"rules": {"downside": None}})
    with pytest.raises(InputError, match="name_article was a rule fitted to one dataset's wording"):
        with_overrides(PipelineConfig(), {"name_article": False})
    with pytest.raises(InputError, match="no field 'aspect_anchor'"):
        with_overrides(PipelineConfig(), {"aspect_anchor": True})
    with pytest.raises(InputError, match="rules.faq_outranks_memory.cosine must be float"):  # out of its bounds
        with_overrides(PipelineConfig(), {"faq_fallback_memory": "high"})
    with pytest.raises(InputError, match="detect takes fields"):
        with_overrides(PipelineConfig(), {"detect": 0.5})
    with pytest.raises(InputError, match="PipelineConfig.lm has no field 'epoch'"):
        with_overrides(PipelineConfig(), {"lm": {"epoch": 2}})


def test_prediction_settings_refuse_what_training_fixed():
    assert prediction_config(PipelineConfig(), ["aspect_anchors=true"]).uses("aspect_anchors")
    assert prediction_config(PipelineConfig(), ["rules.aspect_anchors=true"]).uses("aspect_anchors")
    for setting in ("detect.C=1", "select.n_estimators=5", "dense=false", 'generator="lm"'):
        with pytest.raises(InputError, match="fixed when the model is trained"):
            prediction_config(PipelineConfig(), [setting])


OFF = ("rules.downsides=null", "rules.abstain=false", "detail_penalty=0", "abstain_below=null", "faq_cover=0")


@pytest.mark.parametrize("setting", [*OFF, "relevance_gate=null", "rules.relevance_gate=null", "dish_answers=false"])
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
        ("entity_follow_up=true", "entity_follow_up"),
    ],
)
def test_a_removed_rule_switched_on_is_a_one_line_error_naming_it(setting, rule):
    with pytest.raises(InputError) as err:
        prediction_config(PipelineConfig(), [setting])
    assert str(err.value) == (
        f"--set: rule {rule!r} was removed because its measured contribution was within the noise (docs/rules.md)"
    )

"""The DSTC model's configuration refuses values it cannot train or predict with, naming the field."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest

from clarion.detect.knowledge import DetectConfig
from clarion.dstc.models.modeldir import STATE, load_model, save_model
from clarion.dstc.models.pipeline import PipelineConfig
from clarion.errors import InputError, ModelError
from clarion.rerank.snippets import SelectConfig, SelectModel
from clarion.respond.consensus import Generator
from clarion.respond.lm import LmConfig


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda: DetectConfig(threshold=1.5), r"DetectConfig.threshold must be float in \[0, 1\], got 1.5"),
        (lambda: DetectConfig(C=0), r"DetectConfig.C must be float in \(0, inf\), got 0"),
        (lambda: DetectConfig(lm_layer=31), r"DetectConfig.lm_layer must be int in \[1, 30\] or None, got 31"),
        (lambda: DetectConfig(faq_rule="yes"), "DetectConfig.faq_rule must be True or False, got 'yes'"),
        (lambda: SelectConfig(n_estimators=0), r"SelectConfig.n_estimators must be int in \[1, inf\), got 0"),
        (lambda: SelectConfig(calibration_folds=1), r"SelectConfig.calibration_folds must be int in \[2, inf\)"),
        (lambda: SelectConfig(anchor_recall=88.43), r"SelectConfig.anchor_recall must be float in \[0, 1\] or None"),
        (lambda: SelectConfig(model="svm"), "SelectConfig.model must be one of lgbm, logreg, got 'svm'"),
        (lambda: LmConfig(top_p=0), r"LmConfig.top_p must be float in \(0, 1\], got 0"),
        (lambda: LmConfig(batch=8.0), r"LmConfig.batch must be int in \[1, inf\), got 8.0"),
        (lambda: PipelineConfig(consensus_k=-3), r"PipelineConfig.consensus_k must be int in \[1, inf\), got -3"),
        (lambda: PipelineConfig(consensus_beta=0), r"PipelineConfig.consensus_beta must be float in \(0, inf\), got 0"),
        (lambda: PipelineConfig(rules={"no_such_rule": {}}), "PipelineConfig.rules: no rule 'no_such_rule'; rules: "),
        (
            lambda: PipelineConfig(rules={"ask_entity": {"above": 1}}),
            r"PipelineConfig.rules.ask_entity has no parameter 'above'",
        ),
        (
            lambda: PipelineConfig().with_rules(downsides=None),
            r"^PipelineConfig.rules: no rule 'downsides'; rules: ask_entity, known_sets, entity_follow_up, "
            r"comparisons, faq_cover, relevance_gate$",
        ),
        (lambda: PipelineConfig(rules={"abstain": {"below": 0.2}}), r"^PipelineConfig.rules: no rule 'abstain'; "),
        (lambda: PipelineConfig(rules={"relevance_exact": None}), r"^PipelineConfig.rules: no rule 'relevance_exact'"),
        (lambda: PipelineConfig(rules={"closing": {}}), r"^PipelineConfig.rules: no rule 'closing'; "),  # converse's
        (
            lambda: PipelineConfig.from_json({"rules": {"ask_entity": {}}}),
            r"^PipelineConfig: configuration format 1, expected 2; retrain the model \(clarion dstc train\)$",
        ),
        (lambda: PipelineConfig(max_contexts=0), r"PipelineConfig.max_contexts must be int in \[1, inf\) or None"),
        (lambda: PipelineConfig(generator="gpt"), "PipelineConfig.generator must be one of template, neighbour"),
        (lambda: PipelineConfig(select={}), "PipelineConfig.select must be a SelectConfig, got {}"),
    ],
)
def test_bad_values_are_refused_naming_the_field(make, message):
    with pytest.raises(InputError, match=message):
        make()


def test_consensus_beta_is_saved_and_older_models_keep_f1():
    config = PipelineConfig(consensus_beta=0.8)
    assert PipelineConfig.from_json(config.to_json()).consensus_beta == 0.8
    older = PipelineConfig().to_json()
    del older["consensus_beta"]  # a model trained before the field: its responses were chosen by F1
    assert PipelineConfig.from_json(older).consensus_beta == 1.0


def test_the_detectors_smollm2_layer_is_saved_and_older_models_have_none():
    assert PipelineConfig().detect.lm_layer == 24 and PipelineConfig.tiny().detect.lm_layer is None
    config = PipelineConfig()
    config.detect.lm_layer = 28
    assert PipelineConfig.from_json(config.to_json()).detect.lm_layer == 28
    older = PipelineConfig().to_json()
    del older["detect"]["lm_layer"]  # a model trained before the field: its detector read no SmolLM2 states
    assert PipelineConfig.from_json(older).detect.lm_layer is None


def test_optional_steps_switch_off_with_none_and_names_become_members():
    config = PipelineConfig().with_rules(ask_entity=None)
    assert not config.uses("ask_entity") and PipelineConfig().uses("ask_entity")  # the original unchanged
    assert PipelineConfig().with_rules(faq_cover={"cover": 0.7}).param("faq_cover", "cover") == 0.7
    assert PipelineConfig(generator="lm").generator is Generator.lm
    assert SelectConfig(model="logreg").model is SelectModel.logreg
    tiny_lm = replace(PipelineConfig.tiny(), generator=Generator.lm)  # to_json keeps lm settings for lm only
    assert PipelineConfig.from_json(tiny_lm.to_json()) == tiny_lm


def test_a_saved_model_whose_config_was_damaged_is_a_model_error(tiny_model, tmp_path):
    directory = save_model(tiny_model, tmp_path / "model", "fp")
    state_path = directory / STATE
    state = json.loads(state_path.read_text())
    state["config"]["consensus_k"] = 0
    state_path.write_text(json.dumps(state))
    with pytest.raises(ModelError, match=r"incomplete or incompatible DSTC model \(PipelineConfig.consensus_k must be"):
        load_model(directory)

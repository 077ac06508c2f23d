"""The ``lm`` generator (SmolLM2-135M fine-tuned): prompt, follow-up, config, errors; a tiny fine-tune (slow)."""

from __future__ import annotations

import json
import math

import pytest

from clarion.data.dstc import load_dataset
from clarion.dstc.models.modeldir import load_model, save_model
from clarion.dstc.models.pipeline import PipelineConfig
from clarion.dstc.models.train import train
from clarion.errors import ModelError
from clarion.respond.consensus import Generator
from clarion.respond.follow_up import FOLLOW_UP_OTHER, Closings, with_follow_up
from clarion.respond.lm import LmConfig, RowSampler, lm_prompt
from dstc_synthetic import write_synthetic


@pytest.fixture(scope="module")
def synthetic(tmp_path_factory):
    return load_dataset(write_synthetic(tmp_path_factory.mktemp("syn")))


def _knowledge_turn(dataset) -> int:
    return next(i for i, lab in enumerate(dataset.labels) if lab.target and lab.knowledge)


def test_prompt_holds_name_snippets_and_the_last_two_turns(synthetic):
    i = _knowledge_turn(synthetic)
    context, keys = synthetic.contexts[i], synthetic.labels[i].knowledge
    prompt = lm_prompt(synthetic.knowledge, context, keys, "Alpha Lodge")
    lines = prompt.split("\n")
    assert lines[0] == "Entity: Alpha Lodge"
    snippets = [synthetic.knowledge.snippet(k) for k in keys]
    assert lines[1 : 1 + len(keys)] == [
        f"Review: {s.body}" if s.doc_type == "review" else f"FAQ: {s.text}" for s in snippets
    ]
    assert lines[-2] == f"User: {context.last_user_text}" and lines[-1] == "System:"
    assert len(lines) == 1 + len(keys) + min(2, len(context.turns)) + 1


def test_follow_up_replaces_the_lm_closing_question():
    hotel, restaurant = [("hotel", 1, 0, 0)], [("restaurant", 2, 0)]
    closings = Closings({"hotel": "Shall I book a room?"}, "Shall I book a table?")
    own = "It is quiet. Do you want to know more?"
    assert with_follow_up(own, hotel, closings=closings) == "It is quiet. Shall I book a room?"
    assert with_follow_up("It is quiet.", restaurant, closings=closings) == "It is quiet. Shall I book a table?"
    assert with_follow_up(own, hotel) == f"It is quiet. {FOLLOW_UP_OTHER}"  # no closings learnt


def test_lm_settings_are_part_of_the_config_only_for_the_lm_generator():
    config = PipelineConfig(generator=Generator.lm, lm=LmConfig(epochs=3))
    assert PipelineConfig.from_json(config.to_json()) == config
    assert "lm" not in PipelineConfig().to_json()  # the other generators' model directories keep their hash


def test_lm_generator_on_a_model_without_lm_is_a_clear_error(synthetic):
    model, _ = train(synthetic, PipelineConfig.tiny())
    model.config.generator = Generator.lm
    with pytest.raises(ModelError, match="no fine-tuned LM"):
        model.predict(synthetic)


def test_row_sampler_draws_per_row_and_leaves_other_rows_alone():
    torch = pytest.importorskip("torch")
    logits = torch.tensor([[0.0, 3.0, 1.0, 0.5], [2.0, 2.0, 2.0, 2.0], [5.0, 0.0, 0.0, 0.0]])

    def step(batch, rows, seeds, top_p=0.95):
        return RowSampler(rows, seeds, 0.8, top_p)(None, batch.clone())

    out = step(logits, [1, 2], [7, 8])
    assert torch.equal(out[0], logits[0])  # a greedy row is untouched
    for row in (1, 2):  # a sampled row keeps exactly one token, which greedy decoding then emits
        assert int(torch.isfinite(out[row]).sum()) == 1 and float(out[row].max()) == 0.0
    assert int(out[2].argmax()) == 0  # the nucleus of a peaked row holds its top token only
    # the same row and seed give the same draws whatever else is in the batch
    other = torch.cat([torch.zeros(2, 4), logits[1:2]])
    first = [int(step(logits, [1], [7]).argmax(dim=-1)[1]) for _ in range(5)]
    assert [int(step(other, [2], [7]).argmax(dim=-1)[2]) for _ in range(5)] == first
    assert int(step(logits, [0], [1], top_p=0.01)[0].argmax()) == 1  # top-p near 0: the argmax


@pytest.mark.slow
def test_tiny_fine_tune_generates_and_round_trips(synthetic, tmp_path, smollm2):
    config = PipelineConfig.tiny()
    config.generator = Generator.lm
    model, info = train(synthetic, config)
    assert math.isfinite(info["lm_train_loss"])
    data = synthetic.subset(range(8))
    preds = model.predict(data)
    answered = [p for p in preds if p.target and p.knowledge]
    assert answered
    closings = model.bank.closings
    questions = (*closings.by_domain.values(), closings.default, FOLLOW_UP_OTHER)
    assert all(p.response.endswith(questions) for p in answered)
    save_model(model, tmp_path / "m", "fp")
    assert (tmp_path / "m" / "lm.safetensors").is_file()
    assert load_model(tmp_path / "m").predict(data) == preds  # sampling is seeded: deterministic
    prompts = ["Entity: Alpha\nUser: Is it quiet?\nSystem:", "Entity: Beta\nUser: Is there parking?\nSystem:"]
    both = model.lm.generate(prompts)
    assert [len(c) for c in both] == [1 + config.lm.samples] * 2  # greedy + samples
    assert model.lm.generate(prompts[1:])[0][1:] == both[1][1:]  # a prompt's samples do not depend on the batch


@pytest.mark.slow
def test_training_an_lm_model_records_dev_detection_and_selection_without_generating(tmp_path, smollm2):
    from dataclasses import replace

    from clarion.dstc.models.default import train_into
    from clarion.dstc.models.pipeline import DataSplit

    data = write_synthetic(tmp_path / "data")
    config = replace(PipelineConfig.tiny(), generator=Generator.lm)
    lm_dir = train_into(data, DataSplit.train, tmp_path / "lm", config)
    plain_dir = train_into(data, DataSplit.train, tmp_path / "plain", replace(config, generator=Generator.consensus))
    lm_dev = json.loads((lm_dir / "meta.json").read_text())["metrics"]["dev"]
    plain_dev = json.loads((plain_dir / "meta.json").read_text())["metrics"]["dev"]
    assert set(lm_dev) == {"detection", "selection"} and "generation" in plain_dev
    assert lm_dev["detection"] == plain_dev["detection"] and lm_dev["selection"] == plain_dev["selection"]
    assert (lm_dir / "lm.safetensors").is_file()

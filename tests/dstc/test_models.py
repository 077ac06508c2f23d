"""The DSTC pipeline: the template generator and the prediction contract (tiny settings)."""

from __future__ import annotations

import numpy as np
import pytest
from tracker_names import NAMES

from clarion.data.dstc import Label, load_dataset, parse_labels, predictions_to_json
from clarion.data.dstc_schema import Format
from clarion.dstc.models.modeldir import load_model, save_model
from clarion.dstc.models.pipeline import PipelineConfig
from clarion.dstc.models.train import train
from clarion.errors import InputError, ModelError
from clarion.ground.names import display_name, swap_entity
from clarion.rerank.snippets import Selector
from clarion.respond.consensus import NeighbourBank, neighbour_response
from clarion.respond.pool import mbr_choice
from clarion.respond.template import Selected, snippets_response, template_response, third_person
from clarion.types import Snippet


def test_third_person_and_display_name():
    assert third_person("I loved my room and we slept well.") == "they loved their room and they slept well."
    assert third_person("I was happy.") == "they were happy."
    assert third_person("My wife and I had the Ma Po Tofu.") == "they and their wife had the Ma Po Tofu."
    assert third_person("My best friends and I come here.") == "they and their best friends come here."
    assert third_person("Me and my wife loved it.") == "they and their wife loved it."
    assert third_person("We ate, and my wife and I left.") == "they ate, and they and their wife left."
    assert display_name("ROSA'S BED AND BREAKFAST") == "Rosa's Bed and Breakfast"
    assert display_name("Good Hotel") == "Good Hotel"
    assert display_name(None) == "this place"


def test_template_uses_faq_answer_then_reported_reviews():
    selected = Selected("Alpha", reviews=("I loved the quiet room.", "Our view was great!"), faqs=("Free parking.",))
    assert template_response(selected) == (
        "Free parking. Guests of Alpha say that they loved the quiet room, and their view was great."
    )
    assert template_response(Selected("Alpha")).startswith("I'm sorry")


def test_snippets_answer_each_entity_under_its_own_name():
    snippets = [
        Snippet("hotel", 1, 0, 0, "review", "", "I loved the quiet room.", "ASHLEY HOTEL"),
        Snippet("hotel", 2, 3, None, "faq", "Is breakfast free?", "Breakfast is free.", "LOVELL LODGE"),
        Snippet("hotel", 1, 1, 0, "review", "", "Our view was great!", "ASHLEY HOTEL"),
    ]
    assert snippets_response(snippets, NAMES) == (
        "Guests of Ashley Hotel say that they loved the quiet room, and their view was great. "
        "Lovell Lodge: Breakfast is free."  # two places: an answer that does not say whose is named
    )
    named = Snippet("hotel", 2, 4, None, "faq", "Is there a gym?", "The Lovell Lodge has no gym.", "LOVELL LODGE")
    assert snippets_response([snippets[0], named], NAMES).endswith(" The Lovell Lodge has no gym.")
    assert snippets_response(snippets[1:2], NAMES) == template_response(
        Selected("Lovell Lodge", faqs=("Breakfast is free.",))
    )


def test_swap_entity_and_neighbour_response():
    assert swap_entity("Yes, the Ashley Hotel is quiet.", "ASHLEY HOTEL", "Lovell Lodge") == (
        "Yes, Lovell Lodge is quiet."
    )
    bank = NeighbourBank(
        ["The Ashley is quiet.", "Lovell Lodge has a view."],
        ["ASHLEY HOTEL", "LOVELL LODGE"],
        np.eye(2, 384, dtype=np.float32),
        np.zeros((2, 384), dtype=np.float32),
    )
    query = np.eye(1, 384, 1, dtype=np.float32)[0]
    assert neighbour_response(bank, query, np.zeros(384, np.float32), "Beta House", k=1) == "Beta House has a view."


def test_mbr_choice_prefers_the_consensus_candidate():
    candidates = ["the rooms are quiet", "guests say the rooms are quiet and clean", "free parking", "rooms quiet"]
    assert mbr_choice(candidates) == 0
    assert mbr_choice(["only"]) == 0


def test_selector_threshold_keeps_at_least_the_best():
    sel = Selector()
    sel.threshold = 0.5
    assert sel.choose(np.array([0.1, 0.7, 0.6])) == [1, 2]
    assert sel.choose(np.array([0.1, 0.2])) == [1]
    assert sel.choose(np.array([0.1, 0.7, 0.6]), ranked=True) == [1, 2, 0]


# --- the prediction contract ------------------------------------------------------------------------------


def test_predictions_match_logs_and_validate(tiny_model, synthetic):
    preds = tiny_model.predict(synthetic)
    assert len(preds) == len(synthetic.contexts)
    raw = predictions_to_json(preds, synthetic.format)
    parse_labels(raw, synthetic.format, n_contexts=len(synthetic.contexts), knowledge=synthetic.knowledge)
    accuracy = np.mean([p.target == g.target for p, g in zip(preds, synthetic.labels, strict=True)])
    assert accuracy >= 0.9
    hits = [set(p.knowledge) & set(g.knowledge) for p, g in zip(preds, synthetic.labels, strict=True) if g.target]
    assert np.mean([bool(h) for h in hits]) >= 0.75


def test_predicts_dstc9_format_with_ranked_snippets(tiny_model, tiny, tmp_path):
    data = load_dataset(tiny.write_dir(tmp_path / "d9", "dstc9"), labels=False)
    preds = tiny_model.predict(data)
    raw = predictions_to_json(preds, Format.DSTC9)
    parse_labels(raw, Format.DSTC9, n_contexts=len(data.contexts), knowledge=data.knowledge)
    for pred in preds:
        if pred.target:
            assert 1 <= len(pred.knowledge) <= 5 and all(len(k) == 3 for k in pred.knowledge)


def test_save_and_load_roundtrip(tiny_model, synthetic, tmp_path):
    save_model(tiny_model, tmp_path / "m", "fp", {"x": 1})
    again = load_model(tmp_path / "m")
    assert again.predict(synthetic) == tiny_model.predict(synthetic)


def test_load_refuses_incomplete_model(tmp_path):
    (tmp_path / "m").mkdir()
    with pytest.raises(ModelError, match="no meta.json"):
        load_model(tmp_path / "m")


def test_load_refuses_a_truncated_arrays_file(tiny_model, tmp_path):
    directory = save_model(tiny_model, tmp_path / "m", "fp")
    arrays = directory / "arrays.npz"
    arrays.write_bytes(arrays.read_bytes()[:1000])
    with pytest.raises(
        ModelError, match=r"incomplete or incompatible DSTC model \(.*\); retrain it \(clarion dstc train\)"
    ):
        load_model(directory)


def test_training_needs_labels_and_both_classes(synthetic):
    no_labels = synthetic.subset(range(len(synthetic.contexts)))
    no_labels.labels = None
    with pytest.raises(InputError, match="labels.json"):
        train(no_labels, PipelineConfig.tiny())
    with pytest.raises(InputError, match="both"):
        train(synthetic.subset([0, 2, 4]), PipelineConfig.tiny())


def test_a_last_user_turn_without_words_is_not_knowledge_seeking(tiny_model, synthetic):
    """An empty ASR hypothesis or "..." asks nothing; the model answered it with "Which hotel ...?" before."""
    from dataclasses import replace as copy_with

    predicted = tiny_model.predict(synthetic)
    seeking = next(i for i, label in enumerate(predicted) if label.target)
    contexts = list(synthetic.contexts)
    for text in ("", "...", " ?! "):
        last = copy_with(contexts[seeking].turns[-1], text=text)
        contexts[seeking] = copy_with(contexts[seeking], turns=(*contexts[seeking].turns[:-1], last))
        labels = tiny_model.predict(copy_with(synthetic, contexts=contexts))
        assert labels[seeking] == Label(False)
        assert labels[:seeking] == predicted[:seeking] and labels[seeking + 1 :] == predicted[seeking + 1 :]


def test_load_refuses_bank_arrays_without_a_row_per_response(tiny_model, tmp_path):
    directory = save_model(tiny_model, tmp_path / "m", "fp")
    with np.load(directory / "arrays.npz") as npz:
        arrays = {k: npz[k] for k in npz.files}
    arrays["bank_knowledge"] = arrays["bank_knowledge"][:-1]
    np.savez(directory / "arrays.npz", **arrays)
    with pytest.raises(ModelError, match=r"incompatible DSTC model \(neighbour bank: knowledge_emb has shape"):
        load_model(directory)


def test_a_model_of_another_format_is_refused_with_one_line(tiny_model, tmp_path):
    """An older clarion's model directory (format 2: no classifier headers) is not upgraded: retrain it."""
    import json

    directory = save_model(tiny_model, tmp_path / "m", "fp")
    state = json.loads((directory / "state.json").read_text())
    for version in (2, 7, None):
        state["format_version"] = version
        (directory / "state.json").write_text(json.dumps(state))
        with pytest.raises(ModelError) as err:
            load_model(directory)
        assert str(err.value) == (
            f"{directory}: DSTC model format {version}, expected 3 (saved by another clarion); delete it and retrain "
            "it (clarion dstc train)"
        )

"""The DSTC pipeline: the template generator and the prediction contract (tiny settings)."""

from __future__ import annotations

import numpy as np
import pytest
from tracker_names import NAMES, PROFILE

from clarion.data.dstc import Label, Snippet, load_dataset, parse_labels, predictions_to_json
from clarion.data.dstc_schema import Format
from clarion.dialogue.entities import EntityTracker
from clarion.dstc.models.modeldir import load_model, save_model
from clarion.dstc.models.pipeline import PipelineConfig
from clarion.dstc.models.train import train
from clarion.errors import InputError, ModelError
from clarion.rerank.snippets import Selector
from clarion.respond.consensus import NeighbourBank, neighbour_response
from clarion.respond.follow_up import Closings
from clarion.respond.names import display_name, swap_entity
from clarion.respond.pool import mbr_choice
from clarion.respond.template import Selected, snippets_response, template_response, third_person


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


def test_predictions_match_logs_and_validate(tiny_model, synthetic):
    preds = tiny_model.predict(synthetic)
    assert len(preds) == len(synthetic.contexts)
    raw = predictions_to_json(preds, synthetic.format)
    parse_labels(raw, synthetic.format, n_contexts=len(synthetic.contexts), knowledge=synthetic.knowledge)
    accuracy = np.mean([p.target == g.target for p, g in zip(preds, synthetic.labels, strict=True)])
    assert accuracy >= 0.9
    hits = [set(p.knowledge) & set(g.knowledge) for p, g in zip(preds, synthetic.labels, strict=True) if g.target]
    assert np.mean([bool(h) for h in hits]) >= 0.75


def test_a_turn_no_snippet_answers_gets_an_apology_without_knowledge(tiny_model, synthetic):
    assert (
        PipelineConfig().param("abstain", "below") == 0.1
        and PipelineConfig.from_json({}).param("abstain", "below") is None
    )
    config = tiny_model.config
    try:
        config.rules["abstain"] = {"below": 1.01}  # every snippet probability is below it: nothing fits
        preds = tiny_model.predict(synthetic)
        config.set_rule("abstain", None)  # off: the best snippets answer
        answered = tiny_model.predict(synthetic)
    finally:
        config.set_rule("abstain", {"below": PipelineConfig.tiny().param("abstain", "below")})
    seeking = [p for p in preds if p.target]
    assert seeking and all(not p.knowledge and p.response.startswith("I'm sorry") for p in seeking)
    assert [p.target for p in preds] == [p.target for p in answered]  # detection is untouched
    assert all(p.knowledge for p in answered if p.target)
    raw = predictions_to_json(preds, synthetic.format)  # still a valid prediction file
    parse_labels(raw, synthetic.format, n_contexts=len(synthetic.contexts), knowledge=synthetic.knowledge)


def test_predicts_dstc9_format_with_ranked_snippets(tiny_model, tiny, tmp_path):
    data = load_dataset(tiny.write_dir(tmp_path / "d9", "dstc9"), labels=False)
    preds = tiny_model.predict(data)
    raw = predictions_to_json(preds, Format.DSTC9)
    parse_labels(raw, Format.DSTC9, n_contexts=len(data.contexts), knowledge=data.knowledge)
    for pred in preds:
        if pred.target:
            assert 1 <= len(pred.knowledge) <= 5 and all(len(k) == 3 for k in pred.knowledge)
    # a DSTC9/10 turn is always answered with a ranking: no apology however low the scores
    before = tiny_model.config.param("abstain", "below")
    tiny_model.config.rules["abstain"] = {"below": 1.01}
    try:
        assert tiny_model.predict(data) == preds
    finally:
        tiny_model.config.set_rule("abstain", {"below": before})


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


def test_a_selection_unlike_the_turn_is_unrelated():
    from types import SimpleNamespace

    from clarion.dstc.models.pipeline import DstcModel

    turn = np.array([1.0, 0.0])
    chosen = np.array([[0.1, 0.995], [0.15, 0.989]])  # cosines 0.1 and 0.15 to the turn
    model = SimpleNamespace(config=PipelineConfig().with_rules(abstain_unrelated={"cosine": 0.2}))
    assert DstcModel._unrelated(model, chosen, turn)
    model.config.set_rule("abstain_unrelated", {"cosine": 0.12})
    assert not DstcModel._unrelated(model, chosen, turn)  # one of them is close enough
    model.config.set_rule("abstain_unrelated", None)
    assert not DstcModel._unrelated(model, chosen, turn)  # off
    model.config = PipelineConfig(dense=False).with_rules(abstain_unrelated={"cosine": 0.2})
    assert not DstcModel._unrelated(model, chosen, turn)  # no embeddings to compare
    assert (
        PipelineConfig.from_json({}).param("abstain_unrelated", "cosine") is None
    )  # models trained before it keep answering


def test_an_faq_aspect_the_place_has_no_faq_for_is_unknown():
    from types import SimpleNamespace

    from clarion.detect.faq_rule import FaqRule
    from clarion.dstc.models.pipeline import DstcModel

    def unit(rows):
        rows = np.asarray(rows, dtype=float)
        return rows / np.linalg.norm(rows, axis=1, keepdims=True)

    # FAQ questions: "is there a gym?" (another place's), "is there outdoor seating?" (this place's)
    questions = unit([[1, 0, 0, 0], [0, 1, 0, 0]])
    rule = FaqRule.gated(["gym", "seating"], questions, unit([[0, 0, 0, 1]]), cosine=0.8, margin=0.1)
    seating = SimpleNamespace(doc_type="faq", title="seating")
    gym = SimpleNamespace(doc_type="faq", title="gym")
    turn = unit([[0.9, 0.1, 0.42, 0]])[0]  # "Is there a gym?": 0.90 to the gym question, 0.10 to the seating one
    chosen = unit([[0.1, 1, 0, 0]])  # the seating FAQ, cosine 0.19 to the turn
    model = SimpleNamespace(config=PipelineConfig().with_rules(unknown_aspect={"cosine": 0.3}))
    assert DstcModel._unknown_aspect(model, rule, turn, [seating], chosen)
    assert not DstcModel._unknown_aspect(model, rule, turn, [seating, gym], chosen)  # the place has a gym FAQ
    model.config.set_rule("unknown_aspect", {"cosine": 0.15})
    assert not DstcModel._unknown_aspect(model, rule, turn, [seating], chosen)  # the choice is close enough
    model.config.set_rule("unknown_aspect", {"cosine": 0.3})
    vague = unit([[0.5, 0.1, 0.86, 0]])[0]  # near no FAQ question: the usual cosine abstention decides
    assert not DstcModel._unknown_aspect(model, rule, vague, [seating], chosen)
    assert not DstcModel._unknown_aspect(model, FaqRule(questions, 0.7), turn, [seating], chosen)  # ungated rule
    assert not DstcModel._unknown_aspect(model, None, turn, [seating], chosen)
    model.config.set_rule("unknown_aspect", None)
    assert not DstcModel._unknown_aspect(model, rule, turn, [seating], chosen)  # off
    assert (
        PipelineConfig.from_json({}).param("unknown_aspect", "cosine") is None
    )  # models trained before it keep answering


def test_a_review_aspect_the_places_reviews_never_touch_is_absent():
    from types import SimpleNamespace

    from clarion.data.dstc import parse_knowledge
    from clarion.dstc.models.pipeline import DstcModel
    from clarion.retrieve.knowledge import KnowledgeIndex

    def unit(rows):
        rows = np.asarray(rows, dtype=float)
        return (rows / np.linalg.norm(rows, axis=1, keepdims=True)).astype(np.float32)

    def place(i, sentences):
        reviews = {"0": {"sentences": {str(j): text for j, text in enumerate(sentences)}}}
        return {"name": f"PLACE {i}", "faqs": {"0": {"question": "Parking?", "answer": "Yes."}}, "reviews": reviews}

    knowledge = parse_knowledge({"restaurant": {"0": place(0, ["food", "view"]), "1": place(1, ["noise"])}})
    index = KnowledgeIndex(knowledge, None, dense=False)
    # axes: noise, food, view, parking; "Is it noisy?" is [1, 0.15, 0.1, 0] (cosine 0.98 to place 1's noise review)
    index._emb = {("restaurant", 0): unit([[0.1, 1, 0, 0], [0.1, 0, 1, 0], [0, 0, 0, 1]])}
    index._emb[("restaurant", 1)] = unit([[1, 0, 0, 0], [0, 0, 0, 1]])
    snippets = index.snippets(("restaurant", 0))
    group = SimpleNamespace(snippets=index.embeddings(("restaurant", 0)))
    turn = unit([[1, 0.15, 0.1, 0]])[0]  # 0.25 and 0.19 to place 0's reviews
    model = SimpleNamespace(config=PipelineConfig().with_rules(review_floor={"cosine": 0.3}))
    assert DstcModel._absent_review_aspect(model, index, turn, snippets, group, [0, 1])
    assert not DstcModel._absent_review_aspect(model, index, turn, snippets, group, [0, 2])  # an FAQ chosen too
    model.config.set_rule("review_floor", {"cosine": 0.2})
    assert not DstcModel._absent_review_aspect(model, index, turn, snippets, group, [0])  # a review is close enough
    model.config.set_rule("review_floor", {"cosine": 0.3})
    vague = unit([[0.2, 0.15, 0.1, 1]])[0]  # the other place's reviews no closer: not an aspect reviews discuss
    assert not DstcModel._absent_review_aspect(model, index, vague, snippets, group, [0])
    assert index.reviews_elsewhere(turn, ("restaurant", 0)) > 0.95  # place 1's one review
    model.config = PipelineConfig(dense=False).with_rules(review_floor={"cosine": 0.3})
    assert not DstcModel._absent_review_aspect(model, index, turn, snippets, group, [0])  # no embeddings
    model.config = PipelineConfig().with_rules(review_floor=None)
    assert not DstcModel._absent_review_aspect(model, index, turn, snippets, group, [0])  # off
    assert (
        PipelineConfig.from_json({}).param("review_floor", "cosine") is None
    )  # models trained before it keep answering


def test_before_an_apology_the_places_faq_within_the_outranking_cosine_answers():
    from types import SimpleNamespace

    from clarion.data.dstc import Snippet
    from clarion.detect.faq_rule import FaqRule
    from clarion.dstc.models.pipeline import DstcModel

    def unit(rows):
        rows = np.asarray(rows, dtype=float)
        return rows / np.linalg.norm(rows, axis=1, keepdims=True)

    # the Lensfield Hotel's FAQ "Can I bring my dog?"; "Do they allow pets?" is 0.53 from it, below the 0.6 floor
    dog = Snippet("hotel", 29, 5, None, "faq", "Can I bring my dog?", "Pets are not allowed here.", "THE LENSFIELD")
    rule = FaqRule.gated([dog.title], unit([[1, 0, 0]]), unit([[0, 0, 1]]), cosine=0.8, margin=0.1)
    review = Snippet("hotel", 29, 0, 1, "review", "", "The room was quiet.", "THE LENSFIELD")
    index = SimpleNamespace(knowledge=SimpleNamespace(entity_names={("hotel", 29): "THE LENSFIELD"}))
    model = SimpleNamespace(
        config=PipelineConfig(),
        bank=SimpleNamespace(closings=Closings()),
        _no_answer=DstcModel._no_answer,
    )
    model._faq_answer = lambda *args: DstcModel._faq_answer(model, *args)
    pets = unit([[0.53, 0.848, 0]])[0]
    label, pool = DstcModel._apology(model, index, [("hotel", 29)], rule, pets, [review, dog])
    assert label.target and label.knowledge == (dog.key,) and pool is None
    assert label.response.startswith("Pets are not allowed here.")
    sauna = unit([[0.4, 0.917, 0]])[0]  # nothing within 0.5: the apology
    label, _ = DstcModel._apology(model, index, [("hotel", 29)], rule, sauna, [review, dog])
    assert label.knowledge == () and label.response.startswith("I'm sorry, I could not find any information")
    assert DstcModel._apology(model, index, [("hotel", 29)], None, pets, [review, dog])[0].knowledge == ()  # no rule
    model.config.set_rule("last_resort_faq", None)
    assert DstcModel._apology(model, index, [("hotel", 29)], rule, pets, [review, dog])[0].knowledge == ()  # off
    assert not PipelineConfig.from_json({}).uses("last_resort_faq")  # models trained before it keep the apology


def test_a_dish_the_turn_names_is_answered_from_the_selected_reviews_naming_it():
    from types import SimpleNamespace

    from clarion.dstc.models.pipeline import DISH_SHARE, DstcModel

    specific = frozenset({"biryani", "korma", "lake"})
    index = SimpleNamespace(
        specific_words=lambda share: specific if share == DISH_SHARE else frozenset(),
        name_words=lambda: frozenset({"nirala"}),
        knowledge=SimpleNamespace(entity_names={("restaurant", 7): "THE NIRALA"}),
    )
    dishes = Snippet("restaurant", 7, 1, 2, "review", "", "I ordered the korma and biryani.", "THE NIRALA")
    portions = Snippet("restaurant", 7, 2, 0, "review", "", "The portions are good too.", "THE NIRALA")
    assert DstcModel._dish_snippets(index, [portions, dishes], "Is the biryani good at ?", None) == [dishes]
    assert DstcModel._dish_snippets(index, [portions], "Is the biryani good?", None) == []  # no snippet names it
    assert DstcModel._dish_snippets(index, [dishes], "Is the food good?", None) == []  # no dish asked
    assert DstcModel._dish_snippets(index, [dishes], "Is the lake nice?", None) == []  # a specific word, not a food
    tracker = EntityTracker.from_names({("restaurant", 8): "KORMA PALACE"}, PROFILE)
    palace = Snippet("restaurant", 8, 0, 0, "review", "", "Korma Palace was quiet.", "KORMA PALACE")
    assert DstcModel._dish_snippets(index, [palace, dishes], "Is the korma good?", tracker) == [dishes]  # a name's
    # instead of "I could not find any information about that": the place's reviews naming the dish
    closings = Closings({"restaurant": "Would you like to make a reservation?"})
    model = SimpleNamespace(
        config=PipelineConfig(), bank=SimpleNamespace(closings=closings), _dish_snippets=DstcModel._dish_snippets
    )
    model._reported = lambda *args: DstcModel._reported(model, *args)
    label, _ = DstcModel._apology(model, index, [("restaurant", 7)], None, None, [portions, dishes], "Is the korma ok?")
    assert label.knowledge == (dishes.key,)
    assert label.response == (
        "Guests of The Nirala say that they ordered the korma and biryani. Would you like to make a reservation?"
    )
    assert PipelineConfig().uses("dish_answers") and not PipelineConfig.from_json({}).uses(
        "dish_answers"
    )  # older models: off


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


def test_specific_words_are_in_the_knowledge_of_few_places():
    from clarion.data.dstc import parse_knowledge
    from clarion.retrieve.knowledge import KnowledgeIndex

    places = {
        str(i): {"name": f"PLACE {i}", "faqs": {}, "reviews": {"0": {"sentences": {"0": "The food was good."}}}}
        for i in range(40)
    }
    places["0"]["reviews"]["0"]["sentences"]["1"] = "It overlooks a lake."
    places["1"]["reviews"]["0"]["sentences"]["1"] = "It overlooks a park."
    index = KnowledgeIndex(parse_knowledge({"restaurant": places}), None, dense=False)
    # "food" and "good" are in every place's knowledge; "overlooks" in 2 of 40 (5%); "it" is a stop word
    assert index.specific_words() == frozenset({"lake", "park", "overlooks"})
    assert index.words(("restaurant", 0)) >= {"lake", "overlooks", "food"}


def test_a_format_2_model_is_upgraded_when_read(tiny_model, synthetic, tmp_path):
    """Format 2 kept the selector's LightGBM text in state.json and had no classifier headers."""
    import json

    from clarion.classifier import array_text

    directory = save_model(tiny_model, tmp_path / "m", "fp")
    state = json.loads((directory / "state.json").read_text())
    with np.load(directory / "arrays.npz") as npz:
        arrays = {k: npz[k] for k in npz.files}
    selector = state["selector"]
    assert selector.pop("classifier")["kind"] == "boosted-trees" and state["detector"].pop("classifier")
    trees = sorted(k for k in arrays if k.startswith("selector_trees."))
    selector["lgbm"] = [array_text(arrays.pop(k)) for k in trees]
    state["format_version"] = 2
    (directory / "state.json").write_text(json.dumps(state))
    np.savez(directory / "arrays.npz", **arrays)
    again = load_model(directory)
    assert again.predict(synthetic) == tiny_model.predict(synthetic)
    state["format_version"] = 7
    (directory / "state.json").write_text(json.dumps(state))
    with pytest.raises(ModelError, match="model format 7, expected 3"):
        load_model(directory)

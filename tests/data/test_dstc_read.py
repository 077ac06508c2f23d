"""Reading and writing the DSTC data layer: the real validation sets, tiny round trips in both formats, snippet
lookup and references, format detection, and entity and snippet ids."""

from __future__ import annotations

import json

import pytest

from clarion.data.dstc import (
    Label,
    detect_format,
    key_of_ref,
    load_dataset,
    parse_knowledge,
    read_labels,
    ref_from_key,
    write_predictions,
)
from clarion.data.dstc_schema import Format
from clarion.errors import DataError

# ------------------------------------------------------------------------------------------- real data


def test_dstc10_val_reads(dstc9_data):
    ds = dstc9_data
    assert ds.format is Format.DSTC9
    assert len(ds.contexts) == len(ds.labels) == 263
    assert sum(label.target for label in ds.labels) == 104
    assert ds.contexts[0].turns[0].nbest  # spoken: ASR n-best on user turns
    snippets = ds.knowledge.snippets()
    assert snippets[0].key == ("hotel", 0, 0)
    assert snippets[0].doc_type is None and snippets[0].sent_id is None
    assert ("taxi", "*") in ds.knowledge.entity_names  # domain-wide docs keep the "*" entity id
    assert len({s.key for s in snippets}) == len(snippets)
    for label in ds.labels:
        assert all(key in ds.knowledge for key in label.knowledge)


def test_dstc11_val_reads(dstc11_data):
    ds = dstc11_data
    assert ds.format is Format.DSTC11
    assert len(ds.contexts) == len(ds.labels) == 3048
    assert sum(label.target for label in ds.labels) == 1546
    first = ds.knowledge.snippets()[0]
    assert first.key == ("hotel", 0, 0, 0) and first.doc_type == "review"
    assert first.entity_name == "A AND B GUEST HOUSE" and first.traveler_type == "Solo travelers"
    faqs = [s for s in ds.knowledge.snippets() if s.doc_type == "faq"]
    assert faqs and all(len(s.key) == 3 and s.title for s in faqs)
    first_target = next(label for label in ds.labels if label.target)
    assert first_target.knowledge == (("hotel", 20, 9, 4), ("hotel", 20, 6, 4), ("hotel", 20, 4, 2))
    assert first_target.response.startswith("Yes, most of the guests at Hobsons House")
    assert all(c.turns[-1].is_user and c.last_user_text for c in ds.contexts)


# ------------------------------------------------------------------------------------------ tiny round trip


def test_tiny_round_trip(tmp_path, tiny_format, tiny):
    root = tiny.write_dir(tmp_path / "d", tiny_format)
    ds = load_dataset(root)
    assert ds.format.value == tiny_format
    assert [label.target for label in ds.labels] == [False, True]
    out = tmp_path / "pred.json"
    write_predictions(out, ds.labels, ds.format, n_contexts=len(ds.contexts))
    expected = tiny.LABELS9 if tiny_format == "dstc9" else tiny.LABELS11
    assert json.loads(out.read_text()) == expected
    assert read_labels(out, ds.format, n_contexts=2, knowledge=ds.knowledge) == ds.labels


def test_labels_optional(tmp_path, tiny):
    root = tiny.write_dir(tmp_path / "d", "dstc11", raw={"labels.json": None})
    assert load_dataset(root).labels is None
    with pytest.raises(DataError, match="labels.json: no such file"):
        load_dataset(root, labels=True)


def test_snippet_lookup_and_refs(tiny):
    ds_knowledge = {"hotel": tiny.KNOWLEDGE11["hotel"]}
    from clarion.data.dstc import parse_knowledge

    kb = parse_knowledge(ds_knowledge)
    assert [s.key for s in kb.snippets()] == [("hotel", 1, 0, 0), ("hotel", 1, 0, 1), ("hotel", 1, 0)]
    assert kb.snippet(("hotel", 1, 0)).text == "Is there parking? Yes, free parking."
    assert kb.snippet(("hotel", 1, 0, 1)).text == "Noisy bar."
    assert kb.snippet(("hotel", 1, 0, 1)).to_ref() == {
        "domain": "hotel",
        "entity_id": 1,
        "doc_type": "review",
        "doc_id": 0,
        "sent_id": 1,
    }
    assert kb.entity_snippets("hotel", 1)[0].entity_name == "Alpha Hotel"
    # an FAQ's key ignores a stray sent_id; DSTC9 refs carry no doc_type
    assert key_of_ref({"domain": "h", "entity_id": 1, "doc_type": "faq", "doc_id": 2, "sent_id": 7}) == ("h", 1, 2)
    assert ref_from_key(("taxi", "*", 0), Format.DSTC9) == {"domain": "taxi", "entity_id": "*", "doc_id": 0}
    assert Label(False, (("h", 1, 2),), "x").to_json(Format.DSTC9) == {"target": False}


def test_detect_format(tiny):
    assert detect_format(tiny.KNOWLEDGE9) is Format.DSTC9
    assert detect_format(tiny.KNOWLEDGE11) is Format.DSTC11
    with pytest.raises(DataError, match="cannot tell the format"):
        detect_format({"hotel": {"1": {"name": "x"}}}, "knowledge.json")


def test_tiny_logs_and_labels_constants(tiny):
    assert len(tiny.LOGS) == len(tiny.LABELS9) == len(tiny.LABELS11) == 2


def test_entity_ids_are_integers_only_for_ascii_digits():
    from clarion.data.dstc import _entity_id

    assert _entity_id("12") == 12 and _entity_id("*") == "*"
    assert _entity_id("²") == "²" and _entity_id("٣") == "٣"  # str.isdigit says yes; int() fails or merges ids


def test_ids_that_are_one_number_twice_are_refused():
    review = {"traveler_type": "Solo", "sentences": {"0": "Clean rooms."}}
    twice = {"hotel": {"20": {"name": "A", "reviews": {"0": review}}, "020": {"name": "B", "reviews": {"0": review}}}}
    with pytest.raises(DataError, match="k.json: field hotel.020: entity id 20 is given twice"):
        parse_knowledge(twice, "k.json")
    docs = {"hotel": {"1": {"name": "A", "reviews": {"9": review, "09": review}}}}
    with pytest.raises(DataError, match="field hotel.1: snippet .* is given twice"):
        parse_knowledge(docs, "k.json")

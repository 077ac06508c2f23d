"""Readers, writers, schema errors and the dialogue split of the DSTC data layer."""

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
from clarion.dstc.split import Part, dialogue_folds, dialogue_ids, split_dataset, split_indices
from clarion.errors import DataError, InputError

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
    assert all(c.turns[-1].speaker == "U" and c.last_user_text for c in ds.contexts)


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


# ------------------------------------------------------------------------------------------- bad input

_BAD_TURN = [[{"speaker": "U"}]]
_REVIEW_NO_SENT = [
    {
        "target": True,
        "response": "r",
        "knowledge": [{"domain": "hotel", "entity_id": 1, "doc_type": "review", "doc_id": 0}],
    }
]

BAD = [
    # (format, file, content (object or raw text), expected message fragment)
    ("dstc9", "logs.json", {"a": 1}, "logs.json: top level: {'a': 1} is not of type 'array'"),
    ("dstc9", "logs.json", _BAD_TURN, "logs.json: entry 0, field [0]: 'text' is a required property"),
    ("dstc9", "logs.json", [[{"speaker": "X", "text": "hi"}]], "entry 0, field [0].speaker: 'X' is not one of"),
    ("dstc9", "logs.json", [[]], "entry 0: [] should be non-empty"),
    (
        "dstc11",
        "logs.json",
        [[{"speaker": "U", "text": "a"}, {"speaker": "S", "text": "b"}]],
        "entry 0: the last turn must be a user turn",
    ),
    ("dstc9", "logs.json", "[[{", "logs.json:1: invalid JSON"),
    ("dstc9", "logs.json", "", "logs.json: file is empty"),
    ("dstc9", "logs.json", "[]", "logs.json: no contexts"),
    (
        "dstc9",
        "logs.json",
        '[[{"speaker": "U", "text": "hi", "nbest": [{"hyp": "hi", "score": -1}, {"hyp": "hey", "score": NaN}]}]]',
        "logs.json: entry 0, turn 0, field nbest[1].score must be a finite number, got nan",
    ),
    ("dstc9", "logs.json", "[" * 100_000 + "]" * 100_000, "logs.json: invalid JSON: nested too deeply"),
    (
        "dstc9",
        "labels.json",
        [{"target": "yes"}, {"target": False}],
        "labels.json: entry 0, field target: 'yes' is not of type 'boolean'",
    ),
    (
        "dstc9",
        "labels.json",
        [{"target": False}, {"target": True, "knowledge": []}],
        "labels.json: entry 1: 'response' is a required property",
    ),
    (
        "dstc9",
        "labels.json",
        [{"target": False}, {"target": True, "response": "r", "knowledge": [{"domain": "hotel", "entity_id": 1}]}],
        "entry 1, field knowledge[0]: 'doc_id' is a required property",
    ),
    (
        "dstc9",
        "labels.json",
        [
            {"target": False},
            {"target": True, "response": "r", "knowledge": [{"domain": "hotel", "entity_id": 1, "doc_id": "0"}]},
        ],
        "entry 1, field knowledge[0].doc_id: '0' is not of type 'integer'",
    ),
    ("dstc9", "labels.json", [{"target": False}], "has 1 entries but logs.json has 2 contexts"),
    (
        "dstc9",
        "labels.json",
        [
            {"target": False},
            {"target": True, "response": "r", "knowledge": [{"domain": "hotel", "entity_id": 1, "doc_id": 9}]},
        ],
        "entry 1, field knowledge[0]: no snippet ('hotel', 1, 9) in knowledge.json",
    ),
    (
        "dstc11",
        "labels.json",
        [{"target": False}, *_REVIEW_NO_SENT],
        "entry 1, field knowledge[0]: 'sent_id' is a required property",
    ),
    (
        "dstc11",
        "labels.json",
        [
            {"target": False},
            {
                "target": True,
                "response": "r",
                "knowledge": [{"domain": "hotel", "entity_id": 1, "doc_type": "blog", "doc_id": 0}],
            },
        ],
        "field knowledge[0].doc_type: 'blog' is not one of ['review', 'faq']",
    ),
    (  # a DSTC9/10-style reference: the missing field is doc_type (not sent_id), and the first bad one is named
        "dstc11",
        "labels.json",
        [
            {"target": False},
            {"target": True, "response": "r", "knowledge": [{"domain": "hotel", "entity_id": 1, "doc_id": 0}] * 3},
        ],
        "entry 1, field knowledge[0]: 'doc_type' is a required property",
    ),
    (
        "dstc9",
        "knowledge.json",
        {"hotel": {"1": {"name": "A", "docs": {"0": {"title": "t"}}}}},
        "knowledge.json: field hotel.1.docs.0: 'body' is a required property",
    ),
    (
        "dstc9",
        "knowledge.json",
        {"hotel": {"1": {"name": "A", "docs": {"x": {"title": "t", "body": "b"}}}}},
        "knowledge.json: field hotel.1.docs: 'x' does not match",
    ),
    (
        "dstc11",
        "knowledge.json",
        {"hotel": {"1": {"name": "A", "reviews": {"0": {"sentences": {"0": 5}}}}}},
        "field hotel.1.reviews.0.sentences.0: 5 is not of type 'string'",
    ),
    (
        "dstc11",
        "knowledge.json",
        {"hotel": {"1": {"name": "A", "faqs": {"0": {"question": "q"}}}}},
        "field hotel.1.faqs.0: 'answer' is a required property",
    ),
    ("dstc9", "knowledge.json", [1, 2], "knowledge.json: expected a JSON object of domains"),
    ("dstc11", "knowledge.json", [], "entity id -> entity), got an array"),
    ("dstc9", "knowledge.json", {"hotel": {"1": {"name": "x"}}}, "knowledge.json: cannot tell the format"),
]


@pytest.mark.parametrize(("fmt", "name", "content", "message"), BAD, ids=[f"{b[1]}-{i}" for i, b in enumerate(BAD)])
def test_bad_input_is_a_one_line_data_error(tmp_path, fmt, name, content, message, tiny):
    text = content if isinstance(content, str) else json.dumps(content)
    root = tiny.write_dir(tmp_path / "d", fmt, raw={name: text})
    with pytest.raises(DataError) as err:
        load_dataset(root)
    assert message in str(err.value)
    assert "\n" not in str(err.value)
    assert str(err.value).startswith(str(root / name))


def test_missing_directory(tmp_path):
    with pytest.raises(DataError, match="data directory does not exist"):
        load_dataset(tmp_path / "nope")


def test_write_predictions_refuses_bad_lists(tmp_path, tiny):
    from clarion.data.dstc import parse_knowledge

    kb = parse_knowledge(tiny.KNOWLEDGE9)
    out = tmp_path / "pred.json"
    with pytest.raises(DataError, match="has 1 entries but logs.json has 2 contexts"):
        write_predictions(out, [Label(False)], Format.DSTC9, n_contexts=2)
    with pytest.raises(DataError, match="entry 0: 'response' is a required property"):
        write_predictions(out, [{"target": True, "knowledge": []}], Format.DSTC11)
    with pytest.raises(DataError, match=r"entry 0, field knowledge\[0\]: no snippet \('hotel', 1, 5\)"):
        write_predictions(out, [Label(True, (("hotel", 1, 5),), "r")], Format.DSTC9, knowledge=kb)
    assert not out.exists()
    assert list(tmp_path.iterdir()) == []  # no temporary file left behind


# ------------------------------------------------------------------------------------------------- split


def test_split_groups_dialogues_by_opening(tmp_path):
    from clarion.data.dstc import parse_logs

    logs = [
        [{"speaker": "U", "text": "Hi, a hotel please."}],
        [
            {"speaker": "U", "text": "Hi, a hotel please."},
            {"speaker": "S", "text": "Where?"},
            {"speaker": "U", "text": "North."},
        ],
        [
            {"speaker": "U", "text": "hi,  a hotel please."},
            {"speaker": "S", "text": "Where?"},
            {"speaker": "U", "text": "Is it quiet?"},
        ],  # a knowledge branch, re-serialised whitespace
        [
            {"speaker": "U", "text": "A taxi."},
            {"speaker": "S", "text": "To where?"},
            {"speaker": "U", "text": "Station."},
        ],
    ]
    ids = dialogue_ids(parse_logs(logs))
    assert ids[0] == ids[1] == ids[2] != ids[3]


def test_split_is_deterministic_and_disjoint(dstc11_data):
    parts = split_indices(dstc11_data.contexts)
    train, dev = parts[Part.TRAIN], parts[Part.DEV]
    assert sorted(train + dev) == list(range(3048))
    assert (len(train), len(dev)) == (2455, 593)
    ids = dialogue_ids(dstc11_data.contexts)
    assert not {ids[i] for i in train} & {ids[i] for i in dev}
    assert split_indices(dstc11_data.contexts) == parts
    dev_data = split_dataset(dstc11_data, "dev")
    assert sum(label.target for label in dev_data.labels) == 299
    assert dev_data.knowledge is dstc11_data.knowledge


def test_dialogue_folds_keep_a_dialogue_together(dstc11_data):
    train = split_dataset(dstc11_data, "train")
    folds = dialogue_folds(train.contexts, 5)
    ids = dialogue_ids(train.contexts)
    by_dialogue: dict[str, set[int]] = {}
    for did, fold in zip(ids, folds, strict=True):
        by_dialogue.setdefault(did, set()).add(fold)
    assert all(len(f) == 1 for f in by_dialogue.values())
    sizes = [folds.count(k) for k in range(5)]
    assert sizes == [470, 516, 514, 471, 484]  # the train CV folds of benchmarks/dstc_cv.py, on every machine
    assert dialogue_folds(train.contexts, 5) == folds
    for bad in (1, 0, True, 2.5):
        with pytest.raises(InputError, match="folds must be an integer of at least 2"):
            dialogue_folds(train.contexts, bad)


def test_split_bad_parameters(dstc11_data):
    with pytest.raises(InputError, match="unknown split part 'test'"):
        split_dataset(dstc11_data, "test")
    one_dialogue = dstc11_data.subset([0])
    side = "dev" if split_indices(one_dialogue.contexts)[Part.TRAIN] else "train"
    with pytest.raises(InputError, match=f"the {side} side of .* has no contexts"):
        split_dataset(one_dialogue, side)
    with pytest.raises(InputError, match="dev_percent"):
        split_indices(dstc11_data.contexts, 0)


def test_tiny_logs_and_labels_constants(tiny):
    assert len(tiny.LOGS) == len(tiny.LABELS9) == len(tiny.LABELS11) == 2


# --------------------------------------------------------------------------------- fast checks vs jsonschema

_R11 = {"domain": "hotel", "entity_id": 1, "doc_type": "review", "doc_id": 0, "sent_id": 0}
TRICKY = [
    ("logs", [[{"speaker": "U", "text": "x", "nbest": None}]], False, False),
    ("logs", [[{"speaker": "U", "text": "x", "nbest": [{"hyp": "x", "score": True}]}]], False, False),
    ("logs", [[{"speaker": "U", "text": "x", "nbest": [{"hyp": "x", "score": -3}]}]], True, True),
    ("logs", [[{"speaker": "U", "text": 5}]], False, False),
    ("logs", [], True, True),
    ("labels9", [{"target": True, "knowledge": [], "response": ""}], True, True),
    ("labels9", [{"target": 1}], False, False),
    ("labels9", [{"target": False, "knowledge": None}], False, False),
    (
        "labels9",
        [{"target": True, "knowledge": [{"domain": "taxi", "entity_id": "*", "doc_id": 1.0}], "response": ""}],
        True,
        False,
    ),
    (
        "labels9",
        [{"target": True, "knowledge": [{"domain": "taxi", "entity_id": None, "doc_id": 1}], "response": ""}],
        False,
        False,
    ),
    ("labels11", [{"target": True, "knowledge": [_R11], "response": "r"}], True, True),
    ("labels11", [{"target": True, "knowledge": [{**_R11, "sent_id": None}], "response": "r"}], False, False),
    (
        "labels11",
        [{"target": True, "knowledge": [{**_R11, "doc_type": "faq", "sent_id": "3"}], "response": "r"}],
        False,
        False,
    ),
    ("knowledge9", {}, False, False),
    ("knowledge9", {"taxi": {"*": {"name": None, "docs": {"0": {"title": "t", "body": "b"}}}}}, True, True),
    ("knowledge9", {"taxi": {"*": {"docs": {"0 ": {"title": "t", "body": "b"}}}}}, False, False),
    ("knowledge11", {"hotel": {"1": {"reviews": {"0": {"traveler_type": None, "sentences": {}}}}}}, True, True),
    ("knowledge11", {"hotel": {"1": {"reviews": None}}}, False, False),
    ("knowledge11", {"hotel": {"1": {"name": "x"}}}, False, False),
    ("knowledge11", {"hotel": {"1": {"faqs": {"2": {"question": "q", "answer": None}}}}}, False, False),
    ("knowledge11", {"hotel": {"1": {"name": 5, "faqs": {}}}}, False, False),
    ("knowledge9", {"hotel": {"1": {"name": ["x"], "docs": {}}}}, False, False),
]


@pytest.mark.parametrize(("kind", "data", "valid", "fast_accepts"), TRICKY)
def test_fast_checks_never_accept_what_the_schema_rejects(kind, data, valid, fast_accepts):
    """Each case pins the schema's verdict and the fast check's; the fast check may only be stricter (doc_id 1.0
    is a valid JSON-schema integer that it leaves to jsonschema)."""
    from jsonschema import Draft7Validator

    from clarion.data import dstc_schema as schema

    fmt = Format.DSTC11 if kind.endswith("11") else Format.DSTC9
    checks = {
        "logs": (schema.LOGS_SCHEMA, schema.logs_ok),
        "labels9": (schema.LABELS_SCHEMAS[fmt], lambda d: schema.labels_ok(d, fmt)),
        "labels11": (schema.LABELS_SCHEMAS[fmt], lambda d: schema.labels_ok(d, fmt)),
        "knowledge9": (schema.KNOWLEDGE_SCHEMAS[fmt], lambda d: schema.knowledge_ok(d, fmt)),
        "knowledge11": (schema.KNOWLEDGE_SCHEMAS[fmt], lambda d: schema.knowledge_ok(d, fmt)),
    }
    json_schema, fast = checks[kind]
    assert Draft7Validator(json_schema).is_valid(data) is valid
    assert bool(fast(data)) is fast_accepts and (valid or not fast_accepts)


def test_fast_checks_accept_the_real_files(dstc9_dir, dstc11_dir):
    from clarion.data import dstc_schema as schema
    from clarion.data.io import read_json

    for root, fmt in ((dstc9_dir, Format.DSTC9), (dstc11_dir, Format.DSTC11)):
        assert schema.logs_ok(read_json(root / "logs.json"))
        assert schema.labels_ok(read_json(root / "labels.json"), fmt)
        assert schema.knowledge_ok(read_json(root / "knowledge.json"), fmt)


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

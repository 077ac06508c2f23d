"""Bad DSTC input: schema errors as one-line DataErrors naming file, entry and field, refused prediction lists,
and the fast shape checks, which never accept what the JSON schema rejects."""

from __future__ import annotations

import json

import pytest

from clarion.data.dstc import Label, load_dataset, write_predictions
from clarion.data.dstc_schema import Format
from clarion.errors import DataError

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

"""The DSTC scorers refuse malformed turns and parameters instead of scoring them silently."""

from __future__ import annotations

import pytest

from clarion.errors import ClarionError, DataError, InputError
from clarion.evaluate import dstc9, dstc11

REF9 = {"domain": "hotel", "entity_id": 1, "doc_id": 2}
REF11 = {**REF9, "doc_type": "review", "sent_id": 0}


def _turn(ref, **fields):
    return {"target": True, "knowledge": [ref], "response": "a room", **fields}


@pytest.mark.parametrize(("module", "ref"), [(dstc9, REF9), (dstc11, REF11)], ids=["dstc9", "dstc11"])
@pytest.mark.parametrize(
    ("hyp", "message"),
    [
        ({"target": "true"}, "hyps: entry 0, field target: 'true' is not of type 'boolean'"),
        ({"target": 1}, "hyps: entry 0, field target: 1 is not of type 'boolean'"),
        ({"knowledge": []}, "hyps: entry 0: 'target' is a required property"),
        ({"target": True, "knowledge": []}, "hyps: entry 0: 'response' is a required property"),
        ({"target": True, "response": "x", "knowledge": [{"domain": "hotel"}]}, r"hyps: entry 0, field knowledge\[0\]"),
    ],
)
def test_score_names_the_bad_entry_and_field(module, ref, hyp, message):
    good = [_turn(ref)]
    assert module.score(good, good, generation=False)["detection"]["f1"] == 1.0
    with pytest.raises(DataError, match=message):
        module.score(good, [hyp], generation=False)
    with pytest.raises(DataError, match=message.replace("hyps", "refs")):
        module.score([hyp], good, generation=False)


@pytest.mark.parametrize("module", [dstc9, dstc11], ids=["dstc9", "dstc11"])
def test_score_refuses_a_non_list(module):
    with pytest.raises(InputError, match="refs must be a list of turn objects, got dict"):
        module.score({"target": False}, [], generation=False)


@pytest.mark.parametrize(
    "call",
    [
        lambda: dstc11.corpus_bleu(["a b"], ["a b", "c d"]),
        lambda: dstc11.rouge_turns(["a b", "c"], ["a b"]),
        lambda: dstc9.bleu("a b", "a b", n=0),
        lambda: dstc9.bleu("a b", None),
        lambda: dstc9.meteor(["a b"], "a b"),
        lambda: dstc9.reciprocal_rank([REF9], [REF9], k=-1),
        lambda: dstc9.recall_at_k([REF9], [REF9], k=0),
    ],
    ids=["corpus_bleu-lengths", "rouge-lengths", "bleu-n0", "bleu-none", "meteor-list", "rr-k-1", "recall-k0"],
)
def test_bad_parameters_are_input_errors(call):
    with pytest.raises(InputError):
        call()


def test_input_error_is_a_clarion_error():
    assert issubclass(InputError, ClarionError)

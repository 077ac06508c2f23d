"""The dialogue split of DSTC data: dialogues grouped by their opening, the deterministic train/dev split and the
cross-validation folds, and their parameter errors."""

from __future__ import annotations

import pytest

from clarion.data.dstc_split import Part, dialogue_folds, dialogue_ids, split_dataset, split_indices
from clarion.errors import InputError

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

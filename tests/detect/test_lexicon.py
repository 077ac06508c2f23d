"""WordNet sense counts of the lexicon features: the same as nltk's synsets give, read without building them."""

from __future__ import annotations

import pytest


@pytest.fixture(scope="module")
def wordnet():
    from clarion.wordnet import load_wordnet

    try:
        return load_wordnet()
    except Exception as err:  # noqa: BLE001  (no WordNet on this machine: nothing to compare with)
        pytest.skip(str(err))


ENTRIES = ["mercury", "jaguar", "bass", "running", "geese", "ran", "new_york", "family_tree", "better", "xqzzy", "the"]


@pytest.mark.parametrize("entry", ENTRIES)
def test_sense_counts_are_those_of_nltks_synsets(wordnet, entry):
    from clarion.wordnet import READING, sense_counts

    with READING:
        synsets = wordnet.synsets(entry)
        assert sense_counts(entry) == (len(synsets), len({s.lexname() for s in synsets}))


def test_lexicon_features_of_an_ambiguous_topic_and_an_unknown_one(wordnet):
    from clarion.detect.lexicon import LEXICON_FEATURES, lexicon_features

    mercury = dict(zip(LEXICON_FEATURES, lexicon_features("Tell me about mercury."), strict=True))
    assert mercury["wn_phrase_known"] == 1 and mercury["wn_head_domains"] >= 3  # element, planet, god, ...
    unknown = dict(zip(LEXICON_FEATURES, lexicon_features("Tell me about xqzzy."), strict=True))
    assert unknown["wn_phrase_known"] == 0 and unknown["wn_known_share"] == 0

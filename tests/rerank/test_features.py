"""The first-stage shortlist score (hand-worked)."""

from __future__ import annotations

import numpy as np

from clarion.rerank.features import FEATURES, first_stage, shortlist_score


def test_shortlist_score_propagates_to_nearest_questions():
    bal = np.asarray([[0.2, 0.0, 0.4]])
    share = np.asarray([[0.2, 0.0, 0.0]])
    lex = np.asarray([[0.0, 0.4, 0.0]])
    attached = np.asarray([[False, False, True]])
    nearest = np.asarray([[1], [2], [0]])  # one nearest neighbour each
    # own scores 0.4, 0.2, 0.4; plus half the neighbour's; attached question 2 minus 10
    got = shortlist_score(bal, share, lex, attached, nearest)
    assert np.allclose(got, [[0.5, 0.4, 0.6 - 10.0]])


def test_first_stage_reads_the_shortlist_score_column():
    block = np.zeros((1, 2, len(FEATURES)), dtype=np.float32)
    block[0, :, FEATURES.index("first_score")] = [3.0, 1.0]
    assert first_stage(block).tolist() == [[3.0, 1.0]]


def _space(generic_owners: int):
    from clarion.rerank.features import Space

    bank = [
        "do you want a map",
        "are you looking for a specific web site",
        "what is your budget",
        "do you need directions",
        "would you like reviews",
        "are you interested in prices",
    ]
    pool = ["tell me about maps", "find hotels in paris", "tell me about cameras", "tell me about bikes"]
    rng = np.random.default_rng(0)
    bank_emb = rng.normal(size=(len(bank), 8)).astype(np.float32)
    pool_emb = np.eye(4, 8, dtype=np.float32)
    pool_emb[3] = [0.8, 0.0, 0.6, 0, 0, 0, 0, 0]  # nearest labelled requests: 0, then 2
    bank_emb /= np.linalg.norm(bank_emb, axis=1, keepdims=True)
    labelled = np.asarray([True, True, True, False])
    owned = {0: np.asarray([0, 1]), 1: np.asarray([1, 2]), 2: np.asarray([3])}
    return Space(bank, bank_emb, pool, pool_emb, labelled, owned, generic_owners=generic_owners)


def test_generic_questions_join_every_shortlist_with_their_owner_share():
    space = _space(generic_owners=2)
    assert space.generic.tolist() == [1]  # "specific web site": owned by requests 0 and 1
    f = {name: k for k, name in enumerate(FEATURES)}
    for request, emb, owners in (
        ("tell me about bikes", space.pool_emb[3], 2 / 3),
        ("tell me about maps", space.pool_emb[0], 1 / 2),
    ):
        top, block = space.shortlist([request], emb[None, :], 2)
        assert top.shape == (1, 3) and top[0, -1] == 1 and 1 not in top[0, :2]
        assert block[0, -1, f["owners"]] == np.float32(owners)  # its own topic left out
        assert block[0, :2, f["owners"]].tolist() == [0.0, 0.0]
    # the unlabelled request's 2 nearest labelled requests are 0 (owns it) and 2 (does not)
    _, block = space.shortlist(["tell me about bikes"], space.pool_emb[3][None, :], 2)
    assert block[0, -1, f["owners_near"]] == np.float32(0.5)


def test_no_generic_questions_when_disabled():
    top, _ = _space(generic_owners=0).shortlist(["tell me about bikes"], np.eye(1, 8, dtype=np.float32), 2)
    assert top.shape == (1, 2)

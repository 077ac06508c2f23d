"""The question ranker's contract: what it ranks, how a new request is routed, its folds and features.

The tiny ranker is the session fixture of tests/clariq/conftest.py. The slow tier trains one with the default
encoders, all-mpnet-base-v2 beside a fine-tuned MiniLM (tests/clariq/test_ranker_training.py). Saving, loading
and input checks: tests/clariq/test_ranker_io.py.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from clarion.clariq.clarifier import Clarifier
from clarion.clariq.ranker import QuestionRanker
from clarion.clariq.ranker_config import RankerConfig
from clarion.clariq.ranker_context import insert_no_question
from clarion.clariq.ranker_route import FOREIGN, PROPAGATE, SNAP, SNAP_PACKAGED
from clarion.clariq.ranker_training import assign_folds
from clarion.data.clariq_constants import MIN_DEPTH, NO_QUESTION
from clarion.errors import InputError
from clarion.rerank.features import FORMS, question_form
from clarion.retrieve.dense import MODEL_NAME, encode_queries


def test_every_topic_gets_30_distinct_questions_strictly_decreasing(tiny_ranker):
    ranker, _, data = tiny_ranker
    topics = data.topics("dev")[:8]
    ranked = ranker.rank([t.request for t in topics], k=MIN_DEPTH)
    assert len(ranked) == len(topics)
    bank = set(data.bank)
    for pairs in ranked:
        ids = [q for q, _ in pairs]
        scores = [s for _, s in pairs]
        assert len(set(ids)) == len(ids) == MIN_DEPTH
        assert set(ids) <= bank and NO_QUESTION in ids
        assert all(a > b for a, b in zip(scores, scores[1:], strict=False))


def test_rank_is_deterministic(tiny_ranker):
    ranker, _, data = tiny_ranker
    requests = [t.request for t in data.topics("dev")[:4]]
    assert ranker.rank(requests) == ranker.rank(requests)


def test_unseen_request_is_ranked(tiny_ranker):
    ranker, _, _ = tiny_ranker
    (pairs,) = ranker.rank(["where can I buy cheap running shoes in Boston"], k=10)
    assert len(pairs) == 10


def test_the_snapping_threshold_is_the_route_encoders(tiny_ranker):
    """The packaged MiniLM's cosines run lower than the fine-tuned one's: each has the threshold chosen for it."""
    ranker, directory, _ = tiny_ranker
    assert ranker.config.finetune_epochs == 0 and ranker.router.snap == SNAP_PACKAGED < SNAP
    assert QuestionRanker.load(directory).router.snap == SNAP_PACKAGED
    config = replace(ranker.config, finetune_epochs=1.0)
    assert QuestionRanker(config, ranker.context, ranker.models, ranker.no_question_at).router.snap == SNAP


def test_a_rewording_of_a_known_request_is_ranked_as_that_request(tiny_ranker):
    ranker, directory, data = tiny_ranker
    topic, request = next(iter(data.labels("train").requests.items()))  # labelled: its questions are attached
    own = set(data.labels("train").questions[topic]) - {NO_QUESTION}
    reworded = request.lower().rstrip(".?! ") + " please"
    (known, cosine), (itself, one) = ranker.router.nearest_known([reworded, f"  {request} "])
    assert known == request and ranker.router.snap <= cosine < 1 and (itself, one) == (request, 1.0)
    router = ranker.router
    assert router.ranked_as([reworded]) == [request] and router.ranked_as([reworded], snap=None) == [reworded]
    snapped = ranker.rank([reworded], k=MIN_DEPTH)[0]
    assert snapped == ranker.rank([request], k=MIN_DEPTH)[0]
    # through the pipeline as a new topic, its own questions count as someone else's and fall out of the top 30
    as_new = ranker.rank([reworded], k=MIN_DEPTH, snap=None, open_bank=False)[0]
    found, lost = ({q for q, _ in ranked} & own for ranked in (snapped, as_new))
    assert len(found) >= len(own) / 2 > len(lost)
    bot = Clarifier(directory, ranker)
    assert bot.ranked_as(reworded) == (request, pytest.approx(cosine))
    assert bot.ranked_as(request) is None and bot.ranked_as("where can I buy cheap running shoes in Boston") is None
    assert [c.id for c in bot.rank(reworded, k=5)] == [q for q, _ in snapped[:5]]


def test_a_new_request_is_ranked_over_the_whole_bank_by_similarity(tiny_ranker):
    ranker, directory, data = tiny_ranker
    request = "where can I buy cheap running shoes in Boston"
    ((_, cosine),) = ranker.router.nearest_known([request])
    assert cosine < ranker.router.snap and ranker.router.ranked_as([request]) == [request]
    assert ranker.is_known([request]) == [False]
    ranked = ranker.rank([request], k=MIN_DEPTH)[0]
    assert ranked == ranker.rank([request], k=MIN_DEPTH, snap=None)[0]
    # the encoder's cosine over every bank question, attached ones included, less FOREIGN per word of the
    # question's own topic that the request lacks, propagated to the nearest questions; Q00001 in its usual slot
    emb = encode_queries([request], encoder=ranker.router.route_encoder)[0]
    scores = ranker.space.bank_emb @ emb - FOREIGN * ranker.space.foreign([request])[0]
    scores = scores + PROPAGATE * scores[ranker.space.nearest].mean(axis=1)  # plus its nearest questions' mean
    best = [ranker.context.bank_ids[j] for j in np.argsort(-scores, kind="stable")[: MIN_DEPTH - 1]]
    ids = [q for q, _ in ranked]
    assert [q for q in ids if q != NO_QUESTION] == best and ids[ranker.no_question_at] == NO_QUESTION
    assert any(ranker.space.attached[ranker.context.bank_ids.index(q)] for q in best)
    scores = [s for _, s in ranked]
    assert all(a > b for a, b in zip(scores, scores[1:], strict=False))
    assert ranked != ranker.rank([request], k=MIN_DEPTH, open_bank=False)[0]  # the pipeline's attached-last ranking
    # a mixed batch: each request takes its own route
    known = data.topics("dev")[0].request

    def ids_of(rankings):
        return [[q for q, _ in pairs] for pairs in rankings]

    # (ids: a batch is encoded together, which moves cosines in the seventh decimal)
    assert ids_of(ranker.rank([known, request])) == ids_of(ranker.rank([known]) + ranker.rank([request]))
    bot = Clarifier(directory, ranker)
    assert bot.is_new(request) and not bot.is_new(known)
    assert bot.is_new_many([request, known, request]) == [True, False, True] and bot.is_new_many([]) == []
    flags, emb = bot.new_and_embedded([request, known, "how do I fix a flat bicycle tire"])
    assert flags == bot.is_new_many([request, known, "how do I fix a flat bicycle tire"])  # FAR changes no answer
    assert np.allclose(emb[[0, 2]], encode_queries([request, "how do I fix a flat bicycle tire"]), atol=1e-5)
    assert not emb[1].any()  # a known request is not encoded
    assert bot.new_and_embedded([known])[0] == [False]
    for bad in (0, 1.5, True, "0.8"):
        with pytest.raises(InputError, match="snap must be"):
            ranker.rank([request], snap=bad)
    with pytest.raises(InputError, match="open_bank must be"):
        ranker.rank([request], open_bank="yes")


def test_a_composite_ranker_routes_new_requests_with_its_last_member(tiny_ranker):
    """Routing (nearest known request, whole bank) reads the last member's columns of the composite embeddings; a
    known request's embedding is its row of the pool embeddings, never encoded again."""
    ranker, _, data = tiny_ranker
    context = replace(ranker.context, encoder=(MODEL_NAME, None))  # MiniLM twice: cosines as MiniLM's alone
    composite = QuestionRanker(ranker.config, context, ranker.models, ranker.no_question_at)
    assert composite.router.route_encoder is None and composite.space.pool_emb.shape[1] == 768
    assert np.allclose(composite.router.route_pool, ranker.space.pool_emb, atol=1e-5)
    request, known = "where can I buy cheap running shoes in Boston", data.topics("dev")[0].request
    ((near, cosine),), ((alone, alone_cosine),) = (
        composite.router.nearest_known([request]),
        ranker.router.nearest_known([request]),
    )
    assert near == alone and cosine == pytest.approx(alone_cosine)
    column = composite.space.pool_column([known])[0]
    assert np.array_equal(composite.router.embed([known])[0], composite.space.pool_emb[column])

    def ids(rankings):
        return [q for q, _ in rankings[0]]

    assert ids(composite.rank([request], k=MIN_DEPTH)) == ids(ranker.rank([request], k=MIN_DEPTH))
    assert ids(composite.rank([known], k=MIN_DEPTH)) == ids(ranker.rank([known], k=MIN_DEPTH))


def test_foreign_words_are_the_owner_topics_words_the_request_lacks(tiny_ranker):
    ranker, _, data = tiny_ranker
    space, ids = ranker.space, ranker.context.bank_ids
    labels = data.labels("train")
    topic = next(t for t, r in labels.requests.items() if "obama" in r.lower())
    question = next(q for q in sorted(labels.questions[topic]) if "obama" in data.bank[q])  # attached to the topic
    j = ids.index(question)
    named = space.owner_stems[j].sum()
    assert named >= 1  # at least "obama", shared by the question and its topic's request
    lacking, having = space.foreign(["where can I buy running shoes", labels.requests[topic]])[:, j]
    assert lacking == named and having == 0
    # an unattached question is read against the unlabelled known request nearest to it
    free = int(np.flatnonzero(~space.attached)[0])
    assert space.foreign([ranker.context.bank_texts[free]])[0, free] == 0


def test_insert_no_question_keeps_order():
    ranked = [("a", 3.0), ("b", 2.0), ("c", 1.0)]
    assert insert_no_question(ranked, 1) == [("a", 3.0), (NO_QUESTION, 2.5), ("b", 2.0), ("c", 1.0)]
    assert insert_no_question(ranked, 0)[0] == (NO_QUESTION, 4.0)
    assert insert_no_question(ranked, 9)[-1] == (NO_QUESTION, 0.0)


def test_folds_are_seeded_and_balanced():
    keys = [str(i) for i in range(10)]
    folds = assign_folds(keys, 3, seed=1)
    assert folds == assign_folds(list(reversed(keys)), 3, seed=1)
    assert sorted(np.bincount(list(folds.values()))) == [3, 3, 4]


def test_seeds_default_to_the_config_seed_and_can_be_set_apart():
    default = RankerConfig(seed=7)
    assert default.finetune().seed == 7 and default.lambdamart().params["seed"] == 7
    apart = RankerConfig(seed=7, lambdamart_seed=21, finetune_seed=3)
    assert apart.finetune().seed == 3 and apart.lambdamart().params["seed"] == 21


def test_question_form():
    codes = question_form(["Are you sure?", "would you like", "tell me", ""])
    assert codes.tolist() == [FORMS.index("are"), FORMS.index("would"), len(FORMS), len(FORMS)]


def test_a_new_request_is_offered_only_the_questions_that_fit_it(tiny_ranker, monkeypatch):
    from clarion.clariq import clarifier

    ranker, directory, data = tiny_ranker
    bot = Clarifier(directory, ranker)
    request = "where can I buy cheap running shoes in Boston"
    every = bot.rank(request, k=10)
    assert bot.rank(request, k=10, fitting=False) == every  # the default: the contract of a ClariQ run
    scores = sorted(c.score for c in every if c.id != NO_QUESTION)
    monkeypatch.setattr(clarifier, "FIT", scores[len(scores) // 2])  # half of them fit
    fitting = bot.rank(request, k=10, fitting=True)
    assert fitting == [c for c in every if c.id == NO_QUESTION or c.score >= clarifier.FIT]
    assert 0 < len([c for c in fitting if c.id != NO_QUESTION]) < len(scores)
    monkeypatch.setattr(clarifier, "FIT", scores[-1] + 1)  # none fits: "ask nothing" at most
    assert {c.id for c in bot.rank(request, k=10, fitting=True)} <= {NO_QUESTION}
    known = data.topics("dev")[0].request  # a known request keeps every question, however it scores
    assert bot.rank(known, k=10, fitting=True) == bot.rank(known, k=10)
    with pytest.raises(InputError, match="fitting must be"):
        bot.rank(request, fitting="yes")


def test_a_new_request_is_encoded_once_and_threads_share_a_ranker(tiny_ranker, monkeypatch):
    """``rank``, ``ranked_as`` and ``is_new`` of one new request need its route: encoded once, then remembered; a
    ranker and its Clarifier called from eight threads at once answer as when called alone."""
    from concurrent.futures import ThreadPoolExecutor

    from clarion.retrieve import dense

    _, directory, data = tiny_ranker
    requests = ["where can I buy cheap running shoes in Boston", "how do I fix a flat bicycle tire"]
    requests += [t.request for t in data.topics("dev")[:4]]
    alone = QuestionRanker.load(directory)
    expected = [alone.rank([r], k=MIN_DEPTH)[0] for r in requests]
    bot = Clarifier(directory, QuestionRanker.load(directory))
    encoded: list[str] = []

    def counting(texts, *args, **kwargs):
        encoded.extend(texts)
        return encode_queries(texts, *args, **kwargs)

    monkeypatch.setattr(dense, "encode_queries", counting)
    bot.rank(requests[0], k=5, fitting=True), bot.ranked_as(requests[0]), bot.is_new(requests[0])
    assert encoded == [requests[0]]
    with ThreadPoolExecutor(8) as pool:
        shared = list(pool.map(lambda r: bot.ranker.rank([r], k=MIN_DEPTH)[0], requests * 4))
    # The same questions in the same order; scores equal up to their sixth decimal, where the float sums of a
    # batch can round either way after other tests changed the process's thread settings.
    assert [[q for q, _ in r] for r in shared] == [[q for q, _ in r] for r in expected * 4]
    assert [s for r in shared for _, s in r] == pytest.approx([s for r in expected * 4 for _, s in r], abs=2e-6)

"""The question ranker's contract, its save/load round trip and the Clarifier API's input checks.

A tiny ranker (3 folds, 10 boosting rounds, shortlist 35, the packaged MiniLM alone) is trained once per session
on 30 train topics; it is about the contract, not about quality. The slow tier trains one with the default
encoders, all-mpnet-base-v2 beside a fine-tuned MiniLM (tests/clariq/test_ranker_training.py).
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from clarion.clariq.clarifier import Clarifier
from clarion.clariq.constants import MAX_REQUEST_CHARS, MIN_DEPTH, NO_QUESTION, validate_request
from clarion.clariq.ranker import QuestionRanker
from clarion.clariq.ranker_config import RankerConfig
from clarion.clariq.ranker_context import Context, insert_no_question
from clarion.clariq.ranker_io import ENCODER_DIR
from clarion.clariq.ranker_route import FOREIGN, PROPAGATE, SNAP
from clarion.clariq.ranker_training import assign_folds, fit_ranker
from clarion.errors import InputError, ModelError
from clarion.rerank.features import FORMS, question_form
from clarion.retrieve.dense import MODEL_NAME, encode_queries, encoder_id, load_encoder
from clarion.retrieve.finetune import FinetuneConfig, finetune, finetuned_id


@pytest.fixture(scope="session")
def tiny_ranker(train_subset, tmp_path_factory):
    data = train_subset(30)
    config = RankerConfig(
        shortlist=MIN_DEPTH + 5, folds=3, rounds=10, min_data_in_leaf=5, stages=2, finetune_epochs=0, encoders=()
    )
    ranker = fit_ranker(QuestionRanker, data, ("train",), config)
    directory = ranker.save(tmp_path_factory.mktemp("ranker"))
    return ranker, directory, data


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


def test_save_load_round_trip(tiny_ranker):
    ranker, directory, data = tiny_ranker
    loaded = QuestionRanker.load(directory)
    requests = [t.request for t in data.topics("dev")[:4]]
    assert loaded.rank(requests) == ranker.rank(requests)
    assert loaded.no_question_at == ranker.no_question_at
    assert loaded.context.encoder is None and not (directory / ENCODER_DIR).exists()


def test_a_finetuned_encoder_travels_with_the_model(tiny_ranker, tmp_path):
    import shutil

    ranker, _, _ = tiny_ranker
    pairs = [("t1", "tell me about iron", "do you mean the metal"), ("t2", "dinosaurs", "which dinosaur")]
    config = FinetuneConfig(epochs=1, batch_size=2)
    tuned = finetune(pairs, tmp_path / "tuned", config)
    context = replace(ranker.context, encoder=str(tuned))
    directory = QuestionRanker(ranker.config, context, ranker.models, ranker.no_question_at).save(tmp_path / "m")
    loaded = QuestionRanker.load(directory)
    assert loaded.context.encoder == str(directory / ENCODER_DIR)
    assert encoder_id(loaded.context.encoder) == finetuned_id(pairs, config) != MODEL_NAME
    shutil.rmtree(tuned)  # the model directory holds its own copy
    loaded.save(directory)  # saving in place keeps it
    assert encoder_id(QuestionRanker.load(directory).context.encoder) == finetuned_id(pairs, config)
    shutil.rmtree(directory / ENCODER_DIR)
    with pytest.raises(ModelError, match="fine-tuned encoder"):
        QuestionRanker.load(directory)


def test_a_composite_encoder_travels_with_the_model(tiny_ranker, tmp_path):
    """Packaged members are saved by name, a fine-tuned member is copied; the loaded ranker ranks alike."""
    ranker, _, data = tiny_ranker
    pairs = [("t1", "tell me about iron", "do you mean the metal"), ("t2", "dinosaurs", "which dinosaur")]
    config = FinetuneConfig(epochs=1, batch_size=2)
    tuned = finetune(pairs, tmp_path / "tuned", config)
    composite = (MODEL_NAME, str(tuned))
    context = replace(ranker.context, encoder=composite)
    trained = QuestionRanker(ranker.config, context, ranker.models, ranker.no_question_at)
    directory = trained.save(tmp_path / "m")
    loaded = QuestionRanker.load(directory)
    assert loaded.context.encoder == (MODEL_NAME, str(directory / ENCODER_DIR))
    assert encoder_id(loaded.context.encoder) == f"{MODEL_NAME}+{finetuned_id(pairs, config)}"
    requests = [t.request for t in data.topics("dev")[:3]]
    assert loaded.rank(requests) == trained.rank(requests)


def test_unknown_packaged_encoders_are_refused():
    with pytest.raises(InputError, match="unknown packaged encoder"):
        RankerConfig(encoders=("bert-large",))
    assert RankerConfig(encoders=["all-mpnet-base-v2"]).encoders == ("all-mpnet-base-v2",)  # as read from JSON


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [
        ("shortlist", -1, r"shortlist must be int in \[1, inf\), got -1"),
        ("folds", 1, r"folds must be int in \[2, inf\), got 1"),
        ("stages", 0, r"stages must be int in \[1, inf\), got 0"),
        ("bag", 2.5, r"bag must be int in \[1, inf\), got 2.5"),
        ("chunk", 64.0, r"chunk must be int in \[1, inf\), got 64.0"),
        ("rounds", True, r"rounds must be int in \[1, inf\), got True"),
        ("lambdamart_seed", "13", r"lambdamart_seed must be int in \[0, inf\) or None, got \'13\'"),
        ("temperature", 0.0, r"temperature must be float in \(0, inf\), got 0.0"),
        ("learning_rate", float("nan"), r"learning_rate must be float in \(0, inf\), got nan"),
        ("finetune_epochs", -0.5, r"finetune_epochs must be float in \[0, inf\), got -0.5"),
        ("finetune_lr", float("inf"), r"finetune_lr must be float in \(0, inf\), got inf"),
    ],
)
def test_bad_config_values_are_refused_naming_the_field(field, value, message):
    with pytest.raises(InputError, match=f"RankerConfig.{message}"):
        RankerConfig(**{field: value})


def test_edge_config_values_are_accepted():
    config = RankerConfig(finetune_epochs=0, generic_owners=0, folds=2, lambdamart_seed=None, finetune_seed=0)
    assert config.finetune_epochs == 0 and config.generic_owners == 0


def test_damaged_model_files_are_model_errors(tiny_ranker, tmp_path):
    import json
    import shutil

    _, directory, _ = tiny_ranker
    copy = shutil.copytree(directory, tmp_path / "m")
    model_text = (copy / "lambdamart1.txt").read_text()
    (copy / "lambdamart1.txt").write_text(model_text[: len(model_text) // 3])
    with pytest.raises(ModelError, match="lambdamart1.txt: not a complete LightGBM model"):
        QuestionRanker.load(copy)
    (copy / "lambdamart1.txt").unlink()
    with pytest.raises(ModelError, match="lambdamart1.txt: no such file; retrain it"):
        QuestionRanker.load(copy)
    (copy / "lambdamart1.txt").write_text(model_text)
    state = json.loads((copy / "ranker.json").read_text())
    del state["context"]["pool_texts"]
    (copy / "ranker.json").write_text(json.dumps(state))
    with pytest.raises(ModelError, match="damaged ranker state"):
        QuestionRanker.load(copy)


def test_a_damaged_encoder_is_a_model_error(tmp_path):
    (tmp_path / "config.json").write_text("{")
    (tmp_path / "model.safetensors").write_bytes(b"not weights")
    with pytest.raises(ModelError, match="cannot load the sentence encoder"):
        load_encoder(tmp_path)


def test_load_rejects_missing_model(tmp_path):
    with pytest.raises(ModelError, match="not a trained question ranker"):
        QuestionRanker.load(tmp_path)
    with pytest.raises(ModelError, match="train it first"):
        Clarifier.load(tmp_path)
    with pytest.raises(InputError, match="model_dir must be a path"):
        Clarifier.load(5)
    with pytest.raises(InputError, match="progress must be a callable progress"):
        Clarifier.load(tmp_path, progress=5)


@pytest.mark.parametrize("bad", ["", "   \n", "x" * (MAX_REQUEST_CHARS + 1), None, 42, "obama \ud800"])
def test_bad_requests_are_rejected(bad):
    with pytest.raises(InputError):
        validate_request(bad)


def test_clarifier_rejects_bad_input(tiny_ranker):
    ranker, directory, _ = tiny_ranker
    bot = Clarifier(directory, ranker)
    with pytest.raises(InputError, match="empty"):
        bot.rank("  ")
    with pytest.raises(InputError, match="at most 1000"):
        bot.rank("a" * 1001)
    with pytest.raises(InputError, match="k must be"):
        bot.rank("obama family tree", k=0)
    with pytest.raises(InputError, match="threshold"):
        bot.should_clarify("obama family tree", threshold=0)
    with pytest.raises(ModelError, match="need"):
        bot.need("obama family tree")
    with pytest.raises(InputError, match="requests must be a list of strings"):
        ranker.rank("kids", k=2)  # not four one-letter requests
    with pytest.raises(InputError, match="no requests given"):
        ranker.rank([], k=2)
    for k in (2.5, "3", None):
        with pytest.raises(InputError, match="k must be an integer"):
            ranker.rank(["kids"], k=k)
    candidates = bot.rank("Tell me about Obama family tree.", k=5)
    assert [c.id for c in candidates] == [q for q, _ in ranker.rank(["Tell me about Obama family tree."], 5)[0]]
    assert all(c.text for c in candidates if c.id != NO_QUESTION)
    assert bot.rank("Tell me about Obama family tree.", k=np.int64(5)) == candidates  # numpy's integers are integers
    with pytest.raises(InputError, match="threshold"):
        bot.should_clarify("obama family tree", threshold=np.float32("nan"))


def test_a_rewording_of_a_known_request_is_ranked_as_that_request(tiny_ranker):
    ranker, directory, data = tiny_ranker
    topic, request = next(iter(data.labels("train").requests.items()))  # labelled: its questions are attached
    own = set(data.labels("train").questions[topic]) - {NO_QUESTION}
    reworded = request.lower().rstrip(".?! ") + " please"
    (known, cosine), (itself, one) = ranker.nearest_known([reworded, f"  {request} "])
    assert known == request and SNAP <= cosine < 1 and (itself, one) == (request, 1.0)
    assert ranker.ranked_as([reworded]) == [request] and ranker.ranked_as([reworded], snap=None) == [reworded]
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
    ((_, cosine),) = ranker.nearest_known([request])
    assert cosine < SNAP and ranker.ranked_as([request]) == [request] and ranker.is_known([request]) == [False]
    ranked = ranker.rank([request], k=MIN_DEPTH)[0]
    assert ranked == ranker.rank([request], k=MIN_DEPTH, snap=None)[0]
    # the encoder's cosine over every bank question, attached ones included, less FOREIGN per word of the
    # question's own topic that the request lacks, propagated to the nearest questions; Q00001 in its usual slot
    emb = encode_queries([request], encoder=ranker.route_encoder)[0]
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
    assert composite.route_encoder is None and composite.space.pool_emb.shape[1] == 768
    assert np.allclose(composite.route_pool, ranker.space.pool_emb, atol=1e-5)
    request, known = "where can I buy cheap running shoes in Boston", data.topics("dev")[0].request
    ((near, cosine),), ((alone, alone_cosine),) = composite.nearest_known([request]), ranker.nearest_known([request])
    assert near == alone and cosine == pytest.approx(alone_cosine)
    column = composite.space.pool_column([known])[0]
    assert np.array_equal(composite.embed([known])[0], composite.space.pool_emb[column])

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


def test_context_round_trip_types(tiny_ranker):
    """JSON turns the owned-question map's int keys into strings; loading must turn them back."""
    ranker, directory, _ = tiny_ranker
    loaded = QuestionRanker.load(directory).context
    assert loaded.owned == ranker.context.owned and all(type(k) is int for k in loaded.owned)
    assert len(loaded.owned) == 30 and (loaded.bank_ids, loaded.pool_texts) == (
        ranker.context.bank_ids,
        ranker.context.pool_texts,
    )
    assert Context(["Q1"], ["q"], ["r"], {0: ["Q1"]}).owned == {0: ["Q1"]}


def test_load_rejects_stale_competition_features(tiny_ranker, tmp_path):
    import json
    import shutil

    _, directory, _ = tiny_ranker
    copy = shutil.copytree(directory, tmp_path / "stale")
    state = json.loads((copy / "ranker.json").read_text())
    state["competition_features"] = state["competition_features"][:-2]
    (copy / "ranker.json").write_text(json.dumps(state))
    with pytest.raises(ModelError, match="other features"):
        QuestionRanker.load(copy)


@pytest.mark.parametrize(
    "change, message",
    [
        (lambda s: s["config"].update(competition=True), "another RankerConfig"),
        (lambda s: s["config"].pop("shortlist"), "another RankerConfig"),
        (lambda s: s.pop("no_question_at"), "not a ranker state written by this version"),
    ],
)
def test_load_rejects_a_state_of_another_version(tiny_ranker, tmp_path, change, message):
    import json
    import shutil

    _, directory, _ = tiny_ranker
    copy = shutil.copytree(directory, tmp_path / "other")
    state = json.loads((copy / "ranker.json").read_text())
    change(state)
    (copy / "ranker.json").write_text(json.dumps(state))
    with pytest.raises(ModelError, match=message):
        QuestionRanker.load(copy)


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


def test_load_reports_training_the_default_model_to_progress(monkeypatch, tmp_path):
    """Clarifier.load's progress gets the training's description and step count, and train_models its advance."""
    import clarion.clariq.train as train
    from clarion.data.clariq import ClariQ

    calls, advanced = [], []

    def progress(description, total):
        calls.append((description, total))
        return advanced.append

    def fake_train(data, splits, directory, progress=None):
        progress(1)
        raise RuntimeError("stop here")  # the wiring is what is tested, not the training

    monkeypatch.setattr(ClariQ, "load", classmethod(lambda cls, data_dir=None: None))
    monkeypatch.setattr(train, "default_model_dir", lambda data, splits: tmp_path / "absent")
    monkeypatch.setattr(train, "ready_to_train", lambda data, splits: None)
    monkeypatch.setattr(train, "train_models", fake_train)
    with pytest.raises(RuntimeError, match="stop here"):
        Clarifier.load(progress=progress)
    assert calls == [("training the ClariQ model", train.ranker_steps())] and advanced == [1]


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
    assert shared == expected * 4

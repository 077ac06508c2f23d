"""``ReplyRanker``: the respond-stage API (score, rank, load), methods saved and loaded with the same scores."""

from __future__ import annotations

import pytest

from clarion.data.replies import ReplyRow
from clarion.errors import InputError, ModelError
from clarion.replies import ReplyRanker
from clarion.replies.training import evaluate_rows, train_into


def rows_of(contexts):
    """Labelled rows from ``[(context, [(reply, label), ...]), ...]``."""
    rows = []
    for number, (context, replies) in enumerate(contexts):
        padded = tuple([""] * (3 - len(context)) + list(context))
        for j, (reply, label) in enumerate(replies):
            rows.append(ReplyRow(str(number), padded, str(j), reply, label, 1.0))  # type: ignore[arg-type]
    return rows


TOPICS = ["the weather", "your dog", "the football match", "dinner tonight", "the new film", "your holiday"]
CONTEXTS = [
    (
        [f"Did you hear about {topic}?", f"Tell me more about {topic}."],
        [
            (f"Sure, {topic} was really great, I loved it.", "good"),
            ("Purple elephants calculate the tax of Tuesday.", "bad"),
            ("Ok.", "neutral"),
        ],
    )
    for topic in TOPICS * 4
]


@pytest.fixture(scope="module")
def random_model(tmp_path_factory):
    return train_into(tmp_path_factory.mktemp("random"), rows_of(CONTEXTS), "fixture", method="random")


def test_rank_is_a_permutation_and_follows_score(random_model):
    ranker = ReplyRanker.load(random_model)
    replies = ["a", "b", "c", "d", "e", "f"]
    scores = ranker.score(["Hello there", "How are you?"], replies)
    order = ranker.rank(["Hello there", "How are you?"], replies)
    assert sorted(order) == list(range(6)) and len(scores) == 6
    assert [scores[i] for i in order] == sorted(scores, reverse=True)
    assert ranker.score(["Hi"], []) == [] and ranker.rank(["Hi"], []) == []


@pytest.mark.parametrize(
    ("context", "replies", "message"),
    [
        ("Hello", ["a"], "context must be a list"),
        ([], ["a"], "at least one non-empty utterance"),
        (["  "], ["a"], "at least one non-empty utterance"),
        (["Hi"], "a", "replies must be a list"),
        (["Hi"], ["a", 3], r"replies\[1\] must be a string"),
        (["Hi\ud800"], ["a"], "lone surrogate"),
    ],
)
def test_bad_requests_raise_input_error(random_model, context, replies, message):
    with pytest.raises(InputError, match=message):
        ReplyRanker.load(random_model).score(context, replies)


def test_load_refuses_a_directory_without_a_model(tmp_path):
    with pytest.raises(ModelError, match="not a trained model directory"):
        ReplyRanker.load(tmp_path)


def test_trained_methods_learn_and_reload_with_the_same_scores(tmp_path):
    rows = rows_of(CONTEXTS)
    # lambdamart: test_replies_training.py (slow)
    for method in ("matching", "quality", "quality-trees", "quality-ensemble"):
        directory = train_into(tmp_path / method, rows, "fixture", method=method)
        ranker = ReplyRanker.load(directory)
        context, replies = CONTEXTS[0][0], [r for r, _ in CONTEXTS[0][1]]
        again = ReplyRanker.load(directory)
        assert ranker.score(context, replies) == again.score(context, replies)
    quality = ReplyRanker.load(tmp_path / "quality")
    assert quality.method.vocabulary.replies == len(rows)  # the vocabulary is saved with the model
    assert evaluate_rows(quality, rows, cached=False)["ndcg"] > 95_000
    matching = ReplyRanker.load(tmp_path / "matching")
    assert evaluate_rows(matching, rows, cached=False)["ndcg"] > 95_000  # learned its training data
    assert matching.rank(
        ["Tell me about the weather."], ["Purple elephants calculate.", "The weather was great, I loved it."]
    ) == [1, 0]

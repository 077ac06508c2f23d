"""The LambdaMART combiner: a bag of seeded boosters, their mean score, saved and loaded as one text."""

import numpy as np
import pytest

from clarion.errors import ModelError
from clarion.rerank.lambdamart import BAG_SEPARATOR, LambdaMART


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(0)
    x = rng.normal(size=(400, 5))
    y = (x[:, 0] + 0.5 * rng.normal(size=400) > 0.8).astype(float)
    return x, y, [20] * 20


def small(bag: int) -> LambdaMART:
    return LambdaMART(20, {"min_data_in_leaf": 5, "num_leaves": 4}, bag=bag)


def test_a_bag_scores_the_mean_of_its_boosters_which_differ_by_seed(data):
    x, y, groups = data
    model = small(3).fit(x, y, groups)
    assert len(model.boosters) == 3
    each = [b.predict(x) for b in model.boosters]
    assert not np.allclose(each[0], each[1])  # feature_fraction 0.8: another seed, another model
    np.testing.assert_allclose(model.predict(x), np.mean(each, axis=0))
    assert model.predict(x[:, :5]).shape == (400,)


def test_the_first_booster_of_a_bag_is_the_single_model(data):
    x, y, groups = data
    np.testing.assert_array_equal(
        small(1).fit(x, y, groups).predict(x), small(2).fit(x, y, groups).boosters[0].predict(x)
    )


def test_a_bag_round_trips_through_one_text_file(data, tmp_path):
    x, y, groups = data
    model = small(3).fit(x, y, groups)
    model.save(tmp_path / "m.txt")
    assert (tmp_path / "m.txt").read_text().count(BAG_SEPARATOR) == 2
    loaded = LambdaMART.load(tmp_path / "m.txt")
    assert loaded.bag == 3 and loaded.to_text() == model.to_text()
    np.testing.assert_array_equal(loaded.predict(x), model.predict(x))


def test_a_single_booster_text_written_before_bags_still_loads(data, tmp_path):
    x, y, groups = data
    model = small(1).fit(x, y, groups)
    (tmp_path / "old.txt").write_text(model.boosters[0].model_to_string())
    np.testing.assert_array_equal(LambdaMART.load(tmp_path / "old.txt").predict(x), model.predict(x))


def test_a_truncated_booster_in_a_bag_is_a_model_error_naming_the_file(data, tmp_path):
    x, y, groups = data
    text = small(2).fit(x, y, groups).to_text()
    (tmp_path / "cut.txt").write_text(text[: len(text) - 200])
    with pytest.raises(ModelError, match="cut.txt"):
        LambdaMART.load(tmp_path / "cut.txt")


@pytest.mark.parametrize("bag", [0, -1, 1.5, True])
def test_a_bag_must_be_a_positive_integer(data, bag):
    x, y, groups = data
    with pytest.raises(ValueError, match="bag"):
        small(bag).fit(x, y, groups)


def test_an_untrained_model_neither_predicts_nor_saves(tmp_path):
    with pytest.raises(ModelError):
        LambdaMART().predict(np.zeros((1, 2)))
    with pytest.raises(ModelError):
        LambdaMART().save(tmp_path / "m.txt")
    assert not (tmp_path / "m.txt").exists()

"""Aspect anchors: FAQ aspect words the training turns never use tie a turn to the place's FAQ holding them."""

from __future__ import annotations

import numpy as np

from clarion.data.dstc import Snippet
from clarion.detect.anchors import MIN_PLACES, anchored, anchors, aspect_stems, question_stems, stems_of


def _faq(entity: int, doc: int, title: str) -> Snippet:
    return Snippet("restaurant", entity, doc, None, "faq", title, "...", f"PLACE {entity}")


def _unit(rows) -> np.ndarray:
    rows = np.asarray(rows, dtype=np.float32)
    return rows / np.linalg.norm(rows, axis=1, keepdims=True)


def test_high_chair_and_wheel_chair_are_one_word_each():
    assert "highchair" in stems_of("Is there a high chair?") and "highchair" in stems_of("Do you have highchairs?")
    assert "chair" not in stems_of("Do you offer wheel chair accessibility?")
    assert question_stems(_faq(3, 0, "Is Place 3 offering halal options?"), "PLACE 3") == {"offer", "halal", "option"}


def test_an_aspect_is_asked_alike_at_enough_places_and_anchors_only_unseen_words():
    places = range(MIN_PLACES + 1)
    faqs = {
        ("restaurant", p): [_faq(p, 0, "Do you serve halal food?"), _faq(p, 1, f"Can I bring {thing}?")]
        for p, thing in zip(
            places, ["my dog", "my own wine", "a wheelchair", "my kids", "a cake", "a guest"], strict=True
        )
    }
    names = {place: f"PLACE {place[1]}" for place in faqs}
    titles = sorted({s.title for snippets in faqs.values() for s in snippets})
    rows = {t: i for i, t in enumerate(titles)}
    halal = rows["Do you serve halal food?"]
    vectors = np.array([[1.0, 0.0, 0.0] if i == halal else [0.0, np.cos(i), np.sin(i)] for i in range(len(titles))])
    aspects = aspect_stems(faqs, names, rows, _unit(vectors))
    assert "bring" not in aspects  # asked at every place, but about six different things
    assert "halal" not in aspects  # one distinct question: not enough wordings to call it an aspect
    many = {
        place: [_faq(place[1], 0, f"Is the food halal, option {place[1]}?")] for place in faqs
    }  # six wordings, alike
    many_titles = sorted({s.title for snippets in many.values() for s in snippets})
    many_rows = {t: i for i, t in enumerate(many_titles)}
    alike = _unit(np.array([[1.0, 0.01 * i, 0.0] for i in range(len(many_titles))]))
    aspects = aspect_stems(many, names, many_rows, alike)
    assert "halal" in aspects
    assert anchors("Is the meat halal?", aspects, frozenset()) == {"halal"}
    assert anchors("Is the meat halal?", aspects, frozenset({"halal"})) == set()  # a training turn asked it
    own = [
        _faq(1, 0, "Is the food halal, option 1?"),
        _faq(1, 1, "Do you deliver?"),
        Snippet("restaurant", 1, 2, 0, "review", "", "Halal and tasty.", "PLACE 1"),
    ]
    assert anchored(own, {"halal"}, names) == own[:1]


def test_the_anchors_are_an_option_off_by_default():
    from clarion.dstc.models.pipeline import PipelineConfig

    assert not PipelineConfig().uses("aspect_anchors") and not PipelineConfig.from_json({}).uses("aspect_anchors")

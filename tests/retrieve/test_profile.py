"""The knowledge base profile: cities, area words and everyday words read off the knowledge base."""

from __future__ import annotations

from clarion.data.dstc import parse_knowledge
from clarion.ground.aliases import aliases
from clarion.ground.entities import EntityTracker
from clarion.retrieve.profile import KnowledgeProfile


def _faq(question: str, answer: str) -> dict:
    return {"question": question, "answer": answer}


def _entity(name: str, text: str) -> dict:
    return {"name": name, "reviews": {}, "faqs": {"0": _faq("Is it good?", f"Good: {text}")}}


KNOWLEDGE11 = {  # DSTC11 format: no city field; "Avonford" is in names of places of both kinds
    "hotel": {
        "0": _entity("AVONFORD GRAND HOTEL", "a quiet place"),
        "1": _entity("THE AVONFORD LODGE", "a quiet place"),
        "2": _entity("PELICAN HOTEL", "near the river"),
    },
    "restaurant": {
        "3": _entity("ZEST AVONFORD", "fresh pasta"),
        "4": _entity("MILL HOUSE", "fish"),
    },
}


def test_a_city_without_city_fields_is_the_area_word_most_names_hold():
    profile = KnowledgeProfile.from_knowledge(parse_knowledge(KNOWLEDGE11), frozenset({"hotel", "lodge", "house"}))
    assert profile.cities == {"avonford"}
    assert "avonford" in profile.area_words and "good" in profile.common_words  # in every place's texts
    assert profile.stops("avonford") and profile.stops("good") and not profile.stops("pelican")
    assert "zest" in aliases("ZEST AVONFORD", profile=profile)  # the name without its city
    assert "zest" not in aliases("ZEST AVONFORD")  # no profile: the name as it is
    tracker = EntityTracker.from_knowledge(parse_knowledge(KNOWLEDGE11))
    assert tracker.track(["Is Zest good?"]) == [("restaurant", 3)]
    assert tracker.track(["Is Avonford nice in spring?"]) == []  # the city names no place


def test_city_fields_name_the_cities_and_an_empty_knowledge_base_stops_nothing():
    raw = {
        "hotel": {
            "0": {"name": "Nikko Hotel Bayview", "city": "Bayview", "docs": {"0": {"title": "Pets?", "body": "No."}}}
        }
    }
    profile = KnowledgeProfile.from_knowledge(parse_knowledge(raw))
    assert profile.cities == {"bayview"} and "nikko hotel" in aliases("Nikko Hotel Bayview", profile=profile)
    assert not KnowledgeProfile().stops("bayview") and KnowledgeProfile().stops("")

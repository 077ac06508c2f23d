"""Place names the entity-tracking tests share (``test_entity_names.py``, ``test_entity_tracker.py``)."""

from __future__ import annotations

from clarion.retrieve.profile import KnowledgeProfile

NAMES = {
    ("hotel", 1): "ASHLEY HOTEL",
    ("hotel", 2): "LOVELL LODGE",
    ("hotel", 3): "THE CAMBRIDGE BELFRY",
    ("restaurant", 4): "NANDOS",
    ("restaurant", 5): "NANDOS CITY CENTRE",
    ("restaurant", 6): "CAMBRIDGE LODGE RESTAURANT",
    ("taxi", "*"): None,
}


PROFILE = KnowledgeProfile(
    cities=frozenset({"cambridge", "san francisco"}),
    area_words=frozenset({"city", "centre", "union", "square"}),
    common_words=frozenset({"good", "great", "the", "and"}),
)
"""What :class:`KnowledgeProfile.from_knowledge` reads off a knowledge base of these names (its cities, area words
and everyday words), written out for the tests that build trackers from names alone."""

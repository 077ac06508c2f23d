"""What the rules need to know about a knowledge base, computed from the knowledge base itself.

Entity tracking must not take a city, a district or an everyday word for the name of a place: "Zizzi Avonford" is
also "Zizzi", but "Avonford" alone names no restaurant; "Union Square" is where a hotel is, not the hotel. Nothing
of that is written into the code. A :class:`KnowledgeProfile` reads it off the knowledge base:

- ``cities``: the entities' ``city`` fields (DSTC9/10-format knowledge has them), dropped from the end of a name;
  without them, the area word (below) the most names hold, when at least :data:`AREA_PLACES` do and it is no word
  for a kind of place nor an everyday word ("avonford" of "Zizzi Avonford", "The Avonford Belfry", ... in
  DSTC11's knowledge);
- ``area_words``: words of the names of places of two or more kinds (domains) and three or more places ("avonford",
  "city", "centre" in DSTC11's hotels and restaurants; "union", "square", "marina" in DSTC10's): the words of where a
  place is, not of which place it is;
- ``common_words``: words in the reviews and FAQs of at least :data:`COMMON_SHARE` of the places ("good", "great",
  "place", "street"): everyday words, not names.

A form of a name made only of such words is never an alias on its own (:meth:`KnowledgeProfile.stops`).
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from dataclasses import dataclass

COMMON_SHARE = 0.3
"""A word in the texts of at least this share of the places is an everyday word, not a name."""
AREA_DOMAINS = 2
"""A name word shared by places of at least this many kinds (and :data:`AREA_PLACES` places) says where they are."""
AREA_PLACES = 3

_NON_WORD = re.compile(r"[^a-z0-9]+")


def _words(text: str) -> list[str]:
    text = text.lower().replace("&", " and ").replace("'", "").replace("\u2019", "")
    return _NON_WORD.sub(" ", text).split()


@dataclass(frozen=True)
class KnowledgeProfile:
    """Cities, area words and everyday words of a knowledge base (see the module docstring); the empty profile
    (no knowledge base) stops nothing."""

    cities: frozenset[str] = frozenset()
    area_words: frozenset[str] = frozenset()
    common_words: frozenset[str] = frozenset()

    @classmethod
    def from_knowledge(cls, knowledge, kinds: frozenset[str] = frozenset()) -> KnowledgeProfile:
        """The profile of a :class:`~clarion.data.dstc.Knowledge` (its names, cities and snippets); ``kinds``: words
        for a kind of place ("hotel", "lodge"), never taken for a city."""
        names = {key: name for key, name in knowledge.entity_names.items() if key[1] != "*" and name}
        cities = frozenset(" ".join(_words(c)) for c in getattr(knowledge, "entity_cities", {}).values() if c)
        owners: dict[str, set[tuple]] = defaultdict(set)
        for key, name in names.items():
            for word in set(_words(name)):
                owners[word].add(key)
        area = frozenset(
            w
            for w, keys in owners.items()
            if len(keys) >= AREA_PLACES and len({k[0] for k in keys}) >= AREA_DOMAINS and w.isalpha() and len(w) > 2
        )
        texts: dict[tuple, set[str]] = defaultdict(set)
        for snippet in knowledge.snippets():
            key = (snippet.domain, snippet.entity_id)
            if key in names:
                texts[key].update(_words(f"{snippet.title or ''} {snippet.body or ''}"))
        counts = Counter(w for words in texts.values() for w in words)
        common = frozenset(w for w, n in counts.items() if names and n >= COMMON_SHARE * len(names))
        if not cities:
            places = [w for w in area if w not in kinds and w not in common and len(w) > 3]
            cities = frozenset(sorted(places, key=lambda w: (-len(owners[w]), w))[:1])
        return cls(cities, area, common)

    def stops(self, form: str) -> bool:
        """Whether the normalised name form ``form`` may not name a place on its own: a city, or only area and
        everyday words ("avonford", "city centre", "union square", "good")."""
        words = form.split()
        if not words:
            return True
        return form in self.cities or all(w in self.area_words or w in self.common_words for w in words)

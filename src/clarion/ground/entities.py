"""Entity tracking: which hotel, restaurant, ... the user is talking about, from names in the context.

A rule-based tracker in the spirit of the DSTC9 Track 1 baseline's entity matching (Kim et al., 2020): the context
is scanned from the last turn backwards and the entities named in the most recent turn that names any win (several
when that turn names several, e.g. a system turn listing candidates). Longer aliases win over shorter ones at the
same position ("nandos city centre" over "nandos"); the forms of a name are :mod:`clarion.ground.aliases`'s. When
a name fits several branches of a chain, the branches whose area the dialogue names are kept. Domain-wide documents
(entity ``"*"``, DSTC9 taxi/train) are tracked by domain keywords.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import cached_property

from clarion.ground.aliases import (
    _CAPITALISED,
    _NAME_GENERIC,
    _NO_PROFILE,
    _normalise_with_sources,
    aliases,
    capital_forms,
    distinctive_words,
    near,
    normalise,
    ordinal,
    points_at_other,
    shared_words,
    short_forms,
)
from clarion.retrieve.profile import KnowledgeProfile

_DOMAIN_WORDS = {
    "taxi": ("taxi", "cab", "car"),
    "train": ("train", "rail", "railway"),
}
_NOT_AFTER = r"(?<!near )(?<!to )(?<!from )(?<!by )(?<!and )(?<!between )(?<!around )(?<!beside )(?<!behind )"
_PLACE_TYPES = {  # a turn calling its place "the hotel", not "near the hotel" (see EntityTracker._other_kind)
    "hotel": re.compile(
        rf"\b{_NOT_AFTER}(?:the|this|that|your|my|our) (?:hotel|guest ?house|b ?& ?b|bed and breakfast)\b", re.I
    ),
    "restaurant": re.compile(rf"\b{_NOT_AFTER}(?:the|this|that|your|my|our) restaurant\b", re.I),
}
_OWN_TYPE = {
    "hotel": re.compile(r"\b(?:hotel|guest ?house|b ?& ?b|bed and breakfast|lodge)\b", re.I),
    "restaurant": re.compile(r"\b(?:restaurant|cafe|bistro|bar|pub)\b", re.I),
}
_PARKING = re.compile(r" park")  # "a place to park my car" asks about the place, not a taxi
_SENTENCE_START = re.compile(r"(?:^|[.!?:;\"(])\s*$")
_STREET_WORDS = "street|st|road|rd|lane|avenue|ave"
_STREET = re.compile(rf"(?:{_STREET_WORDS})\b")  # after an alias: an address, not a name
# before an attraction's name: where a place is ("it's in Union Square", "345 Taylor Street Union Square")
_LOCATIVE = re.compile(rf"\b(?:in|in the|{_STREET_WORDS}) $")
_FUZZY_CUTOFF = 0.85


@dataclass
class EntityTracker:
    """Finds the entities a dialogue context refers to; build with :meth:`from_entities`."""

    alias_index: dict[str, set[tuple]] = field(default_factory=dict)
    domain_wide: dict[str, tuple] = field(default_factory=dict)
    pattern: re.Pattern | None = None
    branches: dict[tuple, tuple[str, str]] = field(default_factory=dict)  # key -> (chain, area), normalised
    short_index: dict[str, set[tuple]] = field(default_factory=dict)  # "Pizza Hut" -> keys (see chain_named)
    name_words: dict[str, tuple] = field(default_factory=dict)  # "marriott" -> its one entity (see word_mentions)
    shared: frozenset[str] = frozenset()  # words several names hold, and function words (see fuzzy_mentions)
    capitals: dict[str, set[tuple]] = field(default_factory=dict)  # "ask" -> ASK RESTAURANT (see capital_mentions)
    profile: KnowledgeProfile = _NO_PROFILE  # the knowledge base's cities, area and everyday words

    @classmethod
    def from_knowledge(cls, knowledge) -> EntityTracker:
        """Build from a :class:`~clarion.data.dstc.Knowledge`: its names, and its profile
        (:class:`~clarion.retrieve.profile.KnowledgeProfile`) for the words that name no place alone."""
        return cls.from_names(knowledge.entity_names, KnowledgeProfile.from_knowledge(knowledge, _NAME_GENERIC))

    @classmethod
    def from_names(cls, names: dict[tuple, str | None], profile: KnowledgeProfile = _NO_PROFILE) -> EntityTracker:
        """Build from ``{(domain, entity_id): name}`` (``Knowledge.entity_names``) and the knowledge base's
        ``profile`` (none: no word is kept from being an alias)."""
        index: dict[str, set[tuple]] = {}
        domain_wide = {}
        branches = {}
        for key, name in names.items():
            if key[1] == "*":
                domain_wide[key[0]] = key
                continue
            for alias in aliases(name or "", profile=profile):
                index.setdefault(alias, set()).add(key)
            chain, _, area = (name or "").partition(" - ")
            chain, area = normalise(chain).strip(), normalise(area).strip()
            if chain and area:
                branches[key] = (chain, area.removeprefix("the "))
        ordered = sorted(index, key=len, reverse=True)
        pattern = re.compile(" (" + "|".join(re.escape(a) for a in ordered) + ") ") if ordered else None
        short = short_forms({key: name for key, name in names.items() if key[1] != "*"}, profile)
        shared = shared_words(names, profile)
        return cls(
            index,
            domain_wide,
            pattern,
            branches,
            short,
            distinctive_words(names, profile),
            shared,
            capital_forms(names, shared, profile),
            profile,
        )

    def mentions(self, text: str) -> list[tuple]:
        """Entity keys named in ``text``, in order of appearance (longest alias wins at a position)."""
        found: list[tuple] = []
        for keys in self._named(text):
            found.extend(key for key in sorted(keys, key=str) if key not in found)
        return found

    def chain_named(self, turns: list[str]) -> list[tuple]:
        """The branches of a chain the most recent turn that names one names without a branch ("What do people think
        of Pizza Hut?": PIZZA HUT CITY CENTRE, CHERRY HINTON and FEN DITTON), in key order; [] when no turn does.
        Chains are the short forms shared by several entities (:func:`short_forms`), matched in any case here, as
        users type them."""
        chains, pattern = self._chains
        if pattern is None:
            return []
        for text in reversed(turns):
            match = pattern.search(text.lower())
            if match:
                return sorted(chains[match.group(1)], key=str)
        return []

    @cached_property
    def _chains(self) -> tuple[dict[str, set[tuple]], re.Pattern | None]:
        """The chains of :attr:`short_index` (lower-cased form -> keys) and a pattern finding them, built once."""
        chains = {form.lower(): keys for form, keys in self.short_index.items() if len(keys) > 1}
        if not chains:
            return chains, None
        forms = "|".join(re.escape(f) for f in sorted(chains, key=len, reverse=True))
        return chains, re.compile(r"\b(" + forms + r")\b")

    def _named(self, text: str) -> Iterator[set[tuple]]:
        """For each name in ``text``, in order, the keys of the entities it may be (longest alias wins); a name
        written in lower case where the turn calls its place by another kind's word is none (:meth:`_other_kind`)."""
        called = {kind for kind, pattern in _PLACE_TYPES.items() if pattern.search(text)}
        capitals = self.capital_mentions(text)
        if not called and not capitals:  # nearly every turn: names as aliases alone, no original positions needed
            for match in self._matches(normalise(text)):
                yield self.alias_index[match.group(1)]
            return
        norm, source = _normalise_with_sources(text)
        spans = []
        for match in self._matches(norm):
            keys = self.alias_index[match.group(1)]
            start, end = source[match.start(1)], source[match.end(1) - 1] + 1
            if not self._other_kind(text, text[start:end], keys, called):
                spans.append((start, end, keys))
        spans += [(a, b, keys) for a, b, keys in capitals if not any(a < end and start < b for start, end, _ in spans)]
        for _, _, keys in sorted(spans, key=lambda span: span[0]):
            yield keys

    @cached_property
    def _capital_pattern(self) -> re.Pattern | None:
        """:attr:`capitals` as written as a name, capitalised or in capitals ("Ask", "ASK"), built once."""
        if not self.capitals:
            return None
        forms = sorted({written for form in self.capitals for written in (form.title(), form.upper())})
        return re.compile(r"\b(" + "|".join(map(re.escape, forms)) + r")\b")

    def capital_mentions(self, text: str) -> list[tuple[int, int, set[tuple]]]:
        """The 3-letter forms of names (:func:`capital_forms`) in ``text`` written as names, not at the start of a
        sentence, as (start, end, keys): "Pizza Hut City Centre, Ask, and Zizzi Avonford", "Is Ask in the south?";
        not "Ask them about parking." nor "I will ask"."""
        if self._capital_pattern is None:
            return []
        return [
            (match.start(), match.end(), self.capitals[match.group(1).lower()])
            for match in self._capital_pattern.finditer(text)
            if not _SENTENCE_START.search(text, 0, match.start())
        ]

    @staticmethod
    def _other_kind(text: str, written: str, keys: set[tuple], called: set[str]) -> bool:
        """Whether the name ``written`` in ``text`` is a common word there: written in lower case, only one kind of
        place's name, in a turn that calls its place by another kind's word (``called``: "the hotel" for a
        restaurant's name, "the restaurant" for a hotel's), not as where another place is ("near the hotel"), and
        says no word of the name's own kind: "Is there any graffiti on the walls of the hotel?" is not about the
        restaurant GRAFFITI, nor "Does the hotel have a travellers rest area?" about TRAVELLERS REST."""
        if written != written.lower():
            return False
        domains = {domain for domain, _ in keys}
        if len(domains) != 1 or (domain := next(iter(domains))) not in _OWN_TYPE:
            return False
        return bool(called - {domain}) and not _OWN_TYPE[domain].search(text)

    def _matches(self, norm: str) -> Iterator[re.Match]:
        """The alias matches in normalised text, in order; an alias followed by a street word is part of an address
        ("12 Bridge Street" does not name Bridge Guest House), and an attraction's name after "in" or a street word
        says where another place is ("the hotel is in Union Square")."""
        if self.pattern is None:
            return
        pos = 0
        while (match := self.pattern.search(norm, pos)) is not None:
            if not _STREET.match(norm, match.end()) and not self._locative(norm, match):
                yield match
            pos = match.end() - 1

    def _locative(self, norm: str, match: re.Match) -> bool:
        keys = self.alias_index[match.group(1)]
        if not all(domain == "attraction" for domain, _ in keys):
            return False
        return _LOCATIVE.search(norm, max(0, match.start() - 12), match.start() + 1) is not None

    def strip_names(self, text: str) -> str:
        """``text`` with every entity name it holds cut out, the rest as written: "Are pets allowed at the Acorn
        Guest House?" -> "Are pets allowed at the ?"; a text naming no entity comes back unchanged. Compares
        questions by what they ask, not whom about."""
        if self.pattern is None:
            return text
        norm, source = _normalise_with_sources(text)
        spans = [(source[match.start(1)], source[match.end(1) - 1] + 1) for match in self._matches(norm)]
        if not spans:
            return text
        kept, last = [], 0
        for start, end in spans:
            kept.append(text[last:start])
            last = end
        kept.append(text[last:])
        return " ".join("".join(kept).split())

    def domain_mentions(self, text: str) -> list[tuple]:
        """Domain-wide entities (DSTC9 taxi, train) whose keywords ``text`` holds; "car" does not count in a turn
        about parking."""
        norm = normalise(text)
        parking = _PARKING.search(norm) is not None
        return [
            key
            for domain, key in self.domain_wide.items()
            if any(f" {w} " in norm for w in _DOMAIN_WORDS.get(domain, (domain,)) if not (parking and w == "car"))
        ]

    def word_mentions(self, text: str) -> list[tuple]:
        """Entities called "the" and one capitalised word of their name that no other entity's name holds
        (:func:`distinctive_words`: "Is the Marriott good for business travellers?", "the Belfry"), in order of
        appearance; not when a capitalised word other than a generic place word follows (part of another name)."""
        found: list[tuple] = []
        for match in _CAPITALISED.finditer(text):
            before, after = text[: match.start()].split(), text[match.end() :].split()
            key = self.name_words.get(match.group(0).lower())
            if key is None or key in found or not before or before[-1].lower() != "the":
                continue
            following = normalise(after[0]).strip() if after else ""
            generic = following in _NAME_GENERIC or self.profile.stops(following)
            if after and after[0][:1].isupper() and not generic:
                continue  # part of another name: "the Cherry Hinton Water Play", "the University Botanic Gardens"
            found.append(key)
        return found

    def fuzzy_mentions(self, text: str) -> list[tuple]:
        """Entities whose alias is within edit ratio 0.85 of a 1-4 word n-gram of ``text`` and a typo of it
        (:meth:`typo_of`); an n-gram followed by a street word is skipped, as in exact matching."""
        words = normalise(text).split()
        candidates = list(self.alias_index)
        found: list[tuple] = []
        for n in (4, 3, 2, 1):
            for start in range(len(words) - n + 1):
                gram = " ".join(words[start : start + n])
                if len(gram) < 6 or (start + n < len(words) and _STREET.fullmatch(words[start + n])):
                    continue  # too short to tell, or part of an address
                for alias in difflib.get_close_matches(gram, candidates, n=1, cutoff=_FUZZY_CUTOFF):
                    if self.typo_of(gram, alias):
                        found.extend(k for k in sorted(self.alias_index[alias], key=str) if k not in found)
        return found

    def typo_of(self, gram: str, alias: str) -> bool:
        """Whether ``gram``, near ``alias`` as a whole, types the alias's own words: the words no other name holds
        (:attr:`shared`), joined, within one edit of the gram's (:func:`near`; a gram word within one edit of a
        shared word is shared: "resturant"). "a guesthouse" is no typo of ACORN GUESTHOUSE, "the restaurant" of
        J RESTAURANT, "Hilton" of HAMILTON LODGE; "accorn guesthouse" and "Cambrdige Belfry" are. An alias of shared
        words only ("pizza hut city centre") is taken on the ratio alone."""
        own = "".join(word for word in alias.split() if word not in self.shared)
        if not own or not self.shared:
            return True
        typed = "".join(word for word in gram.split() if not self._shared_like(word))
        return bool(typed) and near(typed, own)

    def _shared_like(self, word: str) -> bool:
        """Whether ``word`` is a shared word or, at 5+ letters, within one edit of one ("restaurants", "resturant")."""
        return word in self.shared or (len(word) >= 5 and any(len(s) >= 5 and near(word, s) for s in self.shared))

    def track(self, turns: list[str], max_entities: int = 5, fuzzy_turns: int = 4) -> list[tuple]:
        """The entities of the most recent turn that names any (last turn first); [] when none does.

        A domain word of the last turn ("taxi", "car", "train") adds that domain's entity after the ones the
        turn names ("Can I take a cab to Acorn Guest House?" is about the guest house first; "car" in a turn about
        parking is no taxi word). A name fitting several branches of a chain keeps the branches whose area the
        context names. When no turn names an entity exactly, the last ``fuzzy_turns`` turns are searched for near
        matches. A last turn that
        names none but points at one by its place ("Does the first one have a gym?", "the latter") keeps that
        entity of the several an earlier turn named, in their order there (the latest turn naming several, when the
        latest naming turn names one: "What about the second one?" after "Yes, the wifi is free at Acorn Guest House."
        that followed a list of two); one pointing at "the other one" keeps the one of two listed places that the
        latest naming turn does not name.
        """
        last = turns[-1] if turns else ""
        wide = self.domain_mentions(last)
        if wide:
            named = self.mentions(last)
            return [*named, *(key for key in wide if key not in named)][:max_entities]
        for back, text in enumerate(reversed(turns)):
            found = self.mentions(text)
            if found:
                if back and (pointed := self._pointed_at(last, turns[: len(turns) - back], found)) is not None:
                    return [pointed]
                return self._branch_named(found, turns)[:max_entities]
        for text in reversed(turns[-fuzzy_turns:]):
            found = self.fuzzy_mentions(text)
            if found:
                return self._branch_named(found, turns)[:max_entities]
        for text in list(reversed(turns[-fuzzy_turns:]))[::2]:  # the last resort, the user's turns: "the Marriott"
            found = self.word_mentions(text)
            if found:
                return found[:max_entities]
        return []

    def _pointed_at(self, last: str, earlier: list[str], found: list[tuple]) -> tuple | None:
        """The entity ``last`` points at by its place in a list ("the second one") or as "the other one", given the
        ``earlier`` turns up to the latest one naming any (which names ``found``); ``None`` when it points at none."""
        place = ordinal(last)
        if place is not None:
            if len(found) > 1:
                return found[place] if place < len(found) else None
            listed = next((f for f in map(self.mentions, reversed(earlier[:-1])) if len(f) > 1), [])
            return listed[place] if place < len(listed) else None
        if len(found) == 1 and points_at_other(last):
            pair = next((f for f in map(self.mentions, reversed(earlier[:-1])) if len(f) > 1), [])
            if len(pair) == 2 and found[0] in pair:
                return pair[1 - pair.index(found[0])]
        return None

    def _branch_named(self, found: list[tuple], turns: list[str]) -> list[tuple]:
        """``found`` without the branches of a chain whose area no turn names, when another of its branches' does
        ("Souvla - Marina" and "Souvla - SoMa" after "a place in the Marina": the Marina branch)."""
        chains: dict[str, list[tuple]] = {}
        for key in found:
            if key in self.branches:
                chains.setdefault(self.branches[key][0], []).append(key)
        siblings = [keys for keys in chains.values() if len(keys) > 1]
        if not siblings:
            return found
        context = normalise(" ".join(turns))
        dropped = set()
        for keys in siblings:
            named = [key for key in keys if f" {self.branches[key][1]} " in context]
            if named:
                dropped.update(key for key in keys if key not in named)
        return [key for key in found if key not in dropped]

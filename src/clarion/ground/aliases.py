"""The forms a place's name takes in a dialogue: aliases, short forms, distinctive words, typos.

Every entity name is normalised into aliases (lower case, punctuation and "&" normalised, a leading "the" and
generic suffixes such as "restaurant", "hotel", "guest house" dropped; "guest house" also written "guesthouse"
and the other way round). A chain's branch and a trailing city are optional too ("Souvla - Marina" is also
"souvla"); an alias never ends with a function word, and a form made only of the knowledge base's city, area or
everyday words is none (:class:`~clarion.retrieve.profile.KnowledgeProfile`).
"""

from __future__ import annotations

import re

from clarion.retrieve.profile import KnowledgeProfile

_NO_PROFILE = KnowledgeProfile()


_GENERIC = (
    "restaurant and bar",
    "restaurant",
    "hotel",
    "guest house",
    "guesthouse",
    "bed and breakfast",
    "b and b",
    "b & b",
    "bar and grill",
    "cafe",
    "bistro",
    "lodge",
    "inn",
)


_SPELLINGS = (  # one word or two, British or American, as people write it ("Pizza Hut City Center")
    ("guest house", "guesthouse"),
    ("guesthouse", "guest house"),
    ("centre", "center"),
    ("center", "centre"),
)


_MIN_ALIAS = 4


_CAPITAL_FORM = 3  # a name's 3-letter form counts only written as a name: "Ask", "ASK" (capital_forms)


_DANGLING = {"of", "in", "by", "at", "and", "the", "a"}  # "University Club of [Bayview]" is no alias


# Number words: "two two" of "Restaurant Two Two" is no alias alone; a spoken zip code ends "nine four one two two".
_NUMBER_WORDS = set(
    "zero oh one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen "
    "seventeen eighteen nineteen twenty thirty forty fifty sixty seventy eighty ninety hundred thousand".split()
)


# Words that join a name's distinctive words ("the Avonford Belfry", "A and B"), besides the words several names share.
_FUNCTION_WORDS = frozenset("the a an and of in at by to or on for is any some few".split())


_NON_WORD = re.compile(r"[^a-z0-9]+")


_ORDINAL = re.compile(
    r" (?:the )?(first|second|third|last|former|latter)"
    r" (?:one|place|option|hotel|restaurant|guest ?house|b and b|bed and breakfast)? ?"
)


_PLACES = {"first": 0, "former": 0, "second": 1, "latter": 1, "third": 2, "last": -1}


def ordinal(text: str) -> int | None:
    """The place an ordinal reference in ``text`` points at ("the first one" 0, "the latter" 1, "the last one" -1),
    or None. "the first/last/second" alone needs a noun after it ("the first one", not "the first night")."""
    match = _ORDINAL.search(normalise(text))
    if match is None:
        return None
    word, rest = match.group(1), match.group(0).split()
    if word not in ("former", "latter") and rest[-1] == word:  # "the first" without "one", "place", ...
        return None
    return _PLACES[word]


_OTHER = re.compile(r" the other (?:one|place|option|hotel|restaurant|guest ?house|b and b|bed and breakfast) ")


def points_at_other(text: str) -> bool:
    """Whether ``text`` points at "the other one" (or place, hotel, restaurant, ...) of two named places; "the
    other guests" is no reference."""
    return bool(_OTHER.search(normalise(text)))


def normalise(text: str) -> str:
    """Lower case, "&" -> "and", apostrophes dropped, other non-alphanumerics to single spaces."""
    text = text.lower().replace("&", " and ").replace("'", "").replace("\u2019", "")
    return " " + _NON_WORD.sub(" ", text).strip() + " "


_WRITTEN_SUFFIXES = (" and bar",)
"""Endings the responses leave out of a name ("De Luca Cucina" for DE LUCA CUCINA AND BAR): forms for renaming and
the faithfulness check (:func:`aliases` with ``written``, :func:`short_forms`), not for tracking."""


def aliases(
    name: str, written: bool = False, minimum: int = _MIN_ALIAS, profile: KnowledgeProfile = _NO_PROFILE
) -> set[str]:
    """The normalised surface forms a name may take in a dialogue (see the module docstring), of at least ``minimum``
    characters; ``written``: also the forms a response writes without one of :data:`_WRITTEN_SUFFIXES`; ``profile``:
    the knowledge base's cities (dropped from a name's end) and the words that name no place alone."""
    full = normalise(name).strip()
    if not full:
        return set()
    forms = {full}
    if written:
        forms |= {full.removesuffix(suffix) for suffix in _WRITTEN_SUFFIXES}
    if " - " in name:  # "Tadu Ethiopian Kitchen - Mission Bay": the chain's name without its branch
        forms.add(normalise(name.split(" - ")[0]).strip())
    for form in list(forms):  # "Four Seasons Hotel Bayview": the name without its city
        for city in profile.cities:
            if form.endswith(" " + city):
                forms.add(form[: -len(city) - 1].strip())
    for form in list(forms):  # "Acorn Guest House" is also written "Acorn Guesthouse", "City Centre" "City Center"
        for written, other in _SPELLINGS:
            if f" {written} " in f" {form} ":
                forms.add(f" {form} ".replace(f" {written} ", f" {other} ").strip())
    for form in list(forms):
        if form.startswith("the "):
            forms.add(form[4:])
    for suffix in _GENERIC:
        for form in list(forms):
            if form.endswith(" " + suffix):
                forms.add(form[: -len(suffix) - 1].strip())
            if form.startswith(suffix + " "):
                forms.add(form[len(suffix) + 1 :].strip())
    forms = {f for f in forms if f and f.split()[-1] not in _DANGLING and not _numeric(f)}
    forms |= {f.replace(" ", "") for f in forms if " " in f}  # "cityroomz" / "city roomz"
    return {f for f in forms if len(f) >= minimum and not profile.stops(f)} | {full}


def _numeric(form: str) -> bool:
    """Whether every word of ``form`` is a number, in digits or words ("two two", "39")."""
    return all(word.isdigit() or word in _NUMBER_WORDS for word in form.split())


def _normalise_with_sources(text: str) -> tuple[str, list[int]]:
    """:func:`normalise` of ``text`` and, for each of its characters, the index in ``text`` it comes from (the
    padding spaces point at the text's ends)."""
    chars: list[tuple[str, int]] = []
    for i, c in enumerate(text):
        if c in "'\u2019":
            continue
        chars.extend((ch, i) for ch in (" and " if c == "&" else c.lower()))
    core: list[tuple[str, int]] = []
    for ch, i in chars:
        if "a" <= ch <= "z" or "0" <= ch <= "9":
            core.append((ch, i))
        elif core and core[-1][0] != " ":
            core.append((" ", i))
    if core and core[-1][0] == " ":
        core.pop()
    norm = " " + "".join(ch for ch, _ in core) + " "
    return norm, [0] + [i for _, i in core] + [len(text)]


def short_forms(names: dict[tuple, str | None], profile: KnowledgeProfile = _NO_PROFILE) -> dict[str, set[tuple]]:
    """Short forms a response may write for an entity, capitalised as in a sentence (too loose for tracking a
    dialogue by themselves; :meth:`EntityTracker.chain_named` reads the chains among them): a chain's name without its
    branch (the two first words shared by the names of several entities: "Pizza Hut") and a name's distinctive first
    word ("Midsummer" of MIDSUMMER HOUSE RESTAURANT, one of its :func:`distinctive_words`). Matched case-sensitively,
    so "worth the price" is not Worth House."""
    words = {key: normalise(name or "").split() for key, name in names.items()}
    words = {key: w[1:] if w[:1] == ["the"] else w for key, w in words.items()}
    prefixes: dict[str, set[tuple]] = {}
    for key, w in words.items():
        if len(w) >= 3:
            prefixes.setdefault(" ".join(w[:2]), set()).add(key)
    out: dict[str, set[tuple]] = {}
    for prefix, keys in prefixes.items():
        if len(keys) > 1 and not profile.stops(prefix):
            out.setdefault(prefix.title(), set()).update(keys)
    for key, w in words.items():  # "De Luca Cucina" of DE LUCA CUCINA AND BAR
        written = " ".join(w)
        for suffix in _WRITTEN_SUFFIXES:
            if written.endswith(suffix) and len(written) - len(suffix) >= _MIN_ALIAS:
                out.setdefault(written.removesuffix(suffix).title(), set()).add(key)
    distinctive = distinctive_words(names, profile)
    for key, w in words.items():
        first = w[0] if len(w) >= 2 else ""
        if distinctive.get(first) == key:
            out.setdefault(first.title(), set()).add(key)
    return out


_CAPITALISED = re.compile(r"\b[A-Z][a-z]{4,}\b")


_NAME_GENERIC = frozenset(w for phrase in _GENERIC for w in phrase.split())


def distinctive_words(names: dict[tuple, str | None], profile: KnowledgeProfile = _NO_PROFILE) -> dict[str, tuple]:
    """Words of a name that no other entity's name holds and that may call it on their own, capitalised, when nothing
    else names a place (:meth:`EntityTracker.word_mentions`): 5+ letters, no generic place word, none the ``profile``
    stops ("marriott" of HUNTINGDON MARRIOTT HOTEL, "belfry" of THE AVONFORD BELFRY; not "hotel")."""
    owners: dict[str, set[tuple]] = {}
    for key, name in names.items():
        if key[1] != "*":
            for word in set(normalise(name or "").split()):
                owners.setdefault(word, set()).add(key)
    return {
        word: next(iter(keys))
        for word, keys in owners.items()
        if len(keys) == 1
        and len(word) >= 5
        and word.isalpha()
        and not profile.stops(word)
        and word not in _NAME_GENERIC
    }


def shared_words(names: dict[tuple, str | None], profile: KnowledgeProfile = _NO_PROFILE) -> frozenset[str]:
    """Words of the aliases of two or more entities ("restaurant", "guesthouse", "lodge", "avonford", "pizza"),
    function words, and two of them written as one ("marketplace", "bayview"): the parts of a name that do not
    tell it from the others (:meth:`EntityTracker.fuzzy_mentions`)."""
    owners: dict[str, set[tuple]] = {}
    for key, name in names.items():
        if key[1] != "*":
            for word in {w for alias in aliases(name or "", profile=profile) for w in alias.split()}:
                owners.setdefault(word, set()).add(key)
    shared = {word for word, keys in owners.items() if len(keys) > 1} | _FUNCTION_WORDS
    joined = {w for w in owners if any(w[:i] in shared and w[i:] in shared for i in range(1, len(w)))}
    return frozenset(shared | joined)


def capital_forms(
    names: dict[tuple, str | None], shared: frozenset[str], profile: KnowledgeProfile = _NO_PROFILE
) -> dict[str, set[tuple]]:
    """Forms of three letters too short to be aliases ("ask" of ASK RESTAURANT, "oak" of THE OAK BISTRO, "opa" of
    Opa cafe), no word another name holds (``shared``), each with the entities it names: they name a place only when
    written as a name (:meth:`EntityTracker.capital_mentions`)."""
    out: dict[str, set[tuple]] = {}
    for key, name in names.items():
        if key[1] != "*":
            for form in aliases(name or "", minimum=_CAPITAL_FORM, profile=profile):
                if len(form) == _CAPITAL_FORM and form.isalpha() and form not in shared:
                    out.setdefault(form, set()).add(key)
    return out


def near(typed: str, word: str) -> bool:
    """Whether ``typed`` is within one edit of ``word`` (insertion, deletion, substitution or swap of neighbours;
    two for a word of 12+ characters): "accorn" of "acorn", "huntington" of "huntingdon"; not "hilton" of
    "hamilton"."""
    if abs(len(typed) - len(word)) > 2:
        return False
    from nltk.metrics.distance import edit_distance  # here: importing nltk takes a second, and few turns get here

    return edit_distance(typed, word, transpositions=True) <= 1 + len(word) // 12

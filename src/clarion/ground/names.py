"""Place names in responses: as responses write them, misspellings mended, one place's name swapped for another's."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from difflib import SequenceMatcher
from functools import lru_cache

from clarion.ground.aliases import aliases

_SMALL_WORDS = {"and", "of", "the", "in", "on", "at", "by"}


_VOWEL = re.compile(r"[aeiouy]")


def display_name(name: str | None) -> str:
    """ "THE GOLDEN CURRY" -> "The Golden Curry", "A AND B GUEST HOUSE" -> "A and B Guest House" (small words
    in lower case after the first, as the responses write them: BLEU is case-sensitive), "ALPHA-MILTON GUEST HOUSE" ->
    "Alpha-Milton Guest House", "HK FUSION" -> "HK Fusion" (a word without a vowel is an abbreviation); keeps
    mixed-case names. The knowledge's own texts write each of DSTC11's 143 upper-case names so most often."""
    if not name:
        return "this place"
    if not name.isupper():
        return name

    def word(i: int, w: str) -> str:
        if i and w in _SMALL_WORDS:
            return w
        if not _VOWEL.search(w):
            return w.upper()
        return "-".join(part[:1].upper() + part[1:] for part in w.split("-"))

    return " ".join(word(i, w) for i, w in enumerate(name.lower().split()))


def _display_written(text: str, name: str | None) -> str:
    """``text`` with its place's upper-case ``name`` as :func:`display_name` writes it, "the" mid-sentence
    ("Shuttle service is not provided at THE AVONFORD BELFRY." -> "... at the Avonford Belfry."), a misspelt
    ``name`` too (:func:`respelled`)."""
    if not name:
        return text
    text = respelled(text, name)
    if not name.isupper():
        return text
    return _write_name(text, rf"\b{re.escape(name)}\b", display_name(name))


_NAME_WORD = re.compile(r"[A-Za-z0-9&]+(?:[-'’][A-Za-z0-9&]+)*")


_MISSPELT = 0.75
"""How close (difflib ratio) a misspelt word of a name is to the word it stands for ("Ashely" / "ashley" 0.83)."""


@lru_cache(maxsize=65536)
def respelled(text: str, name: str | None) -> str:
    """``text`` with each misspelling of its place ``name`` written as ``name`` (an upper-case one as
    :func:`display_name` writes it): a run of capitalised words as long as the name (or the name without its leading
    "The") that differs from it in one word, a word with the same first letter within :data:`_MISSPELT` of it ("No,
    the Ashely Hotel does not have a fitness center", "Kohimoor does not have take-out ordering"); 34 of DSTC11's
    2,869 FAQ answers misspell their own place (83 of DSTC10's). A one-word name is not matched by a longer or shorter
    form of itself ("Anatolian" for ANATOLIA), nor any word by its plural or possessive ("Frankie and Benny's"), nor an
    abbreviation by a full word ("Center" for "Cntr"). Cached: :func:`swap_entity` asks it of the same training
    response for every turn whose pool holds it."""
    if not name:
        return text
    wanted = list(_NAME_WORD.finditer(name))
    variants = [wanted] + ([wanted[1:]] if len(wanted) > 1 and wanted[0].group().lower() == "the" else [])
    words = list(_NAME_WORD.finditer(text))
    spans: list[tuple[int, int, str]] = []
    for variant in variants:
        written = name[variant[0].start() : variant[-1].end()]
        written = display_name(written) if name.isupper() else written
        for i in range(len(words) - len(variant) + 1):
            run = words[i : i + len(variant)]
            taken = any(start < run[-1].end() and run[0].start() < end for start, end, _ in spans)
            if not taken and run[0].group()[0].isupper() and _misspelt([w.group() for w in run], variant):
                spans.append((run[0].start(), run[-1].end(), written))
    for start, end, written in sorted(spans, reverse=True):
        text = text[:start] + written + text[end:]
    return text


def _misspelt(found: list[str], wanted: list[re.Match]) -> bool:
    """Whether the words ``found`` misspell the name's words ``wanted`` (:func:`respelled`)."""
    pairs = ((_bare(f), _bare(w.group())) for f, w in zip(found, wanted, strict=True))
    differ = [(f, w) for f, w in pairs if f != w]
    if len(differ) != 1:
        return False
    f, w = differ[0]
    if (
        f[0] != w[0]
        or len(w) < 4
        or f == w + "s"
        or not _VOWEL.search(w)
        or (len(wanted) == 1 and (len(w) < 5 or f.startswith(w) or w.startswith(f)))
    ):
        return False
    return SequenceMatcher(None, f, w).ratio() >= _MISSPELT


def _bare(word: str) -> str:
    """``word`` in lower case without apostrophes ("Rosa's" -> "rosas")."""
    return re.sub("['’]", "", word.lower())


def _whose(answer: str, name: str) -> str:
    """``answer`` saying it is about the place ``name`` ("Meghna: Free parking is available."), unless it names it."""
    return answer if _names(answer, name) else f"{name}: {answer}"


def _names(text: str, name: str) -> bool:
    """Whether ``text`` writes the place ``name`` (any case, with or without a leading "the")."""
    return _bare_name(name) in text.lower()


def _bare_name(name: str) -> str:
    """``name`` lower-cased without a leading "the": what a text writes of it, with or without the article."""
    return re.sub(r"^the ", "", name.lower())


def _name_tail(old_name: str) -> str:
    """A regex for capitalised words a response writes right after a name as more of *that* name: a word opening
    with the first four letters of a word of ``old_name`` ("Guesy Lodge" after "The Arbury" for ARBURY LODGE
    GUESTHOUSE, "Restauarant" for EFES RESTAURANT), or "B&B" for a bed and breakfast; case-sensitive, so "the Acorn
    Guest House has" stops. Other place words stay: "The Golden Curry Restaurant" is how responses write the name."""
    words = old_name.lower().split()
    stems = sorted({w[:4] for w in words if len(w) >= 4 and w.isalpha()})
    forms = [re.escape(s[0].upper() + s[1:]) + "[a-z']*" for s in stems]
    if "breakfast" in words:
        forms.append("B&B")
    if not forms:
        return ""
    return r"(?-i:(?:\s+(?:" + "|".join(forms) + r")\b)*)"


_TYPED_NAME = re.compile(
    r"\b(?:hotel|house|guesthouse|lodge|restaurant|inn|breakfast|b&b|cafe|bar|bistro|grill|kitchen)$", re.IGNORECASE
)
"""A name that says what kind of place it is (its last word)."""


_PLACE_WORD_AFTER = (
    r"(?-i:(?:\s+(?:Hotel|Guest House|Guesthouse|Restaurant|Lodge|Inn|B&B|Bed and Breakfast|Cafe|Bar)\b)?)"
)
"""A place-type word a response writes after a name ("The Acorn Hotel"), taken with it when the new name has one."""


def swap_entity(response: str, old_name: str | None, new_name: str) -> str:
    """Replace any alias of ``old_name`` in ``response`` with ``new_name`` (case-insensitive), with the capitalised
    words written straight after it as more of the name (:func:`_name_tail`), and a place-type word after those when
    ``new_name`` ends with one itself ("The Acorn Hotel is quiet" for HUNTINGDON MARRIOTT HOTEL: not "Huntingdon
    Marriott Hotel Hotel"; "Curry Garden Restaurant" stays). A misspelling of ``old_name`` goes too (:func:`respelled`:
    "Good Luck Chinese Food Takeway" had stayed in a comparison borrowed for three other restaurants)."""
    response = respelled(response, old_name)
    forms = sorted((a for a in aliases(old_name or "", written=True) if len(a) >= 3), key=len, reverse=True)
    if not forms:
        return response
    names = "|".join(r"\s+".join(map(re.escape, f.split())) for f in forms)
    pattern = r"\b(the\s+)?(" + names + r")\b" + _name_tail(old_name or "")
    if _TYPED_NAME.search(new_name.strip()):
        pattern += _PLACE_WORD_AFTER
    return _write_name(response, pattern, new_name)


def mid_sentence(name: str) -> str:
    """``name`` as written inside a sentence: "The Golden Curry" -> "the Golden Curry" ("at the Golden Curry")."""
    return "the " + name[4:] if name.startswith("The ") else name


def _write_name(response: str, pattern: str, new_name: str) -> str:
    """``pattern``'s matches in ``response`` replaced by ``new_name``, "The X" written "the X" mid-sentence."""
    inner = mid_sentence(new_name)

    def name_at(match: re.Match) -> str:
        before = response[: match.start()].rstrip()
        return new_name if not before or before[-1] in ".!?" else inner

    return re.sub(pattern, name_at, response, flags=re.IGNORECASE)


def swap_entities(response: str, renames: Sequence[tuple[str | None, str]]) -> str:
    """:func:`swap_entity` for several ``(old name, new name)`` pairs at once (through placeholders, so that a new
    name that is also an old one is not swapped twice)."""
    for i, (old, _) in enumerate(renames):
        response = swap_entity(response, old, f"\x00{i}\x00")
    for i, (_, new) in enumerate(renames):
        response = _write_name(response, f"\x00{i}\x00", new)
    return response


def entity_renames(
    trained: Sequence[tuple], selected: Sequence[tuple], old_names: Mapping, new_names: Mapping
) -> list[tuple[str | None, str]]:
    """How a comparison answer about the ``trained`` entities ((domain, entity id), in key order) is rewritten for
    the ``selected`` ones: an entity in both keeps its name, the others are paired in order; ``(old name, new
    name)`` pairs, names from ``old_names`` / ``new_names`` (the new ones written as the responses write them)."""
    free = [e for e in selected if e not in trained]
    renames = []
    for entity in trained:
        if entity not in selected and free:
            new = free.pop(0)
            renames.append((old_names.get(entity), display_name(new_names.get(new))))
    return renames

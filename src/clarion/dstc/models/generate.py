"""Response generation (DSTC9 Track 1 task 3) without a language model: three cheap generators.

- ``template``: extractive. An FAQ answer is returned as is (DSTC9/10 answers are FAQ bodies); review
  sentences are turned into reported speech ("Guests of X say that they ...": first person becomes third
  person) and joined, best first.
- ``neighbour``: retrieve-and-choose. The ``k`` most similar training turns (cosine of the MiniLM embeddings
  of the user turns plus that of the selected snippets, so that a "yes, it is quiet" answer is borrowed from a
  turn whose knowledge also said so) give candidate responses, with the training entity's name replaced by
  this turn's entity name; the candidate that agrees most with the others (unigram+bigram Dice overlap) is
  returned — minimum Bayes risk selection (Kumar & Byrne, 2004); on our dev split it beat the single nearest
  response on every metric.
- ``consensus`` (default): the ``neighbour`` pool widened and re-weighted: the ``k`` nearest training turns
  plus every training turn whose gold snippet set equals the selected one (weight ``exact_weight``; DSTC11 reuses
  an entity's aspect annotation across dialogues, so such turns answer the very same snippets) or, when there is
  none, every one whose gold set overlaps it (Jaccard >= ``overlap``, weight ``exact_weight`` x Jaccard). Their trailing
  follow-up questions are cut off, the body with the highest weighted expected 1-4-gram F1 against the others
  is chosen (MBR, Kumar & Byrne, 2004, with a BLEU-like n-gram utility), the answer of each selected FAQ whose
  content words the body mostly lacks is added (``faq_cover``), and a fixed follow-up question for
  the domain is appended (chosen on a validation slice of the train split; BLEU's n-gram precision and brevity
  penalty reward the frequent "Would you like to ..." ending over each neighbour's own wording). A selection about
  several entities is answered by a training comparison with every entity renamed, and asks "... know more about
  either of them?".
  docs/dstc_generation.md has the measurements.
- ``lm``: the packaged SmolLM2-135M fine-tuned on the training responses (:mod:`clarion.dstc.models.lm`, the
  ``generate`` extra) proposes candidates (greedy and sampled); MBR against them and the ``consensus`` pool
  picks one (:func:`lm_consensus_response`), its closing question replaced by the domain's.

The first three are pure functions of plain data; :class:`DstcModel` picks one by the :class:`Generator` Enum.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from difflib import SequenceMatcher
from enum import Enum
from functools import lru_cache
from typing import NamedTuple

import numpy as np

from clarion.dstc.io import key_entities
from clarion.dstc.models.entities import EntityTracker, aliases

_PRONOUNS = {
    "i": "they",
    "me": "them",
    "my": "their",
    "mine": "theirs",
    "myself": "themselves",
    "we": "they",
    "us": "them",
    "our": "their",
    "ours": "theirs",
    "ourselves": "themselves",
    "i'm": "they're",
    "i've": "they've",
    "i'd": "they'd",
    "i'll": "they'll",
    "we're": "they're",
    "we've": "they've",
    "we'd": "they'd",
    "we'll": "they'll",
}
_WORD = re.compile(r"[A-Za-z']+")
_TOKEN = re.compile(r"[a-z0-9']+")


class Generator(str, Enum):
    """The response generators (library, CLI and model config share this)."""

    template = "template"
    neighbour = "neighbour"
    consensus = "consensus"
    lm = "lm"  # SmolLM2-135M fine-tuned on the training responses (clarion.dstc.models.lm)


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


def third_person(sentence: str) -> str:
    """First-person review text in the third person: "I loved my room" -> "they loved their room"."""

    def swap(match: re.Match) -> str:
        word = match.group(0)
        return _PRONOUNS.get(word.lower(), word)

    text = _WORD.sub(swap, sentence.strip()).replace("they was", "they were").replace("they am", "they are")
    text = _THEIR_X_AND_THEY.sub(r"\1hey and their \2", text)  # "my wife and I" -> "they and their wife"
    text = _THEM_AND_THEIR.sub(r"\1hey and their", text)  # "Me and my wife loved it" -> "they and their wife ..."
    return text[:1].lower() + text[1:] if text[1:2].islower() else text


_THEIR_X_AND_THEY = re.compile(r"(?:^|(?<=, )|(?<=\band ))([Tt])heir (\w+(?: \w+)?) and they\b")  # a subject
_THEM_AND_THEIR = re.compile(r"^([Tt])hem and their\b")


@dataclass(frozen=True)
class Selected:
    """What a generator reads: the chosen snippets' texts and types, and the entity's display name."""

    name: str
    reviews: tuple[str, ...] = ()
    faqs: tuple[str, ...] = ()  # FAQ answers


def as_sentence(text: str) -> str:
    """``text`` stripped, with a full stop when it does not end as a sentence does ("Pets are not allowed at
    avalon" is one of 58 DSTC11 FAQ answers written without one)."""
    text = text.strip()
    return text if not text or re.search(r"[.!?][\"')\]]*$", text) else f"{text}."


def template_response(selected: Selected, max_reviews: int = 2) -> str:
    """The extractive template (see the module docstring)."""
    parts = [as_sentence(f) for f in selected.faqs[:1]]
    reviews = [reported(r, selected.name) for r in selected.reviews[:max_reviews]]
    if reviews:
        parts.append(f"Guests of {selected.name} say that " + ", and ".join(reviews) + ".")
    return " ".join(parts) if parts else f"I'm sorry, I have no information about that for {selected.name}."


def snippets_used(snippets: Sequence, max_reviews: int = 2) -> list:
    """The ``snippets`` :func:`snippets_response` puts into words: per entity, its first FAQ and its first
    ``max_reviews`` reviews, in the order given."""
    used, faqs, reviews = [], {}, {}
    for s in snippets:
        entity = (s.domain, s.entity_id)
        if s.doc_type == "review":
            reviews[entity] = reviews.get(entity, 0) + 1
            if reviews[entity] <= max_reviews:
                used.append(s)
        elif entity not in faqs:
            faqs[entity] = s
            used.append(s)
    return used


def reported(review: str, name: str) -> str:
    """``review`` in reported speech about the place ``name`` (:func:`third_person`, its first letter as the review
    wrote it when it opens with the name), without its closing punctuation: what follows "Guests of X say that"."""
    return _name_kept(review, third_person(review), name).rstrip(".!? ")


def _name_kept(review: str, reported: str, name: str) -> str:
    """``reported`` (:func:`third_person` of ``review``) with its first letter as ``review`` wrote it when the review
    opens with the place's name: "Bloomsbury Restaurant was a great choice" is not "bloomsbury Restaurant was ..."."""
    first = next((w for w in name.lower().split() if w not in _SMALL_WORDS), None)
    opening = review.split(maxsplit=1)[0].lower().strip(",.!?'\"") if review.strip() else ""
    return review.strip()[:1] + reported[1:] if first is not None and opening == first else reported


def snippets_response(snippets: Sequence, names: Mapping, max_reviews: int = 2) -> str:
    """:func:`template_response` of the selected ``snippets`` (:class:`~clarion.dstc.io.Snippet`), one per entity
    in order of appearance (each entity's reviews under its own name), joined; ``names``: (domain, entity id) ->
    name. An FAQ answer that writes its place's name as the knowledge's upper-case name ("There is no onsite fitness
    center at LOVELL LODGE.", 249 of DSTC11's 2,869) gets it as :func:`display_name` writes it."""
    entities = list(dict.fromkeys((s.domain, s.entity_id) for s in snippets))
    parts = []
    for entity in entities:
        own = [s for s in snippets if (s.domain, s.entity_id) == entity]
        raw, name = names.get(entity), display_name(names.get(entity))
        reviews = tuple(s.body for s in own if s.doc_type == "review")
        faqs = tuple(_display_written(s.body, raw) for s in own if s.doc_type != "review")
        if len(entities) > 1:  # several places: an answer that does not say whose gets the name
            faqs = tuple(_whose(f, name) for f in faqs)
        parts.append(template_response(Selected(name, reviews, faqs), max_reviews))
    return " ".join(parts)


def _display_written(text: str, name: str | None) -> str:
    """``text`` with its place's upper-case ``name`` as :func:`display_name` writes it, "the" mid-sentence
    ("Shuttle service is not provided at THE CAMBRIDGE BELFRY." -> "... at the Cambridge Belfry."), a misspelt
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


@dataclass
class NeighbourBank:
    """Training responses with their query and knowledge embeddings, entity names and gold snippet keys."""

    responses: list[str]
    names: list[str | None]
    query_emb: np.ndarray  # (n, 384)
    knowledge_emb: np.ndarray  # (n, 384), mean of the gold snippets' embeddings
    keys: list[frozenset] = field(default_factory=list)  # gold snippet keys per turn (empty: unknown)
    entity_names: dict = field(default_factory=dict)  # (domain, entity id) -> name, for every entity of ``keys``
    body_emb: np.ndarray | None = None  # (n, 384): each response's body, names cut (:func:`body_texts`; None: none)
    _by_keys: dict | None = field(default=None, init=False, repr=False, compare=False)
    _by_key: dict | None = field(default=None, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        """Refuse arrays that do not have one row per response (a damaged model directory)."""
        n = len(self.responses)
        if len(self.names) != n or (self.keys and len(self.keys) != n):
            raise ValueError(f"neighbour bank: {n} responses but {len(self.names)} names and {len(self.keys)} key sets")
        for label in ("query_emb", "knowledge_emb", "body_emb"):
            rows = getattr(self, label)
            if rows is not None and (rows.ndim != 2 or rows.shape[0] != n):
                raise ValueError(f"neighbour bank: {label} has shape {rows.shape}, expected {n} rows")

    def same_knowledge(self, keys: Sequence[tuple]) -> list[int]:
        """Indices of the training turns whose gold snippet set is exactly ``keys``."""
        if self._by_keys is None:
            self._by_keys = {}
            for i, turn_keys in enumerate(self.keys):
                self._by_keys.setdefault(turn_keys, []).append(i)
        return list(self._by_keys.get(frozenset(keys), [])) if keys else []

    def overlapping(self, keys: Sequence[tuple], minimum: float) -> list[tuple[int, float]]:
        """``(index, Jaccard)`` of the training turns whose gold snippet set shares at least ``minimum`` (Jaccard) with
        ``keys`` and spans as many entities, other than those whose set is exactly ``keys``."""
        if self._by_key is None:
            self._by_key = {}
            for i, turn_keys in enumerate(self.keys):
                for key in turn_keys:
                    self._by_key.setdefault(key, []).append(i)
        selected = frozenset(keys)
        entities = len(key_entities(selected))
        out = []
        for i in sorted({i for key in selected for i in self._by_key.get(key, ())}):
            other = self.keys[i]
            jaccard = len(other & selected) / len(other | selected)
            if other != selected and jaccard >= minimum and len(key_entities(other)) == entities:
                out.append((i, jaccard))
        return out

    def nearest(self, query_emb: np.ndarray, knowledge_emb: np.ndarray, weight: float = 1.0, k: int = 1) -> list[int]:
        """Indices of the ``k`` most similar training turns, most similar first."""
        score = self.query_emb @ query_emb + weight * (self.knowledge_emb @ knowledge_emb)
        return [int(i) for i in np.argsort(-score, kind="stable")[:k]]


def _ngrams(text: str) -> set:
    words = _TOKEN.findall(text.lower())
    return set(words) | set(zip(words, words[1:], strict=False))


def mbr_choice(candidates: Sequence[str]) -> int:
    """Index of the candidate with the highest summed Dice overlap (unigrams + bigrams) with the others."""
    grams = [_ngrams(c) for c in candidates]

    def dice(a: set, b: set) -> float:
        return 2 * len(a & b) / (len(a) + len(b)) if a and b else 0.0

    gains = [sum(dice(g, h) for j, h in enumerate(grams) if j != i) for i, g in enumerate(grams)]
    return int(np.argmax(gains)) if gains else 0


def neighbour_response(
    bank: NeighbourBank,
    query_emb: np.ndarray,
    knowledge_emb: np.ndarray,
    name: str,
    weight: float = 1.0,
    k: int = 20,
) -> str:
    """The MBR choice among the ``k`` nearest training responses, entity names swapped for ``name``."""
    if not bank.responses:
        return ""
    nearest = bank.nearest(query_emb, knowledge_emb, weight, k)
    candidates = [swap_entity(bank.responses[i], bank.names[i], name) for i in nearest]
    return candidates[mbr_choice(candidates)]


_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")
FOLLOW_UP = "Would you like to make a reservation?"
FOLLOW_UPS = {"hotel": "Would you like to book a room?", "restaurant": FOLLOW_UP}
_BOOKING_OFFERS = frozenset(FOLLOW_UPS.values())  # FOLLOW_UP is the restaurants' offer
"""The appended question by domain (else :data:`FOLLOW_UP`): the best of the five most frequent closing
questions of the train responses, then a per-domain variant, on a validation slice of the train split
(docs/dstc_generation.md)."""
FOLLOW_UP_OTHER = "Do you have any other questions?"
"""The appended question after an answer that says the place takes no reservations (:func:`closed`): the most
frequent closing question of the train responses that offers no booking."""
FOLLOW_UP_TWO = "Would you like to know more about either of them?"
FOLLOW_UP_MANY = "Would you like to know more about any of them?"
"""The appended question when the selected snippets are about two / more entities (a comparison: there is no one
place to book; the most frequent closing question of such train responses, docs/dstc_generation.md)."""


def split_follow_up(response: str) -> tuple[str, str | None]:
    """``(body, question)``: a response's closing question sentence split off (None when it has none)."""
    sentences = _SENTENCE_END.split(response.strip())
    if len(sentences) > 1 and sentences[-1].endswith("?"):
        return " ".join(sentences[:-1]), sentences[-1]
    return response.strip(), None


def body_texts(responses: Sequence[str], tracker: EntityTracker) -> list[str]:
    """Each response's body (:func:`split_follow_up`) with entity names cut (:meth:`EntityTracker.strip_names`): what
    the bank's ``body_emb`` embeds, so that a body is compared with a turn by what it says, not whom it names."""
    return [tracker.strip_names(split_follow_up(response)[0]) for response in responses]


def ngram_utility(texts: Sequence[str], order: int = 4) -> np.ndarray:
    """``U[i, j]``: the mean over n = 1..``order`` of the F1 of the n-gram sets of ``texts[i]`` and ``texts[j]``.

    Sets (not counts) of lowercased word n-grams; the intersections are one indicator-matrix product per order.
    """
    n = len(texts)
    words = [_TOKEN.findall(t.lower()) for t in texts]
    utility = np.zeros((n, n))
    for size in range(1, order + 1):
        grams = [{tuple(w[i : i + size]) for i in range(len(w) - size + 1)} for w in words]
        vocab: dict[tuple, int] = {}
        rows = [i for i, g in enumerate(grams) for _ in g]
        cols = [vocab.setdefault(x, len(vocab)) for g in grams for x in g]
        matrix = np.zeros((n, max(len(vocab), 1)), dtype=np.float32)
        matrix[rows, cols] = 1.0
        common = (matrix @ matrix.T).astype(float)
        sizes = np.array([len(g) for g in grams], dtype=float)
        total = sizes[:, None] + sizes[None, :]
        utility += np.divide(2 * common, total, out=np.zeros_like(common), where=total > 0)
    return utility / order


def mbr_weighted(
    texts: Sequence[str],
    weights: Sequence[float],
    order: int = 4,
    candidates: int | None = None,
    scale: Sequence[float] | None = None,
) -> int:
    """Index of the text with the highest weighted mean utility against the other texts (MBR).

    ``candidates``: only the first ``candidates`` texts can be chosen; the rest are evidence only. ``scale``: a
    factor on each text's expected utility (a prior; None: 1 for every text).
    """
    if len(texts) < 2:
        return 0
    return int(np.argmax(mbr_expected(texts, weights, order, scale)[:candidates]))


def mbr_expected(
    texts: Sequence[str], weights: Sequence[float], order: int = 4, scale: Sequence[float] | None = None
) -> np.ndarray:
    """Each text's weighted mean utility against the other texts (what :func:`mbr_weighted` maximises)."""
    weights = np.asarray(weights, dtype=float)
    utility = ngram_utility(texts, order)
    np.fill_diagonal(utility, 0.0)
    expected = (utility @ weights) / np.maximum(weights.sum() - weights, 1e-9)
    if scale is not None:
        expected = expected * np.asarray(scale, dtype=float)
    return expected


def aspect_holders(bodies: Sequence[str], turn: str, choice: int) -> list[int] | None:
    """When the chosen body (``choice``) holds no content word of ``turn`` (names cut): the indices of ``bodies``
    holding every word of the turn that at least two bodies, and at least half of them, hold; else ``None``. "How are
    the beds?": 8 of 10 choosable bodies about beds, and the MBR centre of a pool full of answers about the same
    place's rooms had been "Half thought the rooms were cramped and half thought they were spacious."."""
    held, asked = [content_words(body) for body in bodies], content_words(turn)
    if asked & held[choice]:
        return None
    missed = [w for w in sorted(asked) if (n := sum(w in h for h in held)) >= 2 and 2 * n >= len(bodies)]
    if not missed:
        return None
    return [j for j, h in enumerate(held) if all(w in h for w in missed)] or None


def words_of(text: str) -> list[str]:
    """Lower-cased word tokens of ``text``."""
    return _TOKEN.findall(text.lower())


class Pool(NamedTuple):
    """The ``consensus`` pool: bodies (entity swapped, closing question cut), their MBR weights, and how many of
    them (the first ``choosable``) may be the answer; the rest are evidence only. ``choosable`` is 0 when no body
    may be the answer (every one is about another domain, or names an entity outside the selection)."""

    bodies: list[str]
    weights: list[float]
    choosable: int
    scale: list[float] | None = None
    """A factor on each body's MBR expected utility (None: 1 for every body)."""
    sources: list[int] | None = None
    """Each body's training turn (its index in the bank; None: unknown)."""


def consensus_pool(
    bank: NeighbourBank,
    query_emb: np.ndarray,
    knowledge_emb: np.ndarray,
    name: str,
    keys: Sequence[tuple] = (),
    k: int = 30,
    exact_weight: float = 3.0,
    overlap: float | None = None,
    entity_names: Mapping | None = None,
    tracker: EntityTracker | None = None,
    relevance: float | None = None,
    exact_relevance: float | None = None,
) -> Pool:
    """The ``consensus`` pool (steps 1-3 above). A training answer still votes but cannot be chosen when it is
    about another domain than the selected ``keys`` (a hotel answer, "the rooms provide good value", for a
    restaurant) or, when ``keys`` are about one entity, about several (a comparison, which names the other entity:
    "The portions at Efes ..., but views are mixed on the portion sizes at X").

    ``overlap``: when no training turn answered exactly ``keys`` (a selection that missed or added a snippet), the
    turns whose gold set overlaps it by at least this Jaccard join with weight ``exact_weight`` x Jaccard, as members
    of their own even when they are among the nearest too (so such a turn votes for itself as well; None: off).

    ``entity_names`` ((domain, entity id) -> name of the selected entities; None: off): when ``keys`` span several
    entities, a comparison answer has every entity renamed (:func:`entity_renames`, with the bank's
    ``entity_names``), and only comparisons may be chosen when the pool holds one (a one-entity answer leaves out
    the other entities).

    ``tracker`` (the knowledge base's entity names; None: off): a body that still names an entity outside the
    selection once renamed (a training comparison of three places, "... and Allenbell had no views on the noise",
    borrowed for two) votes but cannot be chosen; so does a comparison of more places than the selection, whose
    extra place may go by a short form no alias catches ("The Pizza Hut", "Midsummer").

    ``relevance`` (None: off; needs the bank's ``body_emb``): when no training turn answered exactly ``keys``, a body
    whose cosine to the turn (``query_emb``) is more than this below the best choosable body's votes but cannot be
    chosen. Such a pool gathers answers about the same knowledge, and its MBR centre can be about another aspect of
    it ("the portion sizes" for "Is the food authentic?"); docs/dstc_generation.md has the measurements.

    ``exact_relevance`` (None: off; needs ``body_emb``): when training turns answered exactly ``keys``, their bodies
    stay choosable and any other body whose cosine to the turn is more than this below the best of theirs votes but
    cannot be chosen (four bed reviews selected, the exact-set answer about the beds, and the pool's centre among its
    many answers about the same place's rooms: "Most guest reviews have spoken of large rooms").
    """
    pool = bank.nearest(query_emb, knowledge_emb, 1.0, k)
    weights = [1.0] * len(pool)
    same = bank.same_knowledge(keys)
    for i in same:
        if i in pool:
            weights[pool.index(i)] = exact_weight
        else:
            pool.append(i)
            weights.append(exact_weight)
    if overlap is not None and keys and bank.keys and not same:
        for i, jaccard in bank.overlapping(keys, overlap):  # a member of its own (a neighbour too counts twice)
            pool.append(i)
            weights.append(exact_weight * jaccard)
    ok = [True] * len(pool)
    selected = key_entities(keys)
    trained = [sorted(key_entities(bank.keys[i]), key=str) if bank.keys else [] for i in pool]
    compare = entity_names is not None and len(selected) > 1 and bool(bank.entity_names)
    if keys and bank.keys:
        domains, single = {key[0] for key in keys}, len(selected) == 1
        ok = [
            {key[0] for key in bank.keys[i]} == domains and (not single or len(trained[j]) <= 1)
            for j, i in enumerate(pool)
        ]
        comparisons = [ok[j] and len(trained[j]) > 1 for j in range(len(pool))]
        if compare and any(comparisons):
            ok = comparisons
            if tracker is not None:  # faithful: a comparison of more places than the selection keeps the others' names
                ok = [ok[j] and len(trained[j]) <= len(selected) for j in range(len(pool))]
    bodies = []
    for j, i in enumerate(pool):
        if compare and len(trained[j]) > 1:
            text = swap_entities(
                bank.responses[i], entity_renames(trained[j], selected, bank.entity_names, entity_names)
            )
            for entity in (e for e in trained[j] if e in selected):  # a shared place keeps its name, spelt right
                text = respelled(text, bank.entity_names.get(entity))
        else:
            text = swap_entity(bank.responses[i], bank.names[i], name)
        bodies.append(split_follow_up(text)[0])
    if tracker is not None and keys:
        ok = [ok[j] and not tracker.outside(bodies[j], selected) for j in range(len(pool))]
    gate = exact_relevance if same else relevance  # the yardstick: the exact-set bodies, else every choosable one
    if gate is not None and bank.body_emb is not None and sum(ok) > 1:
        fits, exact = bank.body_emb[pool] @ query_emb, set(same)
        yardstick = [float(fits[j]) for j in range(len(pool)) if ok[j] and (not exact or pool[j] in exact)]
        if yardstick:
            best = max(yardstick)
            ok = [ok[j] and (pool[j] in exact or float(fits[j]) >= best - gate) for j in range(len(pool))]
    choosable = sum(ok) if tracker is not None and keys else max(sum(ok), 1)
    order = [j for j in range(len(pool)) if ok[j]] + [j for j in range(len(pool)) if not ok[j]]
    return Pool([bodies[j] for j in order], [weights[j] for j in order], choosable, None, [pool[j] for j in order])


def consensus_response(
    bank: NeighbourBank,
    query_emb: np.ndarray,
    knowledge_emb: np.ndarray,
    name: str,
    keys: Sequence[tuple] = (),
    k: int = 30,
    exact_weight: float = 3.0,
    follow_up: str | None = None,
    overlap: float | None = None,
    faqs: Sequence[tuple[str, str | None]] = (),
    faq_cover: float | None = None,
    entity_names: Mapping | None = None,
    tracker: EntityTracker | None = None,
    fallback: str | None = None,
    relevance: float | None = None,
) -> str:
    """The ``consensus`` generator (see the module docstring); ``keys`` are the selected snippets' keys.

    ``follow_up``: the appended question (None: :data:`FOLLOW_UPS` by the domain of ``keys[0]``; "": none).
    ``overlap``, ``entity_names``, ``tracker``, ``relevance``: see :func:`consensus_pool`. ``faqs``, ``faq_cover``: see
    :func:`with_faq_answers`. ``fallback``: see :func:`consensus_choice`.

    Call it with BLAS single-threaded (``threadpoolctl.threadpool_limits(1, "blas")`` around the whole batch, as
    ``DstcModel.predict`` does): BLAS threads spin on these small products and cost 10x on a busy CPU.
    """
    if not bank.responses:
        return ""
    pool = consensus_pool(
        bank, query_emb, knowledge_emb, name, keys, k, exact_weight, overlap, entity_names, tracker, relevance
    )
    return consensus_choice(pool, keys, follow_up, faqs, faq_cover, fallback)


def consensus_choice(
    pool: Pool,
    keys: Sequence[tuple],
    follow_up: str | None = None,
    faqs: Sequence[tuple[str, str | None]] = (),
    faq_cover: float | None = None,
    fallback: str | None = None,
    turn: str | None = None,
    denials: bool = False,
    aspect_turn: str | None = None,
    unpolar: bool = False,
) -> str:
    """The MBR choice among ``pool``'s choosable bodies with the follow-up question appended (see
    :func:`consensus_response`); with ``faq_cover``, the selected ``faqs`` it misses are added before the question
    (:func:`with_faq_answers`). When no body is choosable, ``fallback`` is the body (the selected snippets'
    :func:`template_response`: no training answer fits); without one, the pool's first body. A ``turn`` that asks an
    open question, or a "Yes" to the opposite of what it asks (:func:`yes_to_the_opposite`), gets the body without
    its yes/no opener (:func:`without_polar_opener`). With ``aspect_turn`` (the turn, names cut), a choice lacking
    a word of the turn that most choosable bodies hold is made again among those holding it (:func:`aspect_holders`).
    ``unpolar``: the body loses its yes/no opener whatever the turn (a question about complaints, whose "Yes" would
    say there are some: "Are there any complaints about the rooms?" -> "Yes, the rooms ... are very quiet.")."""
    if pool.choosable == 0 and fallback is not None:
        body = fallback
    else:
        choosable = max(pool.choosable, 1)
        expected = mbr_expected(pool.bodies, pool.weights, scale=pool.scale) if len(pool.bodies) > 1 else np.zeros(1)
        choice = int(np.argmax(expected[:choosable]))
        if aspect_turn and choosable > 1:
            holders = aspect_holders(pool.bodies[:choosable], aspect_turn, choice)
            if holders is not None:
                choice = max(holders, key=lambda j: expected[j])
        body = pool.bodies[choice]
        if unpolar or (turn is not None and (asks_open(turn) or yes_to_the_opposite(turn, body))):
            body = without_polar_opener(body)
        if faq_cover is not None:
            body = with_faq_answers(body, faqs, faq_cover, denials, len(key_entities(keys)) > 1)
    if follow_up is None:
        follow_up = follow_up_for(keys)
    return closed(body, follow_up)


_OPEN_QUESTION = re.compile(r"^\W*(?:how|what|which|where|when|who|whom|whose|why)(?:'s|'re|\b)", re.IGNORECASE)
_POLAR_SENTENCE = re.compile(
    r"^(?:(?:yes|no)\b[,!]?\s*)?(?:(?:i\s+(?:believe|think)\s+)?(?:it|they|you|we|i)\s+"
    r"(?:do|does|did|can|is|are|will|have|has)(?:n't|\s+not)?"
    r"|yes|no)[.!]\s+(?=\S)",
    re.IGNORECASE,
)
_POLAR_WORD = re.compile(r"^(?:yes|no)\b[,!]?\s+(?=\w)", re.IGNORECASE)


def asks_open(turn: str) -> bool:
    """Whether the last question of ``turn`` (its last sentence ending with "?", else its last sentence) opens with
    a wh-word: "How's the interior at the restaurant?", not "Is it good for kids?" nor "I'd like to know if ..."."""
    sentences = [s for s in _SENTENCE_END.split(turn.strip()) if s]
    asked = [s for s in sentences if s.rstrip().endswith("?")] or sentences
    return bool(asked) and bool(_OPEN_QUESTION.match(asked[-1]))


def yes_to_the_opposite(turn: str, body: str) -> bool:
    """Whether ``body`` opens with "Yes" and its first sentence says the opposite of an adjective of ``turn``: a
    WordNet antonym of it that the turn does not hold, and not the adjective itself ("Is it noisy at night?" / "Yes,
    Acorn Guest House is quiet."). Hyphenated words stay whole ("non-alcoholic" holds no "alcoholic")."""
    if not re.match(r"\W*yes\b", body, re.IGNORECASE):
        return False
    asked = set(_HYPHENATED.findall(turn.lower()))
    said = set(_HYPHENATED.findall(_SENTENCE_END.split(body.strip())[0].lower()))
    return any(w not in said and (antonyms(w) & said) - asked for w in asked)


_HYPHENATED = re.compile(r"[a-z]+(?:-[a-z]+)*")


@lru_cache(maxsize=4096)
def antonyms(word: str) -> frozenset[str]:
    """The WordNet antonyms of ``word`` as an adjective (also those of the heads its satellite senses are similar to:
    "noisy" -> {"quiet"}, "dirty" -> {"clean"}); Debian's WordNet (:func:`clarion.evaluate.dstc9.debian_wordnet`)."""
    from clarion.evaluate.dstc9 import debian_wordnet

    wordnet = debian_wordnet()
    out = set()
    for synset in wordnet.synsets(word, pos="a") + wordnet.synsets(word, pos="s"):
        for sense in [synset, *synset.similar_tos()]:
            out.update(a.name().lower() for lemma in sense.lemmas() for a in lemma.antonyms())
    return frozenset(out)


def without_polar_opener(body: str) -> str:
    """``body`` without an opening sentence that only says yes or no ("It does.", "Yes you can.") or, else, without
    an opening "Yes," / "No," (the next letter capitalised): a borrowed answer to a yes/no question does not answer
    "How good is the service at Kohinoor?" with "Yes, the service at Kohinoor is great and friendly."."""
    match = _POLAR_SENTENCE.match(body)
    if match is None or re.match(r"(?:but|however|although|though|and|yet)\b", body[match.end() :], re.IGNORECASE):
        match = _POLAR_WORD.match(body)  # "They do not. But the food is good." keeps its first sentence
    if match is None:
        return body
    rest = body[match.end() :]
    return rest[:1].upper() + rest[1:]


def foreign_details(body: str, source_words: frozenset[str], allowed: set[str], specific: frozenset[str]) -> list[str]:
    """The words of a borrowed ``body`` its writer took from the knowledge of the place it was written for
    (``source_words``) that are ``specific`` (in the knowledge of few places) and not ``allowed`` (the selected places'
    knowledge and the user's turn): "chow mein" borrowed for an Indian restaurant, "oceanfront"."""
    return [w for w in words_of(body) if w in specific and w in source_words and w not in allowed]


def with_detail_penalty(pool: Pool, details: Sequence[bool], penalty: float) -> Pool:
    """``pool`` with each choosable body that has foreign details (``details[j]``) scaled by ``1 - penalty`` in the MBR
    choice; it still votes at full weight."""
    scale = list(pool.scale) if pool.scale is not None else [1.0] * len(pool.bodies)
    for j in range(pool.choosable):
        if details[j]:
            scale[j] *= 1.0 - penalty
    return pool._replace(scale=scale)


def content_words(text: str) -> set[str]:
    """Porter stems of the lower-cased words of ``text`` without scikit-learn's English stop words ("alcoholic" and
    "alcohol", "seating" and "seat" are one word; "Wi-Fi" and "wifi" too)."""
    from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS  # imported once; later calls find it loaded

    text = _WIFI.sub("wifi", text)
    return {_stem(w) for w in words_of(text) if w not in ENGLISH_STOP_WORDS}


_WIFI = re.compile(r"\bwi-?fi\b", re.IGNORECASE)
"""How texts write the wifi: "Wi-Fi" (two words to :func:`words_of`), "WiFi", "wifi"."""


@lru_cache(maxsize=65536)
def _stem(word: str) -> str:
    return _porter().stem(word)


@lru_cache(maxsize=1)
def _porter():
    from nltk.stem.porter import PorterStemmer

    return PorterStemmer()


def faq_answers(snippets: Sequence) -> list[tuple[str, str | None]]:
    """``(answer, entity name)`` of the FAQs among ``snippets`` (:class:`~clarion.dstc.io.Snippet`), for
    :func:`with_faq_answers`."""
    return [(s.body, s.entity_name) for s in snippets if s.doc_type == "faq"]


_NEGATION = re.compile(
    r"\b(?:no|not|never|none|nothing|nor|cannot|without|lacks?|unavailable)\b|n't\b|\b(?:do|does|did|is|are|was|were|has|have|ca|wo)nt\b"
)
_CLAUSE = re.compile(r"(?<=[.!?])\s+|[,;:]|\b(?:but|while|although|though|whereas|however|and)\b", re.IGNORECASE)


def negated(text: str) -> bool:
    """Whether ``text`` holds a negation word ("no", "not", "n't", "never", "without", "lacks", ...)."""
    return bool(_NEGATION.search(text.lower().replace("\u2019", "'")))


def contradicts(body: str, answer: str, name: str | None, question: str | None = None) -> bool:
    """Whether ``body`` says the opposite of the FAQ ``answer``: its clause holding most of the content words of the
    FAQ's ``question`` (of the answer when no question is given; the entity's ``name`` cut) holds at least one, is
    negated where the answer is not or the other way round, and shares a word with what the negated side denies
    (:func:`negation_focus`): "Yes, Zizzi Cambridge has a very nice area for dining outdoors" against "Do you provide
    any outdoor seating?" / "Zizzi Cambridge does not offer outdoor seating.". A negation in another clause ("they
    serve alcohol, but I am not sure about specifics", "... while others say they were not worth the price") does not
    count, nor a body about another side of the topic ("the breakfast options are very good" against "Breakfast is
    not free."). A negation of availability alone ("Outdoor seating is not available.") denies the topic itself."""
    topic = question if question else answer
    words = content_words(swap_entity(topic, name, "") if name else topic)
    if not words or not words & content_words(body):
        return False
    clause = max(_CLAUSE.split(body.strip()), key=lambda part: len(words & content_words(part)))
    if negated(clause) == negated(answer):
        return False
    negative, positive = (answer, clause) if negated(answer) else (clause, answer)
    return bool(denied(negative, words) & content_words(positive))  # "not free" says nothing of how good it is


def denied(text: str, topic: set[str]) -> set[str]:
    """What a negated ``text`` denies (:func:`negation_focus`), or its ``topic`` words too when it denies only that a
    thing is available ("Outdoor seating is not available.": the outdoor seating itself)."""
    focus = negation_focus(text)
    if focus and focus <= _availability():
        focus |= topic
    return focus


@lru_cache(maxsize=1)
def _availability() -> frozenset[str]:
    """Stems of the words with which an FAQ denies that a thing exists at all ("not available", "not offered")."""
    return frozenset(content_words("available offered provided allowed permitted served accepted"))


def negation_focus(text: str, span: int = 3) -> set[str]:
    """Content-word stems of the (up to) ``span`` content words after the first negation in ``text`` — what it
    denies: "Breakfast is not free." -> {free}; "There is no outdoor seating." -> {outdoor, seat}."""
    match = _NEGATION.search(text.lower().replace("\u2019", "'"))
    if match is None:
        return set()
    after = [w for w in words_of(text[match.end() :]) if content_words(w)]
    return set().union(*(content_words(w) for w in after[:span])) if after else set()


def agreeing(pool: Pool, faqs: Sequence[tuple[str, str | None, str]]) -> Pool:
    """``pool`` with the choosable bodies that contradict a selected FAQ, ``(answer, entity name, question)``
    (:func:`contradicts`; :func:`faq_claims`), moved to the voters."""
    if not faqs or pool.choosable == 0:
        return pool
    head = range(pool.choosable)
    ok = [j for j in head if not any(contradicts(pool.bodies[j], a, n, q) for a, n, q in faqs)]
    if len(ok) == pool.choosable:
        return pool
    order = ok + [j for j in head if j not in ok] + list(range(pool.choosable, len(pool.bodies)))
    scale = None if pool.scale is None else [pool.scale[j] for j in order]
    sources = None if pool.sources is None else [pool.sources[j] for j in order]
    return Pool([pool.bodies[j] for j in order], [pool.weights[j] for j in order], len(ok), scale, sources)


def dishes(text: str, specific: frozenset[str], names: frozenset[str] = frozenset()) -> set[str]:
    """The words of ``text`` that name a dish or a drink: ``specific`` (in the knowledge of few places: "biryani",
    "fondue", "mussels"; not "food", "meal", "dishes") and a food in WordNet (:func:`is_food`) or a word WordNet does
    not know ("gimbap", "korma", "noir") that no place's name holds (``names``: "lensfield" of a misspelt name)."""
    return {w for w in words_of(text) if w in specific and (is_food(w) or (unknown_word(w) and w not in names))}


@lru_cache(maxsize=4096)
def unknown_word(word: str) -> bool:
    """Whether WordNet has no synset for ``word`` in any part of speech."""
    from clarion.evaluate.dstc9 import debian_wordnet

    return not debian_wordnet().synsets(word)


@lru_cache(maxsize=4096)
def is_food(word: str) -> bool:
    """Whether a noun sense of ``word`` is a food or a drink in WordNet (food.n.01 or food.n.02 among its
    hypernyms) and ``word`` has no adjective sense ("delicious", "sweet" are read as adjectives)."""
    from clarion.evaluate.dstc9 import debian_wordnet

    wordnet = debian_wordnet()
    if wordnet.synsets(word, pos="a") or wordnet.synsets(word, pos="s"):
        return False
    roots = {wordnet.synset("food.n.01"), wordnet.synset("food.n.02")}
    return any(roots & {synset, *synset.closure(lambda s: s.hypernyms())} for synset in wordnet.synsets(word, pos="n"))


def faq_claims(snippets: Sequence) -> list[tuple[str, str | None, str]]:
    """``(answer, entity name, question)`` of the FAQs among ``snippets``, for :func:`agreeing`."""
    return [(s.body, s.entity_name, s.title) for s in snippets if s.doc_type == "faq"]


def with_faq_answers(
    body: str, faqs: Sequence[tuple[str, str | None]], cover: float, denials: bool = False, several: bool = False
) -> str:
    """``body`` followed by each selected FAQ answer, ``(answer, entity name)``, of which it holds less than
    ``cover`` of the content words (the entity's name written as the responses write it). A training answer chosen
    by consensus can be about the reviews of the same aspect and leave out the fact the selected FAQ states ("the
    view is a parking lot" for "do they have outdoor seating?"); docs/dstc_generation.md has the measurements.

    With ``denials``, an answer that denies (:func:`negated`) is added too when the body holds nothing of what it
    denies (:func:`denied`), and then the body loses its yes/no opener (:func:`without_polar_opener`): "Yes,
    ... Gonville Hotel offers full English/Irish breakfast ..." holds "breakfast", half of "Breakfast is not free.",
    and had answered "Is breakfast included?" without it.

    With ``several`` (the answer is about several places), an added answer that does not name its place says whose,
    as :func:`snippets_response` does ("... El Shaddai is also adequately fast. Alexander Bed and Breakfast: Free Wifi
    internet is available.")."""
    have, parts = content_words(body), [body]
    for answer, entity in faqs:  # swap_entity writes a misspelt name right (respelled) as it cuts or rewrites it
        plain = swap_entity(answer, entity, "") if entity else answer  # the name is no content
        words = content_words(plain)
        if not words:
            continue
        missed = len(words & have) / len(words) < cover
        if not missed and denials and negated(plain) and not denied(plain, words) & have:
            missed = True
            parts[0] = without_polar_opener(parts[0])
        if missed:
            said = as_sentence(swap_entity(answer, entity, display_name(entity)) if entity else answer)
            parts.append(_whose(said, display_name(entity)) if several and entity else said)
            have |= words
    return " ".join(parts)


def follow_up_for(keys: Sequence[tuple], by_entities: bool = False) -> str:
    """The appended question for a response about ``keys``: :data:`FOLLOW_UPS` by the first key's domain; with
    ``by_entities``, :data:`FOLLOW_UP_TWO` / :data:`FOLLOW_UP_MANY` when the keys span two / more entities."""
    if by_entities:
        entities = len(key_entities(keys))
        if entities > 1:
            return FOLLOW_UP_TWO if entities == 2 else FOLLOW_UP_MANY
    return FOLLOW_UPS.get(keys[0][0], FOLLOW_UP) if keys else FOLLOW_UP


def closed(body: str, follow_up: str) -> str:
    """``body`` with the appended question ``follow_up``, except a booking offer after a body that says the place
    takes no reservations (:func:`refuses_reservations`), which gets :data:`FOLLOW_UP_OTHER`: "Pizza Hut City Centre
    does not take reservations. Would you like to make a reservation?" had been the answer to "Can I make a
    reservation for a large group?"."""
    if follow_up in _BOOKING_OFFERS and refuses_reservations(body):
        follow_up = FOLLOW_UP_OTHER
    if follow_up:
        body = without_joined_question(body)
    return f"{body} {follow_up}".strip() if follow_up else body


_JOINED_QUESTION = re.compile(r",\s*(?:would|will|shall|is there|do you|can i|let's)\b[^.!?]*\?$", re.IGNORECASE)
"""A closing question joined to the sentence before it by a comma ("... according to the reviews that I found, would
you like to book a room there tonight?"; 8 of DSTC11's 1,546 responses), which :func:`split_follow_up` (sentence
ends) leaves in the body."""


def without_joined_question(body: str) -> str:
    """``body`` without a comma-joined closing question (:data:`_JOINED_QUESTION`), closed with a full stop: a
    borrowed body had kept its own offer before the appended one ("..., would you like to book a room there tonight?
    Would you like to book a room?")."""
    match = _JOINED_QUESTION.search(body)
    if match is None or not body[: match.start()].strip():
        return body
    return body[: match.start()].rstrip() + "."


def refuses_reservations(text: str) -> bool:
    """Whether a sentence of ``text`` says that reservations are not taken: a negation beside a word for them, not
    of a need and not about another thing booked ("Panahar does not take reservations.", "You cannot make a
    reservation at Ask Restaurant."; not "Reservations are not needed.", "No reservation is needed for parking.")."""
    for sentence in _SENTENCE_END.split(text.strip()):
        if _RESERVATION.search(sentence) and not content_words(sentence) & _not_refusals() and negated(sentence):
            return True
    return False


_RESERVATION = re.compile(r"\b(?:reser|resr|resa)\w*v", re.IGNORECASE)
"""A word for reservations, as the knowledge spells it ("reservations", "reseravtions", "reservatiions")."""


@lru_cache(maxsize=1)
def _not_refusals() -> frozenset[str]:
    """Stems that make a negated sentence about reservations something other than a refusal of bookings at the
    place: another thing booked ("... for parking", "... seats outside") or a need denied ("not needed")."""
    return frozenset(content_words("parking outdoor outside needed required necessary"))


def lm_consensus_response(
    candidates: Sequence[str],
    bodies: Sequence[str],
    weights: Sequence[float],
    keys: Sequence[tuple],
    pool_weight: float,
    follow_up: str | None = None,
) -> str:
    """The ``lm`` generator's answer: the LM candidate (greedy or sampled) with the highest expected utility
    against the other candidates (weight 1 each) and the ``consensus`` pool (its weights x ``pool_weight``),
    its closing question replaced by ``follow_up`` (None: the domain's, :func:`follow_up_for`)."""
    texts = [split_follow_up(c)[0] for c in candidates]
    chosen = mbr_weighted(
        texts + list(bodies), [1.0] * len(texts) + [pool_weight * w for w in weights], candidates=len(texts)
    )
    return with_follow_up(texts[chosen], keys, follow_up)


def with_follow_up(response: str, keys: Sequence[tuple], follow_up: str | None = None) -> str:
    """``response``'s own closing question replaced by ``follow_up`` (None: :func:`follow_up_for` of ``keys``; used on
    the ``lm`` generator's output)."""
    return closed(split_follow_up(response)[0], follow_up_for(keys) if follow_up is None else follow_up)


def mean_embedding(rows: Sequence[np.ndarray] | np.ndarray) -> np.ndarray:
    """The L2-normalised mean of embedding rows (zeros when empty)."""
    arr = np.asarray(rows, dtype=np.float32)
    if arr.size == 0:
        return np.zeros(384, dtype=np.float32)
    mean = arr.mean(axis=0)
    norm = float(np.linalg.norm(mean))
    return mean / norm if norm > 0 else mean

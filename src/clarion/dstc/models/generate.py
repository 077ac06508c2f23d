"""Response generation (DSTC9 Track 1 task 3) without a language model: two cheap generators.

- ``template``: extractive. An FAQ answer is returned as is (DSTC9/10 answers are FAQ bodies); review
  sentences are turned into reported speech ("Guests of X say that they ...": first person becomes third
  person) and joined, best first.
- ``neighbour``: retrieve-and-choose. The ``k`` most similar training turns (cosine of the MiniLM embeddings
  of the user turns plus that of the selected snippets, so that a "yes, it is quiet" answer is borrowed from a
  turn whose knowledge also said so) give candidate responses, with the training entity's name replaced by
  this turn's entity name; the candidate that agrees most with the others (unigram+bigram Dice overlap) is
  returned — minimum Bayes risk selection (Kumar & Byrne, 2004); on our dev split it beat the single nearest
  response on every metric.

Both are pure functions of plain data; :data:`GENERATORS` maps the names (the :class:`Generator` Enum) to them.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from enum import Enum

import numpy as np

from clarion.dstc.models.entities import aliases

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


def display_name(name: str | None) -> str:
    """ "THE GOLDEN CURRY" -> "The Golden Curry"; keeps already mixed-case names."""
    if not name:
        return "this place"
    return " ".join(w[:1].upper() + w[1:].lower() for w in name.split()) if name.isupper() else name


def third_person(sentence: str) -> str:
    """First-person review text in the third person: "I loved my room" -> "they loved their room"."""

    def swap(match: re.Match) -> str:
        word = match.group(0)
        return _PRONOUNS.get(word.lower(), word)

    text = _WORD.sub(swap, sentence.strip()).replace("they was", "they were")
    return text[:1].lower() + text[1:] if text[1:2].islower() else text


@dataclass(frozen=True)
class Selected:
    """What a generator reads: the chosen snippets' texts and types, and the entity's display name."""

    name: str
    reviews: tuple[str, ...] = ()
    faqs: tuple[str, ...] = ()  # FAQ answers


def template_response(selected: Selected, max_reviews: int = 2) -> str:
    """The extractive template (see the module docstring)."""
    parts = list(selected.faqs[:1])
    reviews = [third_person(r).rstrip(".!? ") for r in selected.reviews[:max_reviews]]
    if reviews:
        parts.append(f"Guests of {selected.name} say that " + ", and ".join(reviews) + ".")
    return " ".join(parts) if parts else f"I'm sorry, I have no information about that for {selected.name}."


def swap_entity(response: str, old_name: str | None, new_name: str) -> str:
    """Replace any alias of ``old_name`` in ``response`` with ``new_name`` (case-insensitive)."""
    forms = sorted((a for a in aliases(old_name or "") if len(a) >= 3), key=len, reverse=True)
    if not forms:
        return response
    pattern = r"\b(the\s+)?(" + "|".join(r"\s+".join(map(re.escape, f.split())) for f in forms) + r")\b"
    return re.sub(pattern, new_name, response, flags=re.IGNORECASE)


@dataclass
class NeighbourBank:
    """Training responses with their query and knowledge embeddings and entity names."""

    responses: list[str]
    names: list[str | None]
    query_emb: np.ndarray  # (n, 384)
    knowledge_emb: np.ndarray  # (n, 384), mean of the gold snippets' embeddings

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


GENERATORS: dict[Generator, Callable[..., str]] = {
    Generator.template: template_response,
    Generator.neighbour: neighbour_response,
}


def mean_embedding(rows: Sequence[np.ndarray] | np.ndarray) -> np.ndarray:
    """The L2-normalised mean of embedding rows (zeros when empty)."""
    arr = np.asarray(rows, dtype=np.float32)
    if arr.size == 0:
        return np.zeros(384, dtype=np.float32)
    mean = arr.mean(axis=0)
    norm = float(np.linalg.norm(mean))
    return mean / norm if norm > 0 else mean

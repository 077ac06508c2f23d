"""Response generation (DSTC9 Track 1 task 3) without a language model: two cheap generators.

- ``template``: extractive. An FAQ answer is returned as is (DSTC9/10 answers are FAQ bodies); review
  sentences are turned into reported speech ("Guests of X say that they ...": first person becomes third
  person) and joined, best first.
- ``neighbour``: the response of the most similar training turn (cosine of the MiniLM embeddings of the user
  turns plus that of the selected snippets, so that a "yes, it is quiet" answer is borrowed from a turn whose
  knowledge also said so), with the training entity's name replaced by this turn's entity name. A
  retrieval-based responder in the spirit of the nearest-neighbour baselines of response generation.

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

    def nearest(self, query_emb: np.ndarray, knowledge_emb: np.ndarray, weight: float = 1.0) -> int:
        score = self.query_emb @ query_emb + weight * (self.knowledge_emb @ knowledge_emb)
        return int(np.argmax(score))


def neighbour_response(
    bank: NeighbourBank, query_emb: np.ndarray, knowledge_emb: np.ndarray, name: str, weight: float = 1.0
) -> str:
    """The nearest training response with its entity name swapped for ``name``."""
    if not bank.responses:
        return ""
    i = bank.nearest(query_emb, knowledge_emb, weight)
    return swap_entity(bank.responses[i], bank.names[i], name)


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

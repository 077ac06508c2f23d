"""How the answer-understanding model's rewrites are chained over several answers (a registry, chosen on ClariQ
train by ``benchmarks/converse_design_cv.py``).

- ``iterate``: each answer rewrites the query the previous answers left (``P`` = the query so far);
- ``from_request``: each answer is read against the request alone, as in training (``P`` = the request), and the
  query is the request followed by what each reading added;
- ``first_then_answers``: the first answer is read by the model, later ones are appended as they are (the
  organisers' baseline from the second answer on).

Each returns ``(query, chosen candidate per answer, new words per answer, the last answer's candidate scores)``.
"""

from __future__ import annotations

from collections.abc import Callable

from clarion.dialogue.state import State
from clarion.dialogue.understand import CANDIDATES, TOPIC_PARTS, tokens

Chained = tuple[str, list[str], list[int], dict[str, float]]


def _new_words(rewriter, query: str, question: str, answer: str) -> int:
    known = set(tokens(query)) | set(tokens(question))
    content = rewriter.features.parts(query, question, answer)["Ac"].split()
    return sum(w not in known for w in content)


def iterate(rewriter, state: State) -> Chained:
    query, chosen, new, scores = state.request, [], [], {}
    for turn, e in enumerate(state.exchanges, start=1):
        new.append(_new_words(rewriter, query, e.question, e.answer))
        query, name, scores = rewriter.rewrite(query, e.question, e.answer, turn)
        chosen.append(name)
    return query, chosen, new, scores


def _added(rewriter, request: str, question: str, answer: str, name: str) -> str:
    """What candidate ``name`` adds to the request (its parts other than the request's)."""
    parts = rewriter.features.parts(request, question, answer)
    return " ".join(p for p in (parts[k] for k in CANDIDATES[name] if k not in TOPIC_PARTS) if p)


def from_request(rewriter, state: State) -> Chained:
    pieces, chosen, new, scores = [state.request], [], [], {}
    for e in state.exchanges:
        new.append(_new_words(rewriter, state.request, e.question, e.answer))
        _, name, scores = rewriter.rewrite(state.request, e.question, e.answer, 1)
        chosen.append(name)
        pieces.append(_added(rewriter, state.request, e.question, e.answer, name))
    return " ".join(p for p in pieces if p), chosen, new, scores


def first_then_answers(rewriter, state: State) -> Chained:
    if not state.exchanges:
        return state.request, [], [], {}
    first = State(state.request, state.exchanges[:1])
    query, chosen, new, scores = iterate(rewriter, first)
    for e in state.exchanges[1:]:
        new.append(_new_words(rewriter, query, e.question, e.answer))
        _, name, scores = rewriter.rewrite(query, e.question, e.answer, 2)
        chosen.append(name)
        query = " ".join(p for p in (query, " ".join(tokens(e.answer))) if p)
    return query, chosen, new, scores


CHAINING: dict[str, Callable[..., Chained]] = {
    "iterate": iterate,
    "from_request": from_request,
    "first_then_answers": first_then_answers,
}

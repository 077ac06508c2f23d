"""Offline evaluation of the engine on ClariQ topics: facet MRR of ``query`` turn by turn, ask rates, turns used.

``query`` is scored by how well it singles out the user's hidden facet among *every* facet of every evaluated
topic: the rank of the facet's description by the packaged MiniLM's cosine (an encoder nobody here trains).
Ranking among one topic's facets alone would reward a query that drops the topic. Conversations come two ways:

- *recorded*: per facet, its topic's bank questions in a seeded random order with the answers written for that
  facet; the engine only interprets (every system reads the same conversations);
- *simulated*: the engine (or the organisers' baseline) chooses the questions and the
  :class:`~clarion.dialogue.simulate.UserSimulator` answers; the engine may stop asking.

The organisers' multi-turn baseline: query = the request followed by every answer; next question = BM25 over the
bank with that query, skipping questions asked (and the "ask nothing" entry); it never stops.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from clarion.data.clariq import ClariqLabels
from clarion.data.clariq_constants import NO_QUESTION
from clarion.dialogue.state import Exchange, State, as_question
from clarion.dialogue.understand import baseline_query

TURNS = 3


@dataclass
class Trace:
    """One conversation: the query before any question and after each answer, the questions asked."""

    facet: str
    queries: list[str] = field(default_factory=list)
    asked: list[str] = field(default_factory=list)
    first_action: str = ""


def facets_of(labels: ClariqLabels) -> list[tuple[str, str]]:
    """(topic, facet) for every facet, in file order."""
    return [(t, f) for t, fs in labels.facets.items() for f in fs]


def recorded_order(labels: ClariqLabels, topic: str, facet: str, seed: int = 0) -> list[str]:
    """The topic's answered questions for ``facet`` in a seeded random order."""
    qids = sorted(q for q in labels.questions[topic] if q != NO_QUESTION and labels.answers.get((facet, q), "").strip())
    random.Random(f"{seed}:{facet}").shuffle(qids)
    return qids


def recorded_traces(labels: ClariqLabels, understand: Callable[[State], str], seed: int = 0) -> list[Trace]:
    """``understand(state) -> query`` over each facet's recorded conversation, at turns 0..TURNS."""
    out = []
    for topic, facet in facets_of(labels):
        request, qids = labels.requests[topic], recorded_order(labels, topic, facet, seed)[:TURNS]
        exchanges = [Exchange(labels.question_text[q], labels.answers[(facet, q)], q) for q in qids]
        trace = Trace(facet, asked=list(qids))
        for k in range(TURNS + 1):
            trace.queries.append(
                understand(State(request, tuple(exchanges[:k]))) if k <= len(exchanges) else trace.queries[-1]
            )
        out.append(trace)
    return out


def engine_trace(engine, simulator, request: str, facet: str) -> Trace:
    """The engine talking with the simulated user until it answers (or TURNS questions)."""
    turns = [{"role": "user", "text": request}]
    trace = Trace(facet)
    for _ in range(TURNS + 1):
        decision = engine.reply(turns)
        trace.queries.append(decision.query)
        trace.first_action = trace.first_action or decision.action
        if decision.action != "clarify":
            break
        trace.asked.append(decision.question_id or decision.text)
        answer = simulator.answer(facet, decision.text, decision.question_id)
        turns += [{"role": "system", "text": decision.text}, {"role": "user", "text": answer}]
    trace.queries += [trace.queries[-1]] * (TURNS + 1 - len(trace.queries))
    return trace


class Bm25Baseline:
    """The organisers' multi-turn baseline (see the module docstring)."""

    def __init__(self, bank: dict[str, str]):
        from clarion.retrieve.bm25 import BM25Index

        self.ids = [q for q, t in bank.items() if q != NO_QUESTION and t.strip()]
        self.text = bank
        self.index = BM25Index(self.ids, [bank[q] for q in self.ids])

    def trace(self, simulator, request: str, facet: str) -> Trace:
        trace, answers = Trace(facet, first_action="clarify"), []
        trace.queries.append(request)
        for _ in range(TURNS):
            scores = self.index.scores([baseline_query(request, answers)])[0]
            order = np.argsort(-scores, kind="stable")
            qid = next(self.ids[i] for i in order if self.ids[i] not in trace.asked)
            trace.asked.append(qid)
            answers.append(simulator.answer(facet, as_question(self.text[qid]), qid))
            trace.queries.append(baseline_query(request, answers))
        return trace


def facet_mrr(traces: list[Trace], labels: ClariqLabels, encode: Callable) -> list[float]:
    """MRR of the hidden facet at turns 0..TURNS, among every facet of ``labels``."""
    from clarion.dialogue.simulate import unique
    from clarion.dialogue.training import facet_matrix, reciprocal_ranks

    encode = unique(encode)
    facets, facet_emb = facet_matrix(labels, encode)
    index = {f: i for i, f in enumerate(facets)}
    out = []
    for k in range(TURNS + 1):
        queries = encode([t.queries[k] for t in traces])
        out.append(float(reciprocal_ranks(queries, facet_emb, [index[t.facet] for t in traces]).mean()))
    return out

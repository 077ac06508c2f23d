"""The conversation engine: one :class:`Decision` per user turn.

>>> from clarion.dialogue import Assistant
>>> assistant = Assistant.load()                                   # doctest: +SKIP
>>> d = assistant.reply([{"role": "user", "text": "Tell me about hip roof design."}])   # doctest: +SKIP
>>> d.action, d.text                                               # doctest: +SKIP
('clarify', 'Are you interested in more than one hip roof design?')
>>> d = assistant.reply([
...     {"role": "user", "text": "Tell me about hip roof design."},
...     {"role": "system", "text": "Are you interested in more than one hip roof design?"},
...     {"role": "user", "text": "no, I just want pictures of one"},
... ])                                                             # doctest: +SKIP

The turns are read into a :class:`~clarion.dialogue.state.State`; the answers are understood one after the other
(:class:`~clarion.dialogue.understand.Rewriter`), giving ``query``; the policy (:mod:`clarion.dialogue.policy`)
weighs the need model's estimate, what the answers settled and the cost of asking; the next question comes from
:class:`~clarion.dialogue.choose.QuestionChooser`; an answer from the documents, the knowledge base or the query
(:mod:`clarion.dialogue.answer`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np

from clarion.dialogue import policy
from clarion.dialogue.answer import Answer, query_answer
from clarion.dialogue.chaining import CHAINING
from clarion.dialogue.new_request import encode_known, restarted
from clarion.dialogue.options import with_picks
from clarion.dialogue.questions import Written
from clarion.dialogue.state import State, as_question, check_turns, normalised, read_state
from clarion.memo import Memo
from clarion.text import tidy_query
from clarion.types import Decision

DEFAULT_CHAINING = "first_then_answers"
"""How answers are chained (chosen on ClariQ train: ``benchmarks/converse_design_cv.py``)."""

MEMO = 4096
"""Requests whose need and proposed questions an :class:`Assistant` remembers (shared by the server's threads)."""


@dataclass
class Understanding:
    query: str
    chosen: list[str] = field(default_factory=list)
    new_words: list[int] = field(default_factory=list)
    last_scores: dict[str, float] = field(default_factory=dict)


@dataclass
class _Read:
    """One conversation as :meth:`Assistant.reply_many` reads it before the need model is asked."""

    state: State
    understood: Understanding
    scores: dict
    grounded: Answer | None = None
    decision: Decision | None = None
    need: int | None = None
    p: float = 0.0
    written: Written | None = None
    """The question written for the request when it is not ClariQ's (:mod:`clarion.dialogue.any_request`)."""


def understand(rewriter, state: State, chaining: str = DEFAULT_CHAINING) -> Understanding:
    """The query after ``state``'s answers, read by ``rewriter`` and chained by ``chaining``
    (:data:`clarion.dialogue.chaining.CHAINING`)."""
    query, chosen, new_words, scores = CHAINING[chaining](rewriter, state)
    return Understanding(query, chosen, new_words, scores)


class Assistant:
    """Clarify, answer or stop, one user turn at a time (see the module docstring)."""

    def __init__(
        self,
        clarifier,
        rewriter,
        chooser,
        answerer: Callable | None = None,
        cost: float = policy.DEFAULT_COST,
        rules: Mapping | None = None,
        any_request=None,
    ):
        self.clarifier = clarifier
        self.any_request = any_request
        """:class:`~clarion.dialogue.any_request.AnyRequest`: need and question for a request that is not ClariQ's
        (None: every request is read as ClariQ's)."""
        self.rewriter = rewriter
        self.chooser = chooser
        self.answerer = answerer
        self.cost = policy.check_cost(cost)
        self.rules = policy.switched_on(rules)  # the policy's rules that are on (clarion.rules, task "converse")
        bank = clarifier.ranker.context
        self._ids = {normalised(t): q for q, t in zip(bank.bank_ids, bank.bank_texts, strict=True) if t.strip()}
        self._memo = Memo(MEMO)  # need and proposals per request: every turn of a conversation resends its request

    @classmethod
    def load(
        cls,
        knowledge: str | Path | None = None,
        documents: str | Path | None = None,
        model_dir: str | Path | None = None,
        progress=None,
        cost: float = policy.DEFAULT_COST,
        starter: bool = True,
    ) -> Assistant:
        """The deployed engine: the ClariQ models in ``model_dir``, by default those trained on train+dev when
        cached, else the train-only ones ``clarion clariq benchmark`` trains when cached, else the starter models
        (everything a conversation needs trains in about three minutes; with ``starter=False`` the train-only ones,
        about 18), said in one line (:func:`clarion.clariq.train.engine_models`); the answer model; and an answerer
        over ``knowledge`` (a DSTC knowledge dir or file) or ``documents`` (JSONL)."""
        from clarion.dialogue.any_request import load_or_train
        from clarion.dialogue.loading import load_parts
        from clarion.store import no_progress

        parts = load_parts(knowledge, documents, model_dir, progress, starter=starter)
        return cls(*parts, cost=cost, any_request=load_or_train(progress=progress or no_progress))

    def question_id(self, text: str) -> str | None:
        return self._ids.get(normalised(text))

    def understand(self, state: State) -> Understanding:
        """The query after each answer, and how each answer was read."""
        return understand(self.rewriter, state)

    def reply(self, turns: Sequence[Mapping[str, str]]) -> Decision:
        """The decision for the last user turn of ``turns`` (``{"role": "user" | "system", "text"}`` dicts)."""
        return self.reply_many([turns])[0]

    def reply_many(self, conversations: Sequence[Sequence[Mapping[str, str]]]) -> list[Decision]:
        """:meth:`reply` for each conversation, the same decisions, with the models reading the requests not yet
        seen together: the need model's encoder in one batch, the question ranker in one pass (what a server
        gathering concurrent requests calls). One bad conversation raises for the whole call."""
        checked = [check_turns(turns) for turns in conversations]
        states = [read_state(turns, self.question_id) for turns in checked]
        self._new_replies(states)  # every reply's "answer or new request?" in one encoder pass
        read = [self._read(turns, state) for turns, state in zip(checked, states, strict=True)]
        open_ = [r for r in read if r.decision is None]
        new, embedded = self._new_requests([r.state.request for r in open_])
        assessed = self._assess(list(new), embedded)  # off ClariQ, the ClariQ need model is not asked at all
        needs = self._needs([r.state.request for r in open_ if r.state.request not in new])
        for r in open_:
            self._weigh(r, needs.get(r.state.request), assessed.get(r.state.request))
        proposals = self._proposals([r.state.request for r in open_ if self._may_ask(r) and r.written is None])
        decisions = [r.decision or self._decide(r, proposals) for r in read]
        return [replace(d, understood=tidy_query(d.query)) for d in decisions]

    def _read(self, turns: list, state: State) -> _Read:
        """The conversation (its checked ``turns`` and their ``state``) read and understood, and the decision when it
        does not depend on the need model."""
        new_request = False
        if self.any_request is not None and state.exchanges:
            state, new_request = restarted(state, self._is_new_request)
        state, picks = with_picks(state)
        understood = self.understand(state)
        scores: dict = {"cost": self.cost, "questions_asked": len(state.exchanges)}
        if new_request:
            scores["new_request"] = True  # a reply read as a new request, not an answer
        if picks and picks[-1] is not None:
            scores["picked"] = state.exchanges[-1].answer  # the option the last answer chose
        if understood.last_scores:
            scores["rewrite"] = {k: round(v, 4) for k, v in understood.last_scores.items()}
            scores["reading"] = understood.chosen[-1]
        read = _Read(state, understood, scores)
        if "closing" in self.rules and policy.closing(state.last):
            read.decision = Decision("stop", "", understood.query, scores=scores | {"rule": "closing"})
        elif getattr(self.answerer, "reads_turns", False):  # a knowledge base: the Grounder reads the dialogue
            read.grounded = grounded = self.answerer(turns, understood.query)
            if grounded is not None and grounded.clarify:
                scores |= grounded.scores
                read.decision = Decision(
                    "clarify", grounded.text, understood.query, sources=grounded.sources, scores=scores
                )
        return read

    def _needs(self, requests: Sequence[str]) -> dict[str, tuple]:
        """The need model's ``(label, probabilities)`` of each request, those not remembered computed in one batch
        (``need_many`` when the clarifier has it)."""
        batch = getattr(self.clarifier, "need_many", None)

        def compute(keys: list) -> list:
            missing = [request for _, request in keys]
            return batch(missing) if batch is not None else [self.clarifier.need(r) for r in missing]

        return {request: v for (_, request), v in self._memo.get_many([("need", r) for r in requests], compute).items()}

    def _proposals(self, requests: Sequence[str]) -> dict[str, list]:
        """The ranker's proposed questions for each request, those not remembered ranked together (``rank_many``
        when the clarifier has it)."""
        batch, k = getattr(self.clarifier, "rank_many", None), policy_proposals()

        def compute(keys: list) -> list:
            missing = [request for _, request in keys]
            if batch is not None:
                return batch(missing, k=k, fitting=True)
            return [self.clarifier.rank(r, k=k, fitting=True) for r in missing]

        return {request: v for (_, request), v in self._memo.get_many([("rank", r) for r in requests], compute).items()}

    def _is_new_request(self, request: str, question: str, reply: str) -> bool:
        """Whether ``reply`` to ``question`` starts a new request (remembered: every turn resends the history)."""
        key = ("new-request", (request, question, reply))
        return self._memo.get_many([key], self._replies_new)[key]

    def _replies_new(self, keys: list) -> list[bool]:
        many = getattr(self.any_request, "new_requests_many", None)
        if many is not None:
            return many([key[1] for key in keys], encode=self._encode_known)
        return [self.any_request.is_new_request(*key[1]) for key in keys]

    def _encode_known(self, texts: Sequence[str]) -> np.ndarray:
        """:func:`~clarion.dialogue.new_request.encode_known` with the embeddings this engine already holds: a known
        ClariQ request's (the pool's, cached on disk) and a bank question's, however the system worded it (the
        chooser's, of the bank's text)."""
        ranker = getattr(self.clarifier, "ranker", None)
        bank = getattr(self.chooser, "embeddings", None)
        if ranker is None or bank is None:  # a test's stand-ins: everything encoded
            return encode_known(texts)
        pool, columns = ranker.router.packaged_pool, ranker.space.pool_column([t.strip() for t in texts])
        rows: list = []
        for text, column in zip(texts, columns, strict=True):
            if column >= 0:  # a known request
                rows.append(pool[column])
                continue
            question = self.chooser.row.get(self.question_id(text))  # a bank question, or None
            rows.append(None if question is None else bank[question])
        return encode_known(texts, rows)

    def _new_replies(self, states: Sequence[State]) -> None:
        """Whether each reply to a question answers it or starts a new request, for every conversation at once (one
        encoder pass; remembered for :meth:`_read`), read against the conversation's first request: a reply after a
        restart is read again, against its new request, when :meth:`_read` gets to it."""
        if self.any_request is None:
            return
        keys = [("new-request", (s.request, e.question, e.answer)) for s in states for e in s.exchanges]
        if keys:
            self._memo.get_many(keys, self._replies_new)

    def _new_requests(self, requests: Sequence[str]) -> tuple[set[str], dict]:
        """The requests that are not ClariQ's (nor rewordings of one), when a model for any request is at hand, and
        the packaged MiniLM's embeddings of those just computed (the clarifier's ``new_and_embedded``: one encoder
        pass for most of them, remembered per request; else ``is_new``)."""
        if self.any_request is None or not requests:
            return set(), {}
        both = getattr(self.clarifier, "new_and_embedded", None)
        if both is None:  # a clarifier without the pool (a test's): one request at a time
            one = getattr(self.clarifier, "is_new", None)
            return {r for r in requests if one is not None and one(r)}, {}
        embedded: dict = {}

        def compute(keys: list) -> list:
            missing = [request for _, request in keys]
            flags, emb = both(missing)
            embedded.update((r, e) for r, e, new in zip(missing, emb, flags, strict=True) if new)
            return flags

        found = self._memo.get_many([("new", r) for r in requests], compute)
        return {r for (_, r), new in found.items() if new}, embedded

    def _assess(self, requests: Sequence[str], embedded: dict | None = None) -> dict[str, tuple[float, Written]]:
        """P(unclear) and the written question of each request not ClariQ's, those not remembered in one batch (with
        the embeddings in ``embedded`` when it holds all of theirs)."""

        def compute(keys: list) -> list:
            missing = [request for _, request in keys]
            if embedded and all(r in embedded for r in missing):
                return self.any_request.assess(missing, np.vstack([embedded[r] for r in missing]))
            return self.any_request.assess(missing)

        return {r: v for (_, r), v in self._memo.get_many([("assess", r) for r in requests], compute).items()}

    def _weigh(self, read: _Read, need: tuple | None, assessed: tuple[float, Written] | None) -> None:
        """The probability that the need is still unclear, into ``read``: from the ClariQ need model (with its label)
        for ClariQ's requests, from the model for any request for the others (``need`` None, no label)."""
        if assessed is not None:
            start, read.written = assessed
        else:
            label, p_need = need
            start, read.need = 1.0 - p_need[1], int(label)
            read.scores["p_need"] = {str(k): round(v, 4) for k, v in p_need.items()}
        readings = policy.Readings(tuple(read.understood.chosen), tuple(read.understood.new_words))
        read.p = policy.p_unclear(start, readings, self.rules, read.state.request)
        read.scores |= {"p_unclear": round(read.p, 4), "unclear_from": "clariq" if assessed is None else "any-request"}

    def _may_ask(self, read: _Read) -> bool:
        """Whether a bank question may be asked: not with a knowledge base, whose only clarifying question is the
        Grounder's "which place do you mean?" (a turn it finds not knowledge-seeking is the host's dialogue manager's:
        on DSTC11 dev, ClariQ's web-search questions asked there rarely fit: ``benchmarks/converse_knowledge.py``)."""
        if getattr(self.answerer, "reads_turns", False):
            return False
        return read.grounded is None and read.p > self.cost and len(read.state.exchanges) < policy.MAX_QUESTIONS

    def _decide(self, read: _Read, proposals: dict[str, list]) -> Decision:
        state, understood, scores, grounded, p = read.state, read.understood, read.scores, read.grounded, read.p
        choice = None
        if self._may_ask(read) and read.written is not None:
            asked = {normalised(e.question) for e in state.exchanges}
            if normalised(read.written.text) not in asked:  # one written question per request
                scores |= {"question_source": read.written.source}
                text, options = read.written.text, list(read.written.options)
                return Decision("clarify", text, understood.query, read.need, scores=scores, options=options)
        elif self._may_ask(read):
            choice = self.next_question(state, understood, proposals.get(state.request))
        if choice is not None and policy.should_ask(p, self.cost, len(state.exchanges), True):
            scores |= {"question_score": round(choice.score, 4), "redundancy": round(choice.redundancy, 4)}
            scores["question_source"] = "bank"
            text = as_question(choice.question.text)
            return Decision("clarify", text, understood.query, read.need, choice.question.id, scores=scores)
        if grounded is None and self.answerer is not None and not getattr(self.answerer, "reads_turns", False):
            grounded = self.answerer((), understood.query)
        answer = grounded or query_answer(tidy_query(understood.query))  # shown as a person would write it
        if grounded is None and getattr(self.answerer, "reads_turns", False):
            scores = scores | {"handoff": True}  # not knowledge-seeking: the host's dialogue manager's turn
        return Decision(
            "answer", answer.text, understood.query, read.need, sources=answer.sources, scores=scores | answer.scores
        )

    def next_question(self, state: State, understood: Understanding, proposals: list | None = None):
        """The chooser's next question (``proposals``: the ranker's for the request, when already at hand)."""
        if proposals is None:
            proposals = self._proposals([state.request])[state.request]
        asked = [e.question_id for e in state.exchanges if e.question_id]
        refused = [
            e.question_id
            for e, chosen, new in zip(state.exchanges, understood.chosen, understood.new_words, strict=True)
            if e.question_id and not policy.settles(chosen, 0)
        ]
        return self.chooser.choose(proposals, asked, refused)


def policy_proposals() -> int:
    from clarion.dialogue.choose import PROPOSALS

    return PROPOSALS

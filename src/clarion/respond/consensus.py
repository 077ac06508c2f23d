"""Retrieve-and-choose generators: ``neighbour`` and ``consensus`` (the default), and the ``lm`` generator's choice.

- ``neighbour``: the ``k`` most similar training turns (MiniLM cosine of the user turns plus that of the selected
  snippets) give candidate responses, the training entity's name replaced by this turn's; the candidate that agrees
  most with the others is returned (minimum Bayes risk, :mod:`clarion.respond.pool`).
- ``consensus``: the pool widened to every training turn whose gold snippet set equals the selected one, follow-up
  questions cut off, the MBR body chosen (without a yes/no opener that does not answer the turn,
  :mod:`clarion.respond.faq_answers`), and the domain's closing question appended (:mod:`clarion.respond.follow_up`).
- ``lm``: the fine-tuned SmolLM2's candidates chosen by MBR against themselves and the consensus pool.

Options of :func:`consensus_pool` (rules ``relevance_gate`` and ``relevance_exact``; None: off; both need the bank's
``body_emb``):

``relevance``: when no training turn answered exactly ``keys``, a body whose cosine to the turn (``query_emb``) is more
than this below the best choosable body's votes but cannot be chosen. Such a pool gathers answers about the same
knowledge, and its MBR centre can be about another aspect of it ("the portion sizes" for "Is the food authentic?").

``exact_relevance``: when training turns answered exactly ``keys``, their bodies stay choosable and any other body
whose cosine to the turn is more than this below the best of theirs votes but cannot be chosen.

``entity_names`` ((domain, entity id) -> name of the selected entities; rule ``comparisons``; None: off): when
``keys`` span several entities, a comparison answer has every entity renamed (:func:`entity_renames`, with the bank's
``entity_names``), and only comparisons may be chosen when the pool holds one (a one-entity answer leaves out the
other entities).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from enum import Enum

import numpy as np

from clarion.data.dstc import key_entities
from clarion.ground.names import entity_renames, respelled, swap_entities, swap_entity
from clarion.respond.faq_answers import asks_open, with_faq_answers, without_polar_opener, yes_to_the_opposite
from clarion.respond.follow_up import GENERAL, Closings, closed, follow_up_for, split_follow_up, with_follow_up
from clarion.respond.pool import Pool, mbr_choice, mbr_expected, mbr_weighted


class Generator(str, Enum):
    """The response generators (library, CLI and model config share this)."""

    template = "template"
    neighbour = "neighbour"
    consensus = "consensus"
    lm = "lm"  # SmolLM2-135M fine-tuned on the training responses (clarion.respond.lm)


@dataclass
class NeighbourBank:
    """Training responses with their query and knowledge embeddings, entity names and gold snippet keys."""

    responses: list[str]
    names: list[str | None]
    query_emb: np.ndarray  # (n, 384)
    knowledge_emb: np.ndarray  # (n, 384), mean of the gold snippets' embeddings
    keys: list[frozenset] = field(default_factory=list)  # gold snippet keys per turn (empty: unknown)
    closings: Closings = field(default_factory=Closings)  # the closing questions learnt from ``responses``
    body_emb: np.ndarray | None = None  # (n, 384): each response's body, names cut (:func:`body_texts`; None: none)
    entity_names: dict = field(default_factory=dict)  # (domain, entity id) -> name, for every entity of ``keys``
    _by_keys: dict | None = field(default=None, init=False, repr=False, compare=False)
    _sets: frozenset | None = field(default=None, init=False, repr=False, compare=False)

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
        return list(self._index().get(frozenset(keys), [])) if keys else []

    def answer_sets(self) -> frozenset[frozenset]:
        """The distinct non-empty gold snippet sets of the training turns."""
        if self._sets is None:
            self._sets = frozenset(keys for keys in self._index() if keys)
        return self._sets

    def _index(self) -> dict:
        """Gold snippet set -> the training turns answered with it (built once)."""
        if self._by_keys is None:
            self._by_keys = {}
            for i, turn_keys in enumerate(self.keys):
                self._by_keys.setdefault(turn_keys, []).append(i)
        return self._by_keys

    def nearest(self, query_emb: np.ndarray, knowledge_emb: np.ndarray, weight: float = 1.0, k: int = 1) -> list[int]:
        """Indices of the ``k`` most similar training turns, most similar first."""
        score = self.query_emb @ query_emb + weight * (self.knowledge_emb @ knowledge_emb)
        return [int(i) for i in np.argsort(-score, kind="stable")[:k]]


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


def consensus_pool(
    bank: NeighbourBank,
    query_emb: np.ndarray,
    knowledge_emb: np.ndarray,
    name: str,
    keys: Sequence[tuple] = (),
    k: int = 30,
    exact_weight: float = 3.0,
    relevance: float | None = None,
    exact_relevance: float | None = None,
    entity_names: Mapping | None = None,
) -> Pool:
    """The ``consensus`` pool: the ``k`` nearest training turns and every turn whose gold snippet set is exactly
    ``keys`` (weight ``exact_weight``), their bodies with this turn's entity ``name``. A training answer still votes
    but cannot be chosen when it is about another domain than the selected ``keys`` (a hotel answer, "the rooms
    provide good value", for a restaurant) or, when ``keys`` are about one entity, about several (a comparison, which
    names the other entity: "The portions at Efes ..., but views are mixed on the portion sizes at X").
    ``relevance``, ``exact_relevance``, ``entity_names``: see the module docstring."""
    pool, weights, same = _members(bank, query_emb, knowledge_emb, keys, k, exact_weight)
    selected = key_entities(keys)
    trained = [sorted(key_entities(bank.keys[i]), key=str) if bank.keys else [] for i in pool]
    compare = entity_names is not None and len(selected) > 1 and bool(bank.entity_names)
    ok = _fitting(bank, pool, keys, trained, compare)
    gate = exact_relevance if same else relevance  # the yardstick: the exact-set bodies, else every choosable one
    if gate is not None and bank.body_emb is not None and sum(ok) > 1:
        ok = _relevant(bank, pool, ok, query_emb, set(same), gate)
    bodies = [
        split_follow_up(_renamed(bank, i, trained[j], selected, name, entity_names if compare else None))[0]
        for j, i in enumerate(pool)
    ]
    order = [j for j in range(len(pool)) if ok[j]] + [j for j in range(len(pool)) if not ok[j]]
    return Pool([bodies[j] for j in order], [weights[j] for j in order], max(sum(ok), 1))


def _members(bank, query_emb, knowledge_emb, keys, k, exact_weight):
    """The pool's training turns and their weights: the ``k`` nearest and every turn answering exactly ``keys``
    (weight ``exact_weight``); and the exact ones."""
    pool = bank.nearest(query_emb, knowledge_emb, 1.0, k)
    weights = [1.0] * len(pool)
    same = bank.same_knowledge(keys)
    for i in same:
        if i in pool:
            weights[pool.index(i)] = exact_weight
        else:
            pool.append(i)
            weights.append(exact_weight)
    return pool, weights, same


def _fitting(bank, pool, keys, trained, compare: bool) -> list[bool]:
    """Which members may be chosen: about the selection's domains, one place for one place; with ``compare``,
    comparisons only when the pool holds one."""
    if not (keys and bank.keys):
        return [True] * len(pool)
    domains, single = {key[0] for key in keys}, len(key_entities(keys)) == 1
    ok = [
        {key[0] for key in bank.keys[i]} == domains and (not single or len(trained[j]) <= 1) for j, i in enumerate(pool)
    ]
    comparisons = [ok[j] and len(trained[j]) > 1 for j in range(len(pool))]
    return comparisons if compare and any(comparisons) else ok


def _renamed(bank, i, trained, selected, name, entity_names) -> str:
    """Training response ``i`` about this turn's places: a comparison (with ``entity_names``, the selected places'
    names) has every place renamed, a shared place keeping its name spelt right; any other answer gets ``name``."""
    if entity_names is None or len(trained) <= 1:
        return swap_entity(bank.responses[i], bank.names[i], name)
    text = swap_entities(bank.responses[i], entity_renames(trained, selected, bank.entity_names, entity_names))
    for entity in (e for e in trained if e in selected):
        text = respelled(text, bank.entity_names.get(entity))
    return text


def _relevant(bank, pool, ok, query_emb, exact: set, gate: float) -> list[bool]:
    """``ok`` without the bodies more than ``gate`` (cosine to the turn) below the best exact-set body, or the best
    choosable one when there is no exact set."""
    fits = bank.body_emb[pool] @ query_emb
    yardstick = [float(fits[j]) for j in range(len(pool)) if ok[j] and (not exact or pool[j] in exact)]
    if not yardstick:
        return ok
    best = max(yardstick)
    return [ok[j] and (pool[j] in exact or float(fits[j]) >= best - gate) for j in range(len(pool))]


def body_texts(responses: Sequence[str], tracker) -> list[str]:
    """Each response's body (:func:`split_follow_up`) with entity names cut (``tracker.strip_names``): what the
    bank's ``body_emb`` embeds, so that a body is compared with a turn by what it says, not whom it names."""
    return [tracker.strip_names(split_follow_up(response)[0]) for response in responses]


def consensus_response(
    bank: NeighbourBank,
    query_emb: np.ndarray,
    knowledge_emb: np.ndarray,
    name: str,
    keys: Sequence[tuple] = (),
    k: int = 30,
    exact_weight: float = 3.0,
    follow_up: str | None = None,
) -> str:
    """The ``consensus`` generator (see the module docstring); ``keys`` are the selected snippets' keys.

    ``follow_up``: the appended question (None: ``bank.closings``' for the domain of ``keys[0]``; "": none).

    Call it with BLAS single-threaded (``threadpoolctl.threadpool_limits(1, "blas")`` around the whole batch, as
    ``DstcModel.predict`` does): BLAS threads spin on these small products and cost 10x on a busy CPU.
    """
    if not bank.responses:
        return ""
    pool = consensus_pool(bank, query_emb, knowledge_emb, name, keys, k, exact_weight)
    return consensus_choice(pool, keys, follow_up, closings=bank.closings)


def consensus_choice(
    pool: Pool,
    keys: Sequence[tuple],
    follow_up: str | None = None,
    turn: str | None = None,
    closings: Closings = GENERAL,
    faqs: Sequence[tuple[str, str | None]] = (),
    faq_cover: float | None = None,
    beta: float = 1.0,
) -> str:
    """The MBR choice among ``pool``'s choosable bodies with the follow-up question appended (see
    :func:`consensus_response`); with ``faq_cover`` (rule ``faq_cover``), the selected ``faqs`` it misses are added
    before the question (:func:`~clarion.respond.faq_answers.with_faq_answers`). A ``turn`` that asks an open
    question, or a "Yes" to the opposite of what it asks (:func:`yes_to_the_opposite`), gets the body without its
    yes/no opener (:func:`without_polar_opener`).
    ``closings``: the model's closing questions (:class:`~clarion.respond.follow_up.Closings`). ``beta``: the MBR
    utility's F-beta (:func:`~clarion.respond.pool.ngram_utility`; ``PipelineConfig.consensus_beta``)."""
    choosable = max(pool.choosable, 1)
    expected = mbr_expected(pool.bodies, pool.weights, beta=beta) if len(pool.bodies) > 1 else np.zeros(1)
    body = pool.bodies[int(np.argmax(expected[:choosable]))]
    if turn is not None and (asks_open(turn) or yes_to_the_opposite(turn, body)):
        body = without_polar_opener(body)
    if faq_cover is not None:
        body = with_faq_answers(body, faqs, faq_cover, len(key_entities(keys)) > 1)
    if follow_up is None:
        follow_up = follow_up_for(keys, closings=closings)
    return closed(body, follow_up, closings)


def lm_consensus_response(
    candidates: Sequence[str],
    bodies: Sequence[str],
    weights: Sequence[float],
    keys: Sequence[tuple],
    pool_weight: float,
    follow_up: str | None = None,
    closings: Closings = GENERAL,
) -> str:
    """The ``lm`` generator's answer: the LM candidate (greedy or sampled) with the highest expected utility
    against the other candidates (weight 1 each) and the ``consensus`` pool (its weights x ``pool_weight``),
    its closing question replaced by ``follow_up`` (None: the domain's in ``closings``, :func:`follow_up_for`)."""
    texts = [split_follow_up(c)[0] for c in candidates]
    chosen = mbr_weighted(
        texts + list(bodies), [1.0] * len(texts) + [pool_weight * w for w in weights], candidates=len(texts)
    )
    return with_follow_up(texts[chosen], keys, follow_up, closings)

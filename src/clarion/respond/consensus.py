"""Retrieve-and-choose generators: ``neighbour`` and ``consensus`` (the default), and the ``lm`` generator's choice.

- ``neighbour``: the ``k`` most similar training turns (MiniLM cosine of the user turns plus that of the selected
  snippets) give candidate responses, the training entity's name replaced by this turn's; the candidate that agrees
  most with the others is returned (minimum Bayes risk, :mod:`clarion.respond.pool`).
- ``consensus``: the pool widened to every training turn whose gold snippet set equals (or overlaps) the selected
  one, follow-up questions cut off, the MBR body chosen, a selected FAQ's answer added when the body lacks it
  (:mod:`clarion.respond.faq_answers`), and a closing question appended (:mod:`clarion.respond.follow_up`).
- ``lm``: the fine-tuned SmolLM2's candidates chosen by MBR against themselves and the consensus pool.

Options of :func:`consensus_pool`:

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
it ("the portion sizes" for "Is the food authentic?"); docs/dstc.md describes it.

``exact_relevance`` (None: off; needs ``body_emb``): when training turns answered exactly ``keys``, their bodies
stay choosable and any other body whose cosine to the turn is more than this below the best of theirs votes but
cannot be chosen (four bed reviews selected, the exact-set answer about the beds, and the pool's centre among its
many answers about the same place's rooms: "Most guest reviews have spoken of large rooms").
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from enum import Enum

import numpy as np

from clarion.data.dstc import key_entities
from clarion.dialogue.entities import EntityTracker
from clarion.respond.faq_answers import asks_open, with_faq_answers, without_polar_opener, yes_to_the_opposite
from clarion.respond.follow_up import GENERAL, Closings, closed, follow_up_for, split_follow_up, with_follow_up
from clarion.respond.names import entity_renames, respelled, swap_entities, swap_entity
from clarion.respond.pool import Pool, aspect_holders, mbr_choice, mbr_expected, mbr_weighted


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
    entity_names: dict = field(default_factory=dict)  # (domain, entity id) -> name, for every entity of ``keys``
    body_emb: np.ndarray | None = None  # (n, 384): each response's body, names cut (:func:`body_texts`; None: none)
    closings: Closings = field(default_factory=Closings)  # the closing questions learnt from ``responses``
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


def body_texts(responses: Sequence[str], tracker: EntityTracker) -> list[str]:
    """Each response's body (:func:`split_follow_up`) with entity names cut (:meth:`EntityTracker.strip_names`): what
    the bank's ``body_emb`` embeds, so that a body is compared with a turn by what it says, not whom it names."""
    return [tracker.strip_names(split_follow_up(response)[0]) for response in responses]


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

    The other options are described in the module docstring (None: off).
    """
    pool, weights, same = _members(bank, query_emb, knowledge_emb, keys, k, exact_weight, overlap)
    selected = key_entities(keys)
    trained = [sorted(key_entities(bank.keys[i]), key=str) if bank.keys else [] for i in pool]
    compare = entity_names is not None and len(selected) > 1 and bool(bank.entity_names)
    ok = _fitting(bank, pool, keys, trained, compare, tracker is not None)
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
        ok = _relevant(bank, pool, ok, query_emb, set(same), gate)
    choosable = sum(ok) if tracker is not None and keys else max(sum(ok), 1)
    order = [j for j in range(len(pool)) if ok[j]] + [j for j in range(len(pool)) if not ok[j]]
    return Pool([bodies[j] for j in order], [weights[j] for j in order], choosable, None, [pool[j] for j in order])


def _members(bank, query_emb, knowledge_emb, keys, k, exact_weight, overlap):
    """The pool's training turns and their weights: the ``k`` nearest, every turn answering exactly ``keys`` (weight
    ``exact_weight``) and, when none does, those overlapping them (``overlap``); and the exact ones."""
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
    return pool, weights, same


def _fitting(bank, pool, keys, trained, compare: bool, faithful: bool) -> list[bool]:
    """Which members may be chosen: about the selection's domains, one place for one place; comparisons only when
    the selection spans places and the pool holds one (``faithful``: of no more places than the selection)."""
    if not (keys and bank.keys):
        return [True] * len(pool)
    domains, single = {key[0] for key in keys}, len(key_entities(keys)) == 1
    ok = [
        {key[0] for key in bank.keys[i]} == domains and (not single or len(trained[j]) <= 1) for j, i in enumerate(pool)
    ]
    comparisons = [ok[j] and len(trained[j]) > 1 for j in range(len(pool))]
    if compare and any(comparisons):
        ok = comparisons
        if faithful:  # a comparison of more places than the selection keeps the others' names
            ok = [ok[j] and len(trained[j]) <= len(key_entities(keys)) for j in range(len(pool))]
    return ok


def _relevant(bank, pool, ok, query_emb, exact: set, gate: float) -> list[bool]:
    """``ok`` without the bodies more than ``gate`` (cosine to the turn) below the best exact-set body, or the best
    choosable one when there is no exact set."""
    fits = bank.body_emb[pool] @ query_emb
    yardstick = [float(fits[j]) for j in range(len(pool)) if ok[j] and (not exact or pool[j] in exact)]
    if not yardstick:
        return ok
    best = max(yardstick)
    return [ok[j] and (pool[j] in exact or float(fits[j]) >= best - gate) for j in range(len(pool))]


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

    ``follow_up``: the appended question (None: ``bank.closings``' for the domain of ``keys[0]``; "": none).
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
    return consensus_choice(pool, keys, follow_up, faqs, faq_cover, fallback, closings=bank.closings)


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
    closings: Closings = GENERAL,
) -> str:
    """The MBR choice among ``pool``'s choosable bodies with the follow-up question appended (see
    :func:`consensus_response`); with ``faq_cover``, the selected ``faqs`` it misses are added before the question
    (:func:`with_faq_answers`). When no body is choosable, ``fallback`` is the body (the selected snippets'
    :func:`template_response`: no training answer fits); without one, the pool's first body. A ``turn`` that asks an
    open question, or a "Yes" to the opposite of what it asks (:func:`yes_to_the_opposite`), gets the body without
    its yes/no opener (:func:`without_polar_opener`). With ``aspect_turn`` (the turn, names cut), a choice lacking
    a word of the turn that most choosable bodies hold is made again among those holding it (:func:`aspect_holders`).
    ``unpolar``: the body loses its yes/no opener whatever the turn (a question about complaints, whose "Yes" would
    say there are some: "Are there any complaints about the rooms?" -> "Yes, the rooms ... are very quiet.").
    ``closings``: the model's closing questions (:class:`~clarion.respond.follow_up.Closings`)."""
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

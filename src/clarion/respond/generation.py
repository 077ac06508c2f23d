"""Responding from the selected snippets: the generator the model's config names, looked up in :data:`GENERATORS`.

A mixin of :class:`clarion.dstc.models.pipeline.DstcModel`. ``template`` (and every DSTC9/10 turn) answers with the
snippets themselves (:mod:`clarion.respond.template`); ``neighbour`` and ``consensus`` choose among borrowed training
responses (:mod:`clarion.respond.consensus`); ``lm`` returns the consensus pool its fine-tuned LM's candidates are
chosen against later, for the whole batch. The response rules (``dish_answers``, ``comparisons``, ``faithful``,
``detail_penalty``, ``faq_agreement``, ``faq_cover``, ``denials_said``, ``aspect_words``, ...) act here.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from clarion.data.dstc import Label
from clarion.respond.consensus import Generator, consensus_choice, consensus_pool, neighbour_response
from clarion.respond.faq_answers import agreeing, faq_answers, faq_claims
from clarion.respond.follow_up import follow_up_for
from clarion.respond.names import display_name
from clarion.respond.opinions import ASKS_COMPLAINTS
from clarion.respond.pool import Pool, mean_embedding, with_detail_penalty
from clarion.respond.template import snippets_response


@dataclass(frozen=True)
class Turn:
    """The user's turn as the generators read it: its embedding, its text, its text without place names, and the
    knowledge base's entity tracker (None: no names to cut or check)."""

    emb: np.ndarray
    text: str
    plain: str
    tracker: object | None = None


def _template(model, index, picked, chosen_emb, turn: Turn) -> tuple[Label, Pool | None]:
    """The selected snippets in words: an FAQ's answer, reviews in reported speech."""
    response = snippets_response(picked, index.knowledge.entity_names)
    return Label(True, tuple(s.key for s in picked), response), None


def _neighbour(model, index, picked, chosen_emb, turn: Turn) -> tuple[Label, Pool | None]:
    """The MBR choice among the nearest training turns' responses, names swapped."""
    config = model.config
    top = picked[0]
    name = display_name(index.knowledge.entity_names.get((top.domain, top.entity_id)))
    response = neighbour_response(
        model.bank, turn.emb, mean_embedding(chosen_emb), name, config.neighbour_weight, config.neighbour_k
    )
    return Label(True, tuple(s.key for s in picked), response), None


def _pool(model, index, picked, chosen_emb, turn: Turn) -> Pool:
    """The consensus pool of borrowed bodies for the selection (rules ``overlap_pool``, ``comparisons``,
    ``faithful``, ``relevance_gate``, ``relevance_exact``)."""
    config = model.config
    top = picked[0]
    return consensus_pool(
        model.bank,
        turn.emb,
        mean_embedding(chosen_emb),
        display_name(index.knowledge.entity_names.get((top.domain, top.entity_id))),
        [s.key for s in picked],
        config.consensus_k,
        config.exact_weight,
        config.param("overlap_pool", "jaccard"),
        index.knowledge.entity_names if config.uses("comparisons") else None,
        turn.tracker if config.uses("faithful") else None,
        config.param("relevance_gate", "margin"),
        config.param("relevance_exact", "margin"),
    )


def _lm(model, index, picked, chosen_emb, turn: Turn) -> tuple[Label, Pool | None]:
    """No response yet: the LM's candidates are chosen against this pool for the whole batch."""
    return Label(True, tuple(s.key for s in picked)), _pool(model, index, picked, chosen_emb, turn)


def _consensus(model, index, picked, chosen_emb, turn: Turn) -> tuple[Label, Pool | None]:
    """The MBR body of the consensus pool, the selected FAQs' answers it lacks, and the closing question."""
    config = model.config
    keys = [s.key for s in picked]
    evidence = _pool(model, index, picked, chosen_emb, turn)
    penalty = config.param("detail_penalty", "penalty")
    if penalty is not None and evidence.sources is not None and model.bank.keys:
        details = model._foreign_details(index, evidence, keys, turn.text)
        evidence = with_detail_penalty(evidence, [bool(d) for d in details], penalty)
    if config.uses("faq_agreement") and len({key[:2] for key in keys}) == 1:  # one place: a body restating a
        evidence = agreeing(evidence, faq_claims(picked))  # selected FAQ with the other polarity may only vote
    no_fit = config.uses("faithful") and evidence.choosable == 0  # no training answer fits: the snippets answer
    response = consensus_choice(
        evidence,
        keys,
        follow_up_for(keys, config.uses("entity_follow_up"), model.bank.closings),
        faq_answers(picked),
        config.param("faq_cover", "cover"),
        snippets_response(picked, index.knowledge.entity_names) if no_fit else None,
        turn.text or None,
        config.uses("denials_said"),
        turn.plain if config.uses("aspect_words") else None,
        config.uses("downsides") and bool(ASKS_COMPLAINTS.search(turn.text)),
        model.bank.closings,
    )
    return Label(True, tuple(keys), response), None


GENERATORS: dict[Generator, Callable] = {
    Generator.template: _template,
    Generator.neighbour: _neighbour,
    Generator.consensus: _consensus,
    Generator.lm: _lm,
}
"""Each generator by its :class:`~clarion.respond.consensus.Generator` member: ``(model, index, picked snippets,
their embeddings, turn) -> (label, consensus pool or None)``."""


class Responding:
    """Response generation of :class:`~clarion.dstc.models.pipeline.DstcModel`."""

    def _respond(self, index, picked: list, chosen_emb: np.ndarray, ranked: bool, turn: Turn):
        """The label for the selected snippets ``picked`` (embeddings ``chosen_emb``): a DSTC9/10 turn is answered
        by its best FAQ's answer itself; a dish the turn names is answered by the selected reviews naming it
        (``dish_answers``); else the configured generator (:data:`GENERATORS`)."""
        if ranked:  # DSTC9/10: the FAQ answer itself
            label, _ = _template(self, index, picked[:1], chosen_emb[:1], turn)
            return Label(True, tuple(s.key for s in picked), label.response), None
        if self.config.generator is Generator.consensus and self.config.uses("dish_answers"):
            dish = self._dish_snippets(index, picked, turn.plain, turn.tracker)
            if dish:  # the selected reviews naming the dish asked about answer: no borrowed body, no pool to build
                return self._reported(index, dish, [s.key for s in picked]), None
        return GENERATORS[self.config.generator](self, index, picked, chosen_emb, turn)

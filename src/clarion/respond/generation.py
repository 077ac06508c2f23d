"""Responding from the selected snippets: the generator the model's config names, looked up in :data:`GENERATORS`.

The respond stage of :class:`clarion.dstc.models.pipeline.DstcModel` (:class:`Responder`). ``template`` (and every
DSTC9/10 turn) answers with the snippets themselves (:mod:`clarion.respond.template`); ``neighbour`` and
``consensus`` choose among borrowed training responses (:mod:`clarion.respond.consensus`); ``lm`` returns the
consensus pool its fine-tuned LM's candidates are chosen against later, for the whole batch.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from clarion.data.dstc import Label
from clarion.ground.names import display_name
from clarion.respond.consensus import (
    Generator,
    NeighbourBank,
    consensus_choice,
    consensus_pool,
    neighbour_response,
)
from clarion.respond.faq_answers import faq_answers
from clarion.respond.follow_up import follow_up_for
from clarion.respond.pool import Pool, mean_embedding
from clarion.respond.template import snippets_response


@dataclass(frozen=True)
class Query:
    """The user's turn as the generators read it: its embedding and its text."""

    emb: np.ndarray
    text: str


def _template(responder, index, picked, chosen_emb, turn: Query) -> tuple[Label, Pool | None]:
    """The selected snippets in words: an FAQ's answer, reviews in reported speech."""
    response = snippets_response(picked, index.knowledge.entity_names)
    return Label(True, tuple(s.key for s in picked), response), None


def _neighbour(responder, index, picked, chosen_emb, turn: Query) -> tuple[Label, Pool | None]:
    """The MBR choice among the nearest training turns' responses, names swapped."""
    config = responder.config
    top = picked[0]
    name = display_name(index.knowledge.entity_names.get((top.domain, top.entity_id)))
    response = neighbour_response(
        responder.bank, turn.emb, mean_embedding(chosen_emb), name, config.neighbour_weight, config.neighbour_k
    )
    return Label(True, tuple(s.key for s in picked), response), None


def _pool(responder, index, picked, chosen_emb, turn: Query) -> Pool:
    """The consensus pool of borrowed bodies for the selection (rules ``relevance_gate``, ``comparisons``)."""
    config = responder.config
    top = picked[0]
    return consensus_pool(
        responder.bank,
        turn.emb,
        mean_embedding(chosen_emb),
        display_name(index.knowledge.entity_names.get((top.domain, top.entity_id))),
        [s.key for s in picked],
        config.consensus_k,
        config.exact_weight,
        config.param("relevance_gate", "margin"),
        entity_names=index.knowledge.entity_names if config.uses("comparisons") else None,
    )


def _lm(responder, index, picked, chosen_emb, turn: Query) -> tuple[Label, Pool | None]:
    """No response yet: the LM's candidates are chosen against this pool for the whole batch."""
    return Label(True, tuple(s.key for s in picked)), _pool(responder, index, picked, chosen_emb, turn)


def _consensus(responder, index, picked, chosen_emb, turn: Query) -> tuple[Label, Pool | None]:
    """The MBR body of the consensus pool, the selected FAQs' answers it lacks (rule ``faq_cover``), and the closing
    question (rule ``entity_follow_up``)."""
    keys, closings = [s.key for s in picked], responder.bank.closings
    evidence = _pool(responder, index, picked, chosen_emb, turn)
    follow_up = follow_up_for(keys, responder.config.uses("entity_follow_up"), closings)
    faqs, cover = faq_answers(picked), responder.config.param("faq_cover", "cover")
    beta = responder.config.consensus_beta
    response = consensus_choice(evidence, keys, follow_up, turn.text or None, closings, faqs, cover, beta)
    return Label(True, tuple(keys), response), None


GENERATORS: dict[Generator, Callable] = {
    Generator.template: _template,
    Generator.neighbour: _neighbour,
    Generator.consensus: _consensus,
    Generator.lm: _lm,
}
"""Each generator by its :class:`~clarion.respond.consensus.Generator` member: ``(responder, index, picked
snippets, their embeddings, turn) -> (label, consensus pool or None)`` (``responder``: a :class:`Responder`)."""


@dataclass(frozen=True)
class Responder:
    """Response generation: ``config`` names the generator and holds its settings and switched-on rules (a DSTC
    ``PipelineConfig``: ``generator``, ``uses(rule)``, ``param(rule, name)``, the neighbour and consensus settings);
    ``bank``: the training responses borrowed from (:class:`~clarion.respond.consensus.NeighbourBank`)."""

    config: Any
    bank: NeighbourBank

    def respond(self, index, picked: list, chosen_emb: np.ndarray, ranked: bool, turn: Query):
        """The label for the selected snippets ``picked`` (embeddings ``chosen_emb``): a DSTC9/10 turn is answered
        by its best FAQ's answer itself; else the configured generator (:data:`GENERATORS`)."""
        if ranked:  # DSTC9/10: the FAQ answer itself
            label, _ = _template(self, index, picked[:1], chosen_emb[:1], turn)
            return Label(True, tuple(s.key for s in picked), label.response), None
        return GENERATORS[self.config.generator](self, index, picked, chosen_emb, turn)

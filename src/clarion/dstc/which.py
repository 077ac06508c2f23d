""" "Which one do you mean?": a knowledge-seeking turn with no place named in the dialogue.

Two functions of the DSTC pipeline (:class:`clarion.dstc.models.pipeline.DstcModel`): :func:`which_entity` asks
(rule ``ask_entity``), naming a chain's branches when the dialogue names the chain alone; without the rule,
:func:`closest_entity` guesses the place of the lexically closest snippet.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import takewhile

from clarion.data.dstc import Label
from clarion.ground.names import display_name
from clarion.retrieve.knowledge import KnowledgeIndex

MAX_BRANCHES = 5
"""The most branches of a chain offered when a dialogue names the chain alone (more: which place, generally)."""


def which_entity(index: KnowledgeIndex, branches: Sequence[tuple] = ()) -> Label:
    """Knowledge-seeking, but no hotel, restaurant, ... is named anywhere in the dialogue ("Do any of them offer
    free wifi?" after "We have 18 moderately priced hotels"): ask which one rather than answer about the entity
    of the lexically closest snippet, which named the wrong place on 5 of the 6 such turns of dstc11_track5's train
    and dev. A chain named without its branch (``branches``: :meth:`EntityTracker.chain_named`, at most
    :data:`MAX_BRANCHES` of them) gets its branches offered, by name: "Which Pizza Hut do you mean: Pizza Hut Cherry
    Hinton, Pizza Hut City Centre or Pizza Hut Fen Ditton?"."""
    names = index.knowledge.entity_names
    offered = sorted(display_name(names.get(key)) for key in branches)
    if 1 < len(offered) <= MAX_BRANCHES:
        columns = zip(*(o.split() for o in offered), strict=False)  # the words the names open with alike
        chain = " ".join(c[0] for c in takewhile(lambda c: len(set(c)) == 1, columns))
        listed = f"{', '.join(offered[:-1])} or {offered[-1]}"
        return Label(True, (), f"Which {chain or 'one'} do you mean: {listed}?")
    domains = sorted({domain for domain, entity in names if entity != "*"})
    return Label(True, (), f"Which {' or '.join(domains) or 'place'} are you asking about?")


def closest_entity(index: KnowledgeIndex, q_tfidf) -> list[tuple]:
    """No name in the context: the entity of the lexically closest snippet (cheap, no encoding)."""
    best, best_score = [], -1.0
    for entity in index.entities():
        matrix = index.tfidf(entity)
        if matrix.shape[0] == 0:
            continue
        score = float((matrix @ q_tfidf.T).max())
        if score > best_score:
            best, best_score = [entity], score
    return best

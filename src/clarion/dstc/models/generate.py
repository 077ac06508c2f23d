"""Response generation without a language model; moved to :mod:`clarion.respond` (re-exported here).

:mod:`clarion.respond.template` (extractive), :mod:`clarion.respond.consensus` (``neighbour``, ``consensus``, the
``lm`` generator's choice), :mod:`clarion.respond.names`, :mod:`clarion.respond.follow_up`,
:mod:`clarion.respond.faq_answers`, :mod:`clarion.respond.pool`; the text helpers in :mod:`clarion.text`.
"""

from clarion.respond.consensus import (  # noqa: F401
    Generator,
    NeighbourBank,
    consensus_choice,
    consensus_pool,
    consensus_response,
    lm_consensus_response,
    neighbour_response,
)
from clarion.respond.faq_answers import (  # noqa: F401
    _HYPHENATED,
    _OPEN_QUESTION,
    _POLAR_SENTENCE,
    _POLAR_WORD,
    antonyms,
    asks_open,
    without_polar_opener,
    yes_to_the_opposite,
)
from clarion.respond.follow_up import (  # noqa: F401
    _JOINED_QUESTION,
    _RESERVATION,
    FOLLOW_UP_OTHER,
    GENERAL,
    Closings,
    _not_refusals,
    closed,
    follow_up_for,
    refuses_reservations,
    split_follow_up,
    with_follow_up,
    without_joined_question,
)
from clarion.respond.names import (  # noqa: F401
    _MISSPELT,
    _NAME_WORD,
    _PLACE_WORD_AFTER,
    _SMALL_WORDS,
    _TYPED_NAME,
    _VOWEL,
    _bare,
    _bare_name,
    _display_written,
    _misspelt,
    _name_tail,
    _names,
    _whose,
    _write_name,
    display_name,
    mid_sentence,
    respelled,
    swap_entity,
)
from clarion.respond.pool import (  # noqa: F401
    Pool,
    _ngrams,
    mbr_choice,
    mbr_expected,
    mbr_weighted,
    mean_embedding,
    ngram_utility,
)
from clarion.respond.template import (  # noqa: F401
    _PRONOUNS,
    _THEIR_X_AND_THEY,
    _THEM_AND_THEIR,
    _WORD,
    Selected,
    _name_kept,
    as_sentence,
    reported,
    snippets_response,
    template_response,
    third_person,
)
from clarion.text import (  # noqa: F401
    _NEGATION,
    _SENTENCE_END,
    _TOKEN,
    _WIFI,
    _porter,
    _stem,
    content_words,
    negated,
    words_of,
)

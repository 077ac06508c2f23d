"""Grounding in a knowledge base: which places a dialogue is about, and their names.

:mod:`~clarion.ground.aliases` (the forms a place's name takes: article and generic suffixes dropped, a chain's branch
and the knowledge base's city optional, typos), :mod:`~clarion.ground.entities` (``EntityTracker``: which places the
dialogue names, scanning back from the last turn), :mod:`~clarion.ground.names` (names as responses write them, one
place's name swapped for another's). What they know about a knowledge base comes from that knowledge base
(:mod:`clarion.retrieve.profile`).
"""

"""Constants of the ClariQ task shared by readers, methods and the CLI."""

NO_QUESTION = "Q00001"
"""The bank's empty question: "ask nothing"."""

MIN_DEPTH = 30
"""Every ranked run gives at least this many distinct questions per topic (the official cut-off)."""

NEED_LABELS = (1, 2, 3, 4)

"""The respond stage: choosing what the system says. ``respond.replies`` ranks candidate replies to a dialogue
context (graded reply ranking, the Yandex General Conversation task)."""

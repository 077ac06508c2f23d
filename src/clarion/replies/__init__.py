"""Graded reply ranking (the Yandex General Conversation task): order candidate replies to a dialogue context.

``ReplyRanker.load(model_dir=None, progress=None)``, then ``ranker.score(context, replies)`` (a float per reply,
higher = better; context oldest first) or ``ranker.rank(context, replies)`` (indices, best first). Methods are in
:data:`clarion.replies.methods.METHODS`.
"""

from clarion.replies.ranker import ReplyRanker

__all__ = ["ReplyRanker"]

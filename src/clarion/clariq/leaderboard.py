"""Published ClariQ leaderboard rows, quoted with their source, printed beside clarion's own numbers."""

from __future__ import annotations

SOURCE = "ClariQ leaderboard, github.com/aliannejadi/ClariQ (official tool)"

QUESTION_ROWS = [
    # (name, split, Recall5, Recall10, Recall20, Recall30)
    ("NTES_ALONG Reranker-v4 (best published)", "test", 0.3404, 0.6329, 0.8335, 0.8744),
    ("NTES_ALONG (best published, dev)", "dev", None, None, None, 0.8761),
    ("Organisers' BERT-ranker", "dev", 0.3494, 0.6134, 0.7248, 0.7542),
    ("Organisers' BM25", "dev", 0.3246, 0.5638, 0.6675, 0.6913),
]

NEED_ROWS = [
    # (name, split, Precision, Recall, F1)
    ("TAL ML Roberta+++ (best published)", "test", 0.5981, 0.6557, 0.6070),
    ("TAL ML Roberta+++", "dev", None, None, 0.5551),
    ("CactusJam", "test", None, None, 0.5416),
    ("TAL ML Roberta++", "test", None, None, 0.5253),
    ("Algis Roberta+CatBoost", "test", None, None, 0.5138),
]

"""First-stage retrieval over a candidate pool: lexical (bm25s) and dense (MiniLM bi-encoder)."""

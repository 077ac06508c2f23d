"""The DSTC9 Track 1 family task (DSTC9/10 FAQs, DSTC11 reviews and FAQs): the pipeline assembled from the stages
(detect, ground, rerank, respond), its scoring and the one-dialogue assistant (``Grounder``)."""

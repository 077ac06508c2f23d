"""The DSTC9 Track 1 family (DSTC9/10 FAQs, DSTC11 reviews and FAQs): data, split, scoring and models."""

"""DSTC9 Track 1 family models: detection, entity tracking, snippet selection, response generation.

Train with :func:`clarion.dstc.models.train.train`, save and load with :mod:`clarion.dstc.models.modeldir`,
predict with :meth:`clarion.dstc.models.pipeline.DstcModel.predict`.
"""

"""detect: does this request need clarification? Ambiguity features, classifiers and their cross-validation.

- :mod:`clarion.detect.form`, :mod:`clarion.detect.lexicon`, :mod:`clarion.detect.ambiguity`: feature
  groups (request form, WordNet senses, question-bank wins and spread);
- :mod:`clarion.detect.features`: :class:`~clarion.detect.features.FeatureGroup` and the feature space;
- :mod:`clarion.detect.classify`: the classifier registry; :mod:`clarion.detect.cv`: repeated CV.

The ClariQ model built from them is :class:`clarion.clariq.need.NeedModel`.
"""

"""Moved to :mod:`clarion.rerank.snippets_fit`; this old name stays an alias of that module."""

import sys

from clarion.rerank import snippets_fit as _moved

sys.modules[__name__] = _moved

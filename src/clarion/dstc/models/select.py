"""Moved to :mod:`clarion.rerank.snippets`; this old name stays an alias of that module."""

import sys

from clarion.rerank import snippets as _moved

sys.modules[__name__] = _moved

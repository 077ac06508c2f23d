"""Moved to :mod:`clarion.rerank.response_memory`; this old name stays an alias of that module."""

import sys

from clarion.rerank import response_memory as _moved

sys.modules[__name__] = _moved

"""Moved to :mod:`clarion.retrieve.knowledge`; this old name stays an alias of that module."""

import sys

from clarion.retrieve import knowledge as _moved

sys.modules[__name__] = _moved

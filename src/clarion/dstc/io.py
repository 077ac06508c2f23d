"""Moved to :mod:`clarion.data.dstc`; this old name stays an alias of that module."""

import sys

from clarion.data import dstc as _moved

sys.modules[__name__] = _moved

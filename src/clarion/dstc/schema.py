"""Moved to :mod:`clarion.data.dstc_schema`; this old name stays an alias of that module."""

import sys

from clarion.data import dstc_schema as _moved

sys.modules[__name__] = _moved

"""Moved to :mod:`clarion.respond.lm`; this old name stays an alias of that module."""

import sys

from clarion.respond import lm as _moved

sys.modules[__name__] = _moved

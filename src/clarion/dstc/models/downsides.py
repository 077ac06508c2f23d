"""Moved to :mod:`clarion.respond.opinions`; this old name stays an alias of that module."""

import sys

from clarion.respond import opinions as _moved

sys.modules[__name__] = _moved

"""Moved to :mod:`clarion.detect.knowledge`; this old name stays an alias of that module."""

import sys

from clarion.detect import knowledge as _moved

sys.modules[__name__] = _moved

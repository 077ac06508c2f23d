"""Moved to :mod:`clarion.detect.anchors`; this old name stays an alias of that module."""

import sys

from clarion.detect import anchors as _moved

sys.modules[__name__] = _moved

"""Moved to :mod:`clarion.detect.faq_rule`; this old name stays an alias of that module."""

import sys

from clarion.detect import faq_rule as _moved

sys.modules[__name__] = _moved

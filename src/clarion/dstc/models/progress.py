"""The progress callback the models report to; one type for every model (:mod:`clarion.store`), re-exported here."""

from __future__ import annotations

from clarion.store import Progress, no_progress  # noqa: F401

"""The clarification-need run format: one ``topic_id label`` line per topic."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from clarion.data.io import atomic_writer, read_lines
from clarion.errors import DataError


def read_need_run(path: str | Path, known_topics: set[str] | None = None) -> dict[str, int]:
    """``topic_id -> label`` from a need run; labels must be integers 1-4, topics unique (and known)."""
    out: dict[str, int] = {}
    for line, text in read_lines(path):
        fields = text.split()
        if len(fields) != 2:
            raise DataError(path, f"expected 2 fields (topic_id label), found {len(fields)}", line)
        topic, label = fields
        if label not in {"1", "2", "3", "4"}:
            raise DataError(path, f"label must be an integer 1-4, got {label!r}", line)
        if known_topics is not None and topic not in known_topics:
            raise DataError(path, f"unknown topic {topic!r} (not in the labels file)", line)
        if topic in out:
            raise DataError(path, f"topic {topic} appears twice", line)
        out[topic] = int(label)
    return out


def write_need_run(path: str | Path, labels: Mapping[str, int]) -> None:
    """Write ``topic_id label`` lines, atomically."""
    with atomic_writer(path) as handle:
        for topic, label in labels.items():
            handle.write(f"{topic} {int(label)}\n")

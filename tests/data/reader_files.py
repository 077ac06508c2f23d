"""Helpers the reader tests share (``test_readers_clariq.py``, ``test_readers_trec.py``, ``test_readers_common.py``):
the ClariQ label header, a file written from text, and the one-line error a reader raises."""

from __future__ import annotations

import pytest

from clarion.errors import DataError

LABEL_HEADER = (
    "topic_id\tinitial_request\ttopic_desc\tclarification_need\tfacet_id\tfacet_desc\tquestion_id\tquestion\tanswer\n"
)


def write_file(tmp_path, name, text):
    path = tmp_path / name
    path.write_text(text)
    return path


def error_of(reader, path) -> str:
    with pytest.raises(DataError) as err:
        reader(path)
    return str(err.value)

"""Tab-separated files with a header row, read with line numbers for error messages."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from clarion.data.io import read_text
from clarion.errors import DataError


class Row(dict):
    """A TSV row (column -> text) that remembers its 1-based line number in the file."""

    line: int = 0


def _field(text: str) -> str:
    """A field as written, except that a field quoted whole in the CSV way (``"a ""b"" c"``, as in the
    ``facet_desc`` column of the official files) is unquoted. Any other quote is kept literally."""
    if len(text) >= 2 and text[0] == text[-1] == '"' and '"' not in text[1:-1].replace('""', ""):
        return text[1:-1].replace('""', '"')
    return text


def read_tsv(
    path: str | Path,
    required: Sequence[str] = (),
    aliases: dict[str, str] | None = None,
) -> list[Row]:
    """Rows of a TSV file with a header, as dicts.

    ``required`` columns must be present (after renaming by ``aliases``, e.g. ``{"initial request":
    "initial_request"}``); every row must have as many fields as the header. Every line is one record: a
    quote never spans lines or swallows the tabs after it. A field quoted whole is unquoted (the CSV
    convention, which the ClariQ files use in their description columns); other quotes are read literally.
    """
    lines = read_text(path).split("\n")  # read_text has turned \r\n and \r into \n
    header = [(aliases or {}).get(h.strip(), h.strip()) for h in map(_field, lines[0].split("\t"))]
    repeated = sorted({c for c in header if c and header.count(c) > 1})
    if repeated:  # which of the two would a row mean?
        raise DataError(path, f"column(s) {', '.join(repr(c) for c in repeated)} appear more than once", line=1)
    missing = [c for c in required if c not in header]
    if missing:
        raise DataError(
            path,
            f"missing column(s) {', '.join(missing)}; found columns: {', '.join(header)}",
            line=1,
        )
    rows: list[Row] = []
    for number, text in enumerate(lines[1:], start=2):
        if not text.strip():
            continue
        fields = text.split("\t")
        if len(fields) != len(header):
            unnamed = [str(i) for i, name in enumerate(header, start=1) if not name]
            hint = f" (the header's column {', '.join(unnamed)} has no name: a stray tab?)" if unnamed else ""
            raise DataError(path, f"expected {len(header)} fields, found {len(fields)}{hint}", line=number)
        row = Row(zip(header, map(_field, fields), strict=True))
        row.line = number
        rows.append(row)
    if not rows:
        raise DataError(path, "no data rows after the header")
    return rows

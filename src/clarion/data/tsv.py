"""Tab-separated files with a header row, read with line numbers for error messages."""

from __future__ import annotations

import csv
import io
from collections.abc import Sequence
from pathlib import Path

from clarion.data.io import read_text
from clarion.errors import DataError


class Row(dict):
    """A TSV row (column -> text) that remembers its 1-based line number in the file."""

    line: int = 0


def read_tsv(
    path: str | Path,
    required: Sequence[str] = (),
    aliases: dict[str, str] | None = None,
) -> list[Row]:
    """Rows of a TSV file with a header, as dicts.

    ``required`` columns must be present (after renaming by ``aliases``, e.g. ``{"initial request":
    "initial_request"}``); every row must have as many fields as the header. Quoting follows the CSV
    convention, as pandas reads the ClariQ files.
    """
    text = read_text(path)
    reader = csv.reader(io.StringIO(text), delimiter="\t")
    try:
        header = next(reader)
    except csv.Error as err:
        raise DataError(path, f"cannot parse header: {err}", line=1) from None
    header = [(aliases or {}).get(h.strip(), h.strip()) for h in header]
    missing = [c for c in required if c not in header]
    if missing:
        raise DataError(
            path,
            f"missing column(s) {', '.join(missing)}; found columns: {', '.join(header)}",
            line=1,
        )
    rows: list[Row] = []
    line = reader.line_num
    try:
        for fields in reader:
            start, line = line + 1, reader.line_num
            if not fields or (len(fields) == 1 and not fields[0].strip()):
                continue
            if len(fields) != len(header):
                raise DataError(path, f"expected {len(header)} fields, found {len(fields)}", line=start)
            row = Row(zip(header, fields, strict=True))
            row.line = start
            rows.append(row)
    except csv.Error as err:
        raise DataError(path, f"cannot parse: {err}", line=line + 1) from None
    if not rows:
        raise DataError(path, "no data rows after the header")
    return rows

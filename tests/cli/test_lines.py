"""The pipe protocol of `clariq clarify -` and `dstc respond -`: one answer per input line, errors in step."""

from __future__ import annotations

import io
import json

import pytest

from clarion.cli.lines import answer_lines, numbered_lines
from clarion.errors import InputError


def lines_of(data: bytes, limit: int = 16) -> list:
    return [(n, str(x) if isinstance(x, InputError) else x) for n, x in numbered_lines(io.BytesIO(data), limit)]


def test_lines_are_numbered_without_their_line_breaks():
    assert lines_of(b"first\r\nsecond\n\nlast without a break", limit=100) == [
        (1, "first"),
        (2, "second"),
        (3, ""),
        (4, "last without a break"),
    ]
    assert lines_of(b"") == []


def test_a_line_that_is_too_long_or_not_utf8_is_an_error_and_the_next_lines_keep_their_numbers():
    got = lines_of(b"ok\n" + b"x" * 40 + b"\n" + b"caf\xe9\n" + b"y" * 16 + b"\n" + b"z" * 17 + b"\nend\n")
    assert got == [
        (1, "ok"),
        (2, "the line is longer than 16 bytes"),
        (3, "the line is not UTF-8 text (byte 0xe9 at 3)"),
        (4, "y" * 16),  # exactly the limit
        (5, "the line is longer than 16 bytes"),
        (6, "end"),
    ]
    assert lines_of(b"w" * 40) == [(1, "the line is longer than 16 bytes")]  # no line break at the end


def shout(line: str) -> tuple[dict, list[str]]:
    if not line.strip():
        raise InputError("nothing to shout")
    return {"text": line.upper()}, [f"> {line}", line.upper()]


def test_json_answers_stay_in_step_with_the_input_and_errors_are_counted(capsys):
    failed = answer_lines(shout, True, "word", io.BytesIO(b"hi\n\nthere\n"))
    out, err = capsys.readouterr()
    assert failed == 1
    assert [json.loads(line) for line in out.splitlines()] == [
        {"line": 1, "text": "HI"},
        {"line": 2, "error": "nothing to shout"},
        {"line": 3, "text": "THERE"},
    ]
    assert err == "error: <stdin>:2: nothing to shout\n"


def test_answers_for_humans_are_blocks_and_errors_go_to_stderr_only(capsys):
    assert answer_lines(shout, False, "word", io.BytesIO(b"hi\n \n")) == 1
    out, err = capsys.readouterr()
    assert out == "> hi\nHI\n\n" and err == "error: <stdin>:2: nothing to shout\n"


def test_no_input_at_all_is_an_error():
    with pytest.raises(InputError, match="no input: give one word per line"):
        answer_lines(shout, True, "word", io.BytesIO(b""))


def test_one_request_at_a_time_runs_on_one_torch_thread_and_restores_the_count():
    import torch

    from clarion.cli.common import one_at_a_time

    before = torch.get_num_threads()
    with pytest.raises(RuntimeError), one_at_a_time():
        assert torch.get_num_threads() == 1
        raise RuntimeError("the command failed")
    assert torch.get_num_threads() == before

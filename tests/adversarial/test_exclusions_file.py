"""``seat-exclusions.json`` in the state directory (controller/table/exclusions.py) is read at
start as untrusted input: every check names the file and the problem in one line, and the
daemon then ignores it; what the daemon writes reads back the same."""

from __future__ import annotations

import json
import os

import pytest
from hypothesis import given
from hypothesis import strategies as st

from controller.table.exclusions import (
    ExclusionsFileError,
    read_exclusions,
    write_exclusions,
)

SEATS = (1, 2, 3, 4, 5, 6, 7)


@given(
    st.dictionaries(
        st.sampled_from(SEATS),
        st.text(st.characters(codec="utf-8", categories=("L", "N", "P", "Zs")), min_size=1)
        .map(lambda t: t[:200])
        .filter(lambda t: t.isprintable()),
    )
)
def test_what_is_written_reads_back(tmp_path_factory, excluded):
    path = tmp_path_factory.mktemp("state") / "seat-exclusions.json"
    write_exclusions(path, excluded)
    assert read_exclusions(path, SEATS) == excluded


def test_no_file_is_no_exclusion(tmp_path):
    assert read_exclusions(tmp_path / "seat-exclusions.json", SEATS) == {}


@pytest.mark.parametrize(
    ("content", "problem"),
    [
        (b"{", "not JSON"),
        (b"\xff\xfe", "not JSON"),
        (b"[1, 2]", "expected an object of seat -> reason"),
        (b'{"0": "stuck"}', "'0' is not a seat of this table"),
        (b'{"9": "stuck"}', "'9' is not a seat of this table"),
        (b'{"seat3": "stuck"}', "'seat3' is not a seat of this table"),
        ('{"\u0663": "stuck"}'.encode(), "is not a seat of this table"),  # an Arabic-Indic 3
        (b'{"03": "stuck"}', "'03' is not a seat of this table"),
        (b'{"' + b"9" * 5000 + b'": "stuck"}', "is not a seat of this table"),  # int() raises
        (b'{"3": ""}', "seat 3: the reason must be text of 1..200 characters"),
        (b'{"3": 7}', "seat 3: the reason must be text of 1..200 characters"),
        (json.dumps({"3": "x" * 201}).encode(), "seat 3: the reason must be text of 1..200"),
        (b'{"3": "stuck\\u001b[2J"}', "seat 3: the reason is not printable text"),
        (b"[" * 100_000, "larger than"),
        (b"[" * 5_000 + b"]" * 5_000, "not JSON"),  # too deep for the parser: no crash
    ],
)
def test_a_file_that_fails_a_check_is_named_in_one_line(tmp_path, content, problem):
    path = tmp_path / "seat-exclusions.json"
    path.write_bytes(content)
    with pytest.raises(ExclusionsFileError) as refused:
        read_exclusions(path, SEATS)
    message = str(refused.value)
    assert message.startswith(f"{path}: ") and problem in message and "\n" not in message


def test_a_file_that_is_not_a_regular_file_is_refused_unread(tmp_path):
    path = tmp_path / "seat-exclusions.json"
    os.mkfifo(path)  # a reader would block on it for ever
    with pytest.raises(ExclusionsFileError, match="cannot be read"):
        read_exclusions(path, SEATS)
    path.unlink()
    path.symlink_to("/dev/zero")
    with pytest.raises(ExclusionsFileError, match="cannot be read"):
        read_exclusions(path, SEATS)

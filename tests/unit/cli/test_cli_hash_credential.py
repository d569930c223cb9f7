"""``croupier config hash-credential`` with the credential on standard input: one line read,
at most MAX_CREDENTIAL_BYTES, UTF-8, not empty nor only spaces; every refusal one line, exit
status 1 (standard input is not a command-line option), never MemoryError or
UnicodeEncodeError."""

from __future__ import annotations

import io
import sys

import pytest

from controller.cli import config_cmd
from controller.cli.main import main
from controller.table.credentials import verify


class Endless(io.RawIOBase):
    """/dev/zero that counts what was read and refuses to give more than a limit."""

    def __init__(self, limit: int) -> None:
        self.limit, self.given = limit, 0

    def readable(self) -> bool:
        return True

    def readinto(self, buffer) -> int:
        self.given += len(buffer)
        assert self.given <= self.limit, "read without a bound"
        buffer[:] = b"\0" * len(buffer)
        return len(buffer)


def _run(capsys, monkeypatch, stdin) -> tuple[int, str, str]:
    monkeypatch.setattr(sys, "stdin", stdin)
    code = main(["config", "hash-credential"])
    out, err = capsys.readouterr()
    return code, out, err


def _piped(data: bytes) -> io.TextIOWrapper:
    return io.TextIOWrapper(io.BytesIO(data), encoding="utf-8", errors="surrogateescape")


def test_an_endless_stdin_is_read_only_so_far(capsys, monkeypatch) -> None:
    stdin = io.TextIOWrapper(io.BufferedReader(Endless(64 * 1024)))
    code, out, err = _run(capsys, monkeypatch, stdin)
    assert (code, out) == (1, "") and err.count("\n") == 1
    assert f"longer than {config_cmd.MAX_CREDENTIAL_BYTES} bytes" in err


@pytest.mark.parametrize(
    ("data", "says"),
    [
        (b"\xff\xfe\n", "not UTF-8 text (byte 0: 0xff)"),
        (b"\n", "empty or only spaces"),
        (b"", "empty or only spaces"),
        (b"   \t \n", "empty or only spaces"),
        (b"x" * 1025 + b"\n", "longer than 1024 bytes"),
        (b"ab\0cd\n", "control character ('\\x00')"),
    ],
)
def test_a_credential_that_cannot_be_one_is_a_one_line_failure(
    capsys, monkeypatch, data, says
) -> None:
    code, out, err = _run(capsys, monkeypatch, _piped(data))
    assert (code, out) == (1, "") and err.count("\n") == 1 and says in err, err
    assert "internal error" not in err


@pytest.mark.parametrize("line", [b"1234\n", b"1234\r\n", b"1234", "sécret\n".encode()])
def test_a_good_credential_is_hashed(capsys, monkeypatch, line) -> None:
    code, out, err = _run(capsys, monkeypatch, _piped(line))
    assert code == 0 and err == ""
    secret = line.decode().rstrip("\r\n")
    assert verify(secret, out.strip())


def test_the_longest_credential_is_taken(capsys, monkeypatch) -> None:
    code, out, _ = _run(capsys, monkeypatch, _piped(b"x" * 1024 + b"\n"))
    assert code == 0 and verify("x" * 1024, out.strip())


def test_closed_stdin_is_said(capsys, monkeypatch) -> None:
    code, out, err = _run(capsys, monkeypatch, None)
    assert (code, out) == (1, "") and "standard input is closed" in err

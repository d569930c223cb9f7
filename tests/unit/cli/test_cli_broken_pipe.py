"""`croupier ... | head`: a reader that goes away never gives a traceback, whether the command
succeeds or fails with its JSON error object on stdout."""

from __future__ import annotations

import os
import subprocess
import sys
from typing import Any

import pytest

ROUND = '{"profile": "uth-gr", "seats": {"1": {"cards": ["As", "Ks"]}}}'


def croupier_into(stdout: Any, argv: list[str]) -> subprocess.CompletedProcess[str]:
    """``croupier ARGV`` with ``stdout`` as its standard output, a round file on stdin."""
    return subprocess.run(
        [sys.executable, "-m", "controller.cli.main", *argv],
        input=ROUND,
        stdout=stdout,
        stderr=subprocess.PIPE,
        text=True,
        timeout=60,
    )


@pytest.mark.parametrize(
    "argv",
    [
        ["par", "--profile", "no-such-profile", "--json"],  # fails: JSON error on stdout
        ["settle", "-", "--json"],  # fails on a malformed round: JSON error on stdout
        ["--help"],  # argparse writes the help: Debian 12's (Python 3.11.2) does not catch it
        ["settle", "--help"],
        ["--version"],  # answered before any parser
        ["status", "--no-such-option"],  # a usage error: stderr only, stdout untouched
    ],
)
def test_a_closed_stdout_is_no_traceback(argv):
    read, write = os.pipe()
    os.close(read)  # the reader is gone before the first byte is written
    proc = croupier_into(write, argv)
    os.close(write)
    assert "Traceback" not in proc.stderr, proc.stderr
    assert proc.stderr.count("\n") <= 1, proc.stderr


@pytest.mark.parametrize(
    "argv",
    [
        ["--help"],
        ["status", "--help"],
        ["--version"],
        ["eval", "As", "Ks", "Qs", "Js", "Ts", "--json"],
        ["eval", "As", "Ks", "Qs", "Js", "Ts"],
        ["par", "--profile", "no-such-profile", "--json"],  # fails: its JSON error to stdout
        ["settle", "-", "--json"],
    ],
)
def test_a_stdout_that_cannot_be_written_is_one_line(argv):
    """``>/dev/full`` (a full disk): a failure in one line, exit status 1, not a traceback
    (nor two: the JSON error object goes to the same stdout)."""
    with open("/dev/full", "w") as full:
        proc = croupier_into(full, argv)
    assert "Traceback" not in proc.stderr, proc.stderr
    assert proc.stderr.count("\n") == 1, proc.stderr
    assert proc.returncode in (1, 2), proc.stderr


@pytest.mark.parametrize("argv", [["status", "--json"], ["eval", "As", "Ks", "Qs", "Js", "Ts"]])
def test_a_closed_stdout_runs_nothing_and_says_so(argv):
    proc = subprocess.run(
        [sys.executable, "-m", "controller.cli.main", "--socket", "/nonexistent/s.sock", *argv],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        timeout=60,
        preexec_fn=lambda: os.close(1),
    )
    assert proc.returncode == 1
    assert proc.stderr == "croupier: standard output is closed; nothing was run\n"


def test_a_closed_stdin_is_one_line():
    """``croupier settle - <&-``: the round file is standard input, and there is none."""
    proc = subprocess.run(
        [sys.executable, "-m", "controller.cli.main", "settle", "-"],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=60,
        preexec_fn=lambda: os.close(0),
    )
    assert proc.returncode == 1, proc.stderr
    assert proc.stderr == "croupier settle: cannot read (stdin): standard input is closed\n"

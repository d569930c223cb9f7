"""The rig's waits (controller/rig/target.py): only the errors a caller names as "not yet" are
polled again; any other error, and a daemon that died, fail the wait at once, never as a
timeout."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

import pytest

from controller.rig.errors import RigFailure
from controller.rig.target import TableUnderTest


class FakeTable(TableUnderTest):
    """No daemon: ``exited`` says whether it died; its log is a file of the test's."""

    def __init__(self, log: Path) -> None:
        super().__init__()
        self.log_path = log
        self.exited: int | None = None

    def _dead(self) -> str | None:
        return None if self.exited is None else f"croupierd exited with status {self.exited}"


@pytest.fixture
def table(tmp_path: Path) -> FakeTable:
    log = tmp_path / "croupierd.log"
    log.write_text("started\nledger: disk full\n")
    return FakeTable(log)


def answers_after(failures: int, error: Exception) -> Callable[[], str]:
    calls = []

    def check() -> str:
        calls.append(1)
        if len(calls) <= failures:
            raise error
        return "answered"

    return check


def test_a_not_yet_error_is_polled_again(table):
    check = answers_after(3, ConnectionRefusedError("refused"))
    assert table.wait_until(check, "the socket", not_yet=(ConnectionError,)) == "answered"


def test_any_other_error_fails_the_wait_at_once(table):
    check = answers_after(3, KeyError("seats"))
    start = time.monotonic()
    with pytest.raises(KeyError, match="seats"):
        table.wait_until(check, "a stake", timeout=30, not_yet=(ConnectionError,))
    assert time.monotonic() - start < 10  # raised, not waited out


def test_an_unlisted_error_is_not_caught_by_default(table):
    with pytest.raises(ConnectionRefusedError):
        table.wait_until(answers_after(1, ConnectionRefusedError()), "the socket", timeout=30)


def test_a_dead_daemon_fails_the_wait_at_once_with_its_last_lines(table):
    table.exited = 1
    with pytest.raises(RigFailure, match="exited with status 1 while the rig waited for open"):
        table.wait_until(lambda: False, "open", timeout=30)
    with pytest.raises(RigFailure, match="ledger: disk full"):
        table.wait_until(lambda: False, "open", timeout=30)


def test_a_timeout_says_what_was_awaited_and_uses_the_default(table):
    table.wait_timeout = 0.05
    with pytest.raises(RigFailure, match="timed out waiting for the stake"):
        table.wait_until(lambda: None, "the stake")

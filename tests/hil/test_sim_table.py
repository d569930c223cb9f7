"""The rig's simulated table cleans up after itself, however it is stopped."""

from __future__ import annotations

import os

import pytest

from controller.rig.table import SimTable


def running(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def test_a_second_ctrl_c_while_the_daemon_stops_still_stops_it():
    table = SimTable()
    table.start()
    proc = table.proc
    real_wait, calls = proc.wait, []

    def interrupted_wait(timeout=None):
        calls.append(timeout)
        if len(calls) == 1:  # the technician presses Ctrl-C again while it shuts down
            raise KeyboardInterrupt
        return real_wait(timeout)

    proc.wait = interrupted_wait
    with pytest.raises(KeyboardInterrupt):
        table.close()
    assert len(calls) == 2  # interrupted once, then the kill was waited for
    assert proc.returncode is not None and not running(proc.pid)
    assert table.proc is None

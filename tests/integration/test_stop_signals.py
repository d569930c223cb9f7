"""Every stop signal stops croupierd and the rig's commands cleanly: SIGHUP as SIGTERM, a
signal to the rig's PID alone (not its process group) as Ctrl-C at its terminal."""

from __future__ import annotations

import signal

import pytest

from controller.rig.table import processes_with
from tests.integration.test_single_instance import wait_for

pytestmark = pytest.mark.integration


@pytest.mark.parametrize("sig", [signal.SIGHUP, signal.SIGTERM])
def test_croupierd_stops_cleanly_on_sighup_as_on_sigterm(sim_table, sig):
    """A daemon started in an SSH session that drops gets SIGHUP: a clean stop, exit 0, its
    socket removed, its emulator stopped by it (not orphaned)."""
    table = sim_table
    proc = table.proc
    assert table.emulator_pids()
    proc.send_signal(sig)
    assert proc.wait(20) == 0
    wait_for(lambda: not table.emulator_pids(), "the emulator to stop")
    log = table.daemon_log(40)
    assert "the process that started it is gone" not in log, log
    assert "emulator: stopped" in log
    assert not table.control_socket.exists()
    assert not processes_with(str(table.runtime_dir))

"""The rig's simulated table cleans up after itself, however it is stopped."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from controller.rig.table import SimTable
from controller.table.tableconfig import load_table_config


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


RIG_CONFIGS = [
    *sorted((Path(__file__).parent / "tables").glob("*.toml")),
    Path(__file__).parents[2] / "config" / "sim.toml",
]


@pytest.mark.parametrize("path", RIG_CONFIGS, ids=lambda p: p.name)
def test_every_rig_table_keeps_its_report_key_in_its_state_directory(path, tmp_path):
    """A simulated table signs its evidence bundles with a key the rig makes in its state
    directory; the default (/etc/croupier/report-key.pem) is an installed table's and does not
    exist here, so a jackpot would fail the bundle (the two-jackpots scenario did)."""
    config = load_table_config(path)
    assert config.resolve_report_key(tmp_path).is_relative_to(tmp_path)

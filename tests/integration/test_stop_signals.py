"""Every stop signal stops croupierd and the rig's commands cleanly: SIGHUP as SIGTERM, a
signal to the rig's PID alone (not its process group) as Ctrl-C at its terminal."""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from controller.rig.table import processes_with
from tests.integration.test_single_instance import (
    CROUPIER,
    children,
    never_left_running,
    runtime_dir_of,
    started,
    stopped_by,
    wait_for,
)

pytestmark = pytest.mark.integration


def cpu_seconds(pid: int) -> float:
    """The user and system CPU a running process has used (``/proc/PID/stat``)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


@pytest.mark.parametrize("sig", [signal.SIGHUP, signal.SIGTERM], ids=["SIGHUP", "SIGTERM"])
def test_croupierd_stops_cleanly_on_sighup_as_on_sigterm(sim_table, sig):
    """A daemon started in an SSH session that drops gets SIGHUP: a clean stop, exit 0, its
    socket removed, its emulator stopped by it (not orphaned), and the log says which signal
    stopped it."""
    table = sim_table
    proc = table.proc
    assert table.emulator_pids()
    proc.send_signal(sig)
    assert proc.wait(20) == 0
    wait_for(lambda: not table.emulator_pids(), "the emulator to stop")
    log = table.daemon_log(40)
    assert "the process that started it is gone" not in log, log
    assert f"NOTICE croupierd: stopping on {signal.Signals(sig).name}" in log, log  # journalctl
    assert "emulator: stopped" in log
    assert not table.control_socket.exists()
    assert not processes_with(str(table.runtime_dir))
    # the locks removed by their holders: croupierd.lock, shuffler.pty.lock, the ledger's
    left = [*table.runtime_dir.glob("*.lock"), *table.state_dir.glob("*.lock")]
    assert not left, left


def rig_soak(*options: str) -> subprocess.Popen[str]:
    return started(*CROUPIER, "rig", "soak", "--rounds", "1000", *options)


def children_once(parent: subprocess.Popen[str], word: str, count: int) -> list[int]:
    """The ``count`` children of ``parent`` whose command line holds ``word``, once all run."""
    return wait_for(
        lambda: len(found := children(parent.pid, word)) == count and found,
        f"{count} {word} process(es)",
    )


def runtime_dirs(rig: subprocess.Popen[str], tables: int = 1) -> list[str]:
    """The runtime directories of the rig's daemons, once they all run."""
    return [runtime_dir_of(pid) for pid in children_once(rig, "controller.table.daemon", tables)]


@pytest.mark.parametrize(
    ("sig", "tables"),
    [(signal.SIGTERM, 2), (signal.SIGHUP, 1), (signal.SIGINT, 1)],
    ids=["SIGTERM-two-tables", "SIGHUP", "SIGINT"],
)
def test_a_signal_to_the_soak_pid_stops_it_with_the_report_so_far(sig, tables):
    """The signal reaches the main thread only: the soak's workers must stop too (they
    played every remaining round, then the rig exited with no report)."""
    with never_left_running(rig_soak("--tables", str(tables))) as rig:
        runtimes = runtime_dirs(rig, tables)
        time.sleep(2.0)  # rounds in play
        out, err = stopped_by(rig, sig, 30)  # the PID alone, not the process group
    assert rig.returncode == 128 + sig, err
    stop = re.search(rf"STOPPED by {signal.Signals(sig).name} after (\d+) round", out)
    assert stop, out
    assert int(stop.group(1)) < 1000, "the soak played every round before stopping"
    assert "Traceback" not in err
    for runtime in runtimes:
        assert not processes_with(runtime), "the soak left a daemon or emulator running"
        assert not os.path.exists(runtime), "the soak left its runtime directory"


def test_a_signal_while_the_soaks_tables_start_reports_the_stop():
    """A SIGTERM as the first daemon starts, before every table is open (a loaded machine
    took longer than the test above waits; CI saw it): the same report of the stop, with the
    rounds played so far (none, or a few when the table opened first), not a bare exit."""
    with never_left_running(rig_soak("--tables", "2")) as rig:
        (runtime,) = runtime_dirs(rig, 1)
        out, err = stopped_by(rig, signal.SIGTERM, 30)
    assert rig.returncode == 128 + signal.SIGTERM, err
    assert re.search(r"STOPPED by SIGTERM after \d+ round", out), (out, err)
    assert "Traceback" not in err
    assert not processes_with(runtime), "the soak left a daemon or emulator running"


def test_a_rig_killed_with_sigkill_leaves_no_daemon_or_emulator():
    """No clean-up runs in a rig killed with ``kill -9``: its daemon notices that the
    process that started it is gone and stops cleanly, stopping its emulator."""
    with never_left_running(rig_soak()) as rig:
        (runtime,) = runtime_dirs(rig)
        wait_for(lambda: processes_with("emulator", runtime), "its emulator")
        rig.kill()
        rig.wait()
    try:
        wait_for(lambda: not processes_with(runtime), "the daemon and emulator to stop", 10.0)
        log = Path(runtime, "croupierd.log").read_text()
        assert "the process that started it is gone: stopping" in log
        assert "emulator: stopped" in log
    finally:
        shutil.rmtree(runtime, ignore_errors=True)  # the rig's own, left by the kill -9


def test_a_signal_to_the_sim_batch_pid_stops_its_runs():
    """``make sim``: the runs are the batch's children, waited for by its threads; a SIGTERM
    to the batch alone stops them too (they ran to their end, minutes of every core)."""
    command = [sys.executable, "-m", "controller.rig.sim.batch", "--rounds", "100000000"]
    with never_left_running(started(*command, "--jobs", "2", "--profiles", "uth-gr")) as batch:
        runs = children_once(batch, "controller.cli.main", 2)
        _, err = stopped_by(batch, signal.SIGTERM, 20)
    assert batch.returncode == 128 + signal.SIGTERM, err
    assert err == "sim: stopped (SIGTERM)\n"
    wait_for(lambda: not any(Path(f"/proc/{pid}").exists() for pid in runs), "the runs", 5.0)


def test_a_signal_to_croupier_sim_prints_the_rounds_so_far_and_their_replay():
    """``croupier sim --rounds 100000`` stopped by SIGTERM printed nothing: minutes of
    simulation, and no seed to go on from. The partial result, then 128 + N."""
    command = [*CROUPIER, "sim", "--rounds", "100000000", "--seed", "7"]
    with never_left_running(started(*command)) as sim:
        # rounds played: 2 s of the run's own CPU (a few hundred rounds a CPU second after a
        # start-up of well under one), not 3 s of a wall clock, which a loaded CI machine
        # spent before the first round (the run stopped after 0 rounds)
        wait_for(lambda: cpu_seconds(sim.pid) >= 2.0, "the sim's rounds", 60.0)
        out, err = stopped_by(sim, signal.SIGTERM, 30)
    assert sim.returncode == 128 + signal.SIGTERM, err
    assert "Traceback" not in err
    stop = re.search(
        r"STOPPED by SIGTERM after (\d+) round\(s\), 0 violation\(s\); replay: (.*)", out
    )
    assert stop, out
    assert out.startswith(f"sim uth-gr seed 7: {stop.group(1)} rounds")
    assert stop.group(2) == (
        f"croupier sim --profile uth-gr --rounds {stop.group(1)} --seed 7 --faults 0.2"
        " --crash-rate 0.01"
    )
    assert "digest: none (the run was cut short)" in out

"""One live croupierd per runtime directory, one emulator per link (an flock lock file), and
``make demo`` stopped by SIGTERM or SIGHUP leaves nothing running."""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from controller.rig.table import REPO, processes_with
from controller.table.instance_lock import AlreadyRunningError, InstanceLock

pytestmark = pytest.mark.integration


def test_a_held_lock_refuses_a_second_holder_and_is_free_after(tmp_path):
    path = tmp_path / "x.lock"
    with (
        InstanceLock(path, "the thing"),
        pytest.raises(
            AlreadyRunningError, match=rf"the thing is already running \(PID {os.getpid()}"
        ),
    ):
        InstanceLock(path, "the thing").acquire()
    assert not path.exists()  # released: removed by its holder, and free again
    with InstanceLock(path, "the thing"):
        assert path.read_text() == f"{os.getpid()}\n"
    assert not path.exists()


def test_a_lock_file_removed_as_it_is_taken_is_taken_again_at_its_path(tmp_path, monkeypatch):
    """A process that opened the lock file just before its holder removed it (a clean stop)
    must not hold a lock on the removed file: the next one would lock a new file at the
    path, and both would run."""
    path = tmp_path / "x.lock"
    flock = fcntl.flock
    removed = []

    def holder_lets_go_first(fd: int, how: int) -> None:
        if not removed:  # between our open and our flock, the holder removes its file
            removed.append(path.unlink())
        flock(fd, how)

    monkeypatch.setattr(fcntl, "flock", holder_lets_go_first)
    with InstanceLock(path, "the thing") as lock:
        assert lock._fd is not None
        assert os.fstat(lock._fd).st_ino == os.stat(path).st_ino  # the file at the path
        monkeypatch.undo()
        with pytest.raises(AlreadyRunningError):
            InstanceLock(path, "the thing").acquire()


def test_a_lock_in_a_missing_directory_is_one_clear_error(tmp_path):
    with pytest.raises(Exception, match="cannot open the lock file"):
        InstanceLock(tmp_path / "none" / "x.lock", "it").acquire()


def wait_for(check, what: str, timeout: float = 20.0):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if result := check():
            return result
        time.sleep(0.05)
    raise AssertionError(f"timed out waiting for {what}")


def test_a_second_emulator_on_the_same_link_refuses_and_the_first_keeps_serving(tmp_path):
    link = tmp_path / "shuffler"
    cmd = [sys.executable, "-m", "controller.cli.main", "emulator", "--link", str(link)]
    first = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        wait_for(link.exists, "the first emulator's link")
        target = os.readlink(link)
        second = subprocess.run(cmd, capture_output=True, text=True, timeout=60)
        assert second.returncode == 1
        assert second.stderr.count("\n") == 1
        assert f"an emulator on {link} is already running (PID {first.pid}" in second.stderr
        assert os.readlink(link) == target and first.poll() is None  # untouched
        info = subprocess.run(
            [sys.executable, "-m", "controller.cli.main", "shuffler", "info", "--port", str(link)],
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert info.returncode == 0, info.stderr
    finally:
        first.terminate()
        first.wait(20)
    assert not link.exists()
    assert not Path(f"{link}.lock").exists()  # a clean stop leaves no lock file


def test_a_second_daemon_on_the_same_runtime_directory_refuses(sim_table, tmp_path):
    table = sim_table
    second = subprocess.run(
        [
            sys.executable,
            "-m",
            "controller.table.daemon",
            "--config",
            str(table.config_path),
            "--state-dir",
            str(tmp_path / "other-state"),
            "--runtime-dir",
            str(table.runtime_dir),
        ],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=REPO,
    )
    assert second.returncode == 1
    assert f"croupierd on {table.runtime_dir} is already running (PID {table.proc.pid}" in (
        second.stderr
    )
    assert table.status()["state"] == "open"  # the first one still answers on its socket
    assert len(table.emulator_pids()) == 1
    # and the technician reads it with the global options before the command
    cli = [sys.executable, "-m", "controller.cli.main", "--socket", str(table.control_socket)]
    shown = subprocess.run([*cli, "status"], capture_output=True, text=True, timeout=60)
    assert shown.returncode == 0 and "pool main (progressive wager): EUR 5,000.00" in shown.stdout
    data = json.loads(
        subprocess.run(
            [*cli, "--json", "status"], capture_output=True, text=True, timeout=60
        ).stdout
    )
    assert data["currency"] == "EUR" and data["pools"]["main"] == 500_000


DEMO = [sys.executable, "-m", "controller.rig.demo"]
CROUPIER = [sys.executable, "-m", "controller.cli.main"]


def run_demo(state: Path, rounds: int = 1) -> subprocess.CompletedProcess[str]:
    """A headless demo on the ledger in ``state``, to its end."""
    return subprocess.run(
        [*DEMO, "--rounds", str(rounds), "--state-dir", str(state)],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=120,
        cwd=REPO,
    )


def started(*command: str) -> subprocess.Popen[str]:
    """``command`` started from the checkout, its output kept (a headless rig)."""
    return subprocess.Popen(
        command,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=REPO,
    )


def stopped_by(proc: subprocess.Popen[str], sig: int, timeout: float) -> tuple[str, str]:
    """Send ``sig`` to ``proc``'s PID alone; its output once it exits (a process that does
    not exit within ``timeout`` is killed, and the test fails)."""
    try:
        proc.send_signal(sig)
        return proc.communicate(timeout=timeout)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


@contextlib.contextmanager
def never_left_running(proc: subprocess.Popen[str]) -> Iterator[subprocess.Popen[str]]:
    """``proc``, killed when the block ends with it still running (a test that failed)."""
    try:
        yield proc
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def runtime_dir_of(daemon: int) -> str:
    """The runtime directory of the croupierd with PID ``daemon`` (from its command line)."""
    argv = Path(f"/proc/{daemon}/cmdline").read_bytes().decode().split("\0")
    return argv[argv.index("--runtime-dir") + 1]


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGHUP])
def test_the_demo_stopped_by_a_signal_stops_its_daemon_and_emulator(tmp_path, sig):
    state = tmp_path / "state"
    with never_left_running(started(*DEMO, "--rounds", "1000", "--state-dir", str(state))) as demo:
        pid = wait_for(lambda: processes_with("controller.table.daemon", str(state)), "daemon")[0]
        runtime = runtime_dir_of(pid)
        wait_for(lambda: processes_with("emulator", runtime), "its emulator")
        time.sleep(1.0)  # a round or so in play
        out, err = stopped_by(demo, sig, 60)
    assert demo.returncode == 128 + sig, err
    assert f"stopped ({signal.Signals(sig).name})" in err and "Traceback" not in err
    assert "autoplay stopped" not in out  # the table going away is no news
    assert not processes_with(str(state)), "the demo left its daemon running"
    assert not processes_with(runtime), "the demo left its emulator running"
    assert not os.path.exists(runtime), "the demo left its runtime directory"
    # and the next demo starts: nothing holds the ledger
    again = run_demo(state)
    assert again.returncode == 0, again.stdout + again.stderr


def test_a_failing_daemon_shows_its_own_last_log_lines(tmp_path):
    state = tmp_path / "state"
    state.mkdir()
    (state / "ledger.sqlite3").write_bytes(b"not a database" * 100)  # the daemon cannot open it
    log = state / "croupierd.log"  # shared by every demo on the state directory
    log.write_text("an earlier daemon's line\n" * 20)
    demo = run_demo(state)
    assert demo.returncode == 1
    assert "the daemon's last lines" in demo.stderr
    assert "croupierd: cannot run the table" in demo.stderr  # the log's own words
    assert "an earlier daemon's line" not in demo.stderr  # only this demo's daemon's
    assert "Traceback" not in demo.stderr


def test_a_second_demo_on_a_held_ledger_says_so_in_one_line(tmp_path, make_sim_table):
    """A second ``make demo`` while one runs: the ledger's holder named, not "croupierd
    exited with status 1 while the rig waited for the control socket" over the first demo's
    log lines."""
    state = tmp_path / "state"
    holder = make_sim_table(state_dir=state, log_path=tmp_path / "croupierd.log")
    demo = run_demo(state)
    assert demo.returncode == 1
    assert demo.stderr == (
        f"demo: the ledger {state / 'ledger.sqlite3'} is held by PID {holder.proc.pid} (another"
        " demo, rig or croupierd on this state directory): stop it first, or give this one"
        " another state directory\n"
    )
    assert holder.status()["state"] == "open"  # the first one untouched


def children(parent: int, word: str) -> list[int]:
    """The processes started by ``parent`` whose command line holds ``word`` (other tests on
    the machine run rigs of their own)."""
    found = []
    for pid in processes_with(word):
        with contextlib.suppress(OSError):
            stat = Path(f"/proc/{pid}/stat").read_text()
            if int(stat.rsplit(")", 1)[1].split()[1]) == parent:
                found.append(pid)
    return found


def test_rig_run_stopped_by_sigterm_leaves_no_daemon(tmp_path):
    """``croupier rig run`` (the CI's HIL job, killed by a ``timeout``) stops its daemon and
    emulator and removes its runtime directory; exit status 128 + 15, no traceback, and it
    says what it had done (it printed nothing), as ``rig soak`` does."""
    scenario = str(REPO / "tests" / "hil" / "two-jackpots.toml")
    second = str(REPO / "tests" / "hil" / "md-s1-wrong-count.toml")
    with never_left_running(started(*CROUPIER, "rig", "run", scenario, second)) as rig:
        (pid,) = wait_for(lambda: children(rig.pid, "controller.table.daemon"), "its daemon")
        runtime = runtime_dir_of(pid)
        out, err = stopped_by(rig, signal.SIGTERM, 60)
    assert rig.returncode == 128 + signal.SIGTERM and "Traceback" not in err, err
    assert out.endswith(
        "0 of 0 scenario(s) passed\n"
        f"STOPPED by SIGTERM after 0 of 2 scenario(s): {scenario} was cut short, 1 not played\n"
    ), out
    assert not processes_with(runtime), "the rig left its daemon or emulator running"
    assert not os.path.exists(runtime)

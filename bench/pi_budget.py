"""The table on a Pi 3-class CPU: the daemon, its emulator and the CLI confined to 15% of one
core (a cgroup v1 CPU quota: ``cpu.cfs_quota_us = 1500`` over ``cpu.cfs_period_us = 10000``),
each figure beside its baseline measured in the same run.

- CLI latency (median of several runs): ``croupier --version``, ``croupier status --help``
  (a command line argparse reads: a help or a usage error), and ``status``, ``meters`` and
  ``events tail`` against the running daemon once its table is open (the evaluator's tables
  and the sign come in after READY, on the same CPU), under the quota, beside a bare ``python -c
  pass`` (the table's interpreter) under the same quota and the same commands at full speed
  (target under the quota: under 0.5 s);
- daemon start-up to ``READY=1`` (sd_notify, as systemd sees it): the first start on a fresh
  state directory (builds the poker evaluator's tables: the "before") and a restart (reads
  them from the state directory: the "after"); beside the same at full speed (target under the
  quota: under 5 s); and the restart to the table open (``status`` says ``open``);
- the round pipeline (last byte of the deal -> verdict, plus CONFIRM -> settlement committed
  with lamps and sign), median and p99, and durable rounds per second through the control
  socket (6 seats, emulator at 115200 baud), played by bench/round.py's code after each of
  ``--plays`` restarts (3; the restart and pipeline figures are medians of the plays, the
  lowest and highest p99 beside them: one play of 200 rounds falls into a fast or a slow mode
  of the quota); beside the same at full speed (target p99 under 50 ms). The dealer confirms
  as soon as the verdict is seen, the worst case; ``--think MS`` waits as the players would
  (durable rounds per second are then not reported: the table works during the pauses);
- the longest gap between the daemon's watchdog pings while it plays (``WatchdogSec=10s`` of
  systemd/croupierd.service; must stay under half of it, 5 s).

The sim table's shuffler emulator, which the daemon starts as its child, is moved out of the
quota as soon as it appears: it stands in for a machine with its own CPU.

Each checkout is measured as a table runs it: installed as systemd/install.sh installs it, in a
venv made from the distribution's ``/usr/bin/python3`` (``--table-python``), with its software
manifest (so the daemon's power-up self-check hashes the software before READY), its
``croupier`` and ``croupierd`` scripts run (bench/_table_venv.py; about a minute of pip a
checkout).
``--venv development`` measures the checkout's development venv instead (an editable install,
with coverage's start-up hook), ``--venv both`` the two side by side.

``--before DIR`` measures another checkout too (e.g. ``git worktree add --detach DIR main``),
first at each speed: a change beside its before, in the same run. Needs write access to
``/sys/fs/cgroup/cpu`` (cgroup v1, root); otherwise it says why and exits 0 without figures.

    .venv/bin/python bench/pi_budget.py [--rounds N] [--runs N] [--plays N] [--poll MS]
        [--think MS] [--before DIR] [--venv installed|development|both]
        [--table-python PATH]
"""

from __future__ import annotations

import argparse
import contextlib
import itertools
import socket
import statistics
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _quota import CGROUP_ROOT, PERIOD_US, QUOTA_US, CpuQuota  # bench/_quota.py
from _table_venv import Launcher, add_options, launchers  # bench/_table_venv.py
from round import (  # bench/round.py: one round pipeline for both benchmarks
    POLL,
    THINK,
    add_play_options,
    percentile,
    pipeline,
    play,
    start_daemon,
    stop_daemon,
    wait_state,
    write_config,
)

from controller.table.control.client import ControlClient

ROOT = Path(__file__).resolve().parents[1]
WATCHDOG_SEC = 10.0  # systemd/croupierd.service
# The floor of any command that parses its arguments and talks JSON over a socket
FLOOR = "import argparse, json, socket"
# commands timed against the running daemon (meters and events tail ask it for the ledger)
LIVE_COMMANDS = ("status", "meters", "events tail")
# a command line only argparse reads (controller/cli/quick.py reads the plain ones without it)
HELP = ("status", "--help")
# Restarts of the daemon, each followed by the rounds: at 15% one play of 200 rounds falls
# into a fast or a slow mode of the quota (docs/daemon.md, "Fast on a slow CPU"), and its p99
# is its second-slowest round, so one play does not settle a p99
PLAYS = 3


class Notifications:
    """A fake ``$NOTIFY_SOCKET``: when READY=1 came, and every WATCHDOG=1."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        self.sock.bind(str(path))
        self.sock.settimeout(0.2)
        self.ready: float | None = None
        self.pings: list[float] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._listen, daemon=True)
        self._thread.start()

    def _listen(self) -> None:
        while not self._stop.is_set():
            try:
                data = self.sock.recv(4096)
            except TimeoutError:
                continue
            now = time.perf_counter()
            fields = data.decode(errors="replace").split("\n")
            if "READY=1" in fields and self.ready is None:
                self.ready = now
            if "WATCHDOG=1" in fields:
                self.pings.append(now)

    def close(self) -> None:
        self._stop.set()
        self._thread.join()
        self.sock.close()

    def longest_gap(self, since: float) -> float:
        pings = [t for t in self.pings if t >= since]
        return max((b - a for a, b in itertools.pairwise(pings)), default=float("nan"))


class ShufflerOffQuota:
    """Moves the sim table's shuffler emulator, the daemon's child, out of the quota's group as
    soon as it appears: on a real table the shuffler is a machine with a CPU of its own, not a
    process on the Pi. Any other child (a host check's ``timedatectl``) is the Pi's work and
    stays. Polls every millisecond until the emulator is out (so at most a millisecond or so
    of its start counts against the quota), then stops: nothing polls while the table plays."""

    def __init__(self, pid: int) -> None:
        self.pid = pid
        self.moved = False  # the emulator is out of the quota's group
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._watch, daemon=True)
        self._thread.start()

    def _children(self) -> set[int]:
        found: set[int] = set()
        with contextlib.suppress(OSError):
            for task in Path(f"/proc/{self.pid}/task").iterdir():
                found.update(int(c) for c in (task / "children").read_text().split())
        return found

    def _watch(self) -> None:
        others: set[int] = set()  # children that are not the emulator
        try:
            daemon = Path(f"/proc/{self.pid}/cmdline").read_bytes()
        except OSError:  # gone already: nothing to move
            return
        while not self._stop.wait(0.001):
            for child in self._children() - others:
                try:
                    command = Path(f"/proc/{child}/cmdline").read_bytes()
                except OSError:  # gone already
                    others.add(child)
                    continue
                if b"emulator" in command:
                    with contextlib.suppress(OSError):
                        (CGROUP_ROOT / "tasks").write_text(str(child))
                        self.moved = True
                    return
                # the daemon's own command line: forked, not yet its own program; empty: in
                # the middle of exec. Looked at again; any other program is not the emulator
                if command not in (daemon, b""):
                    others.add(child)

    def close(self) -> None:
        self._stop.set()
        self._thread.join()


@contextlib.contextmanager
def daemon(
    launcher: Launcher, tmp: Path, state: Path, preexec: Callable[[], None] | None
) -> Iterator[tuple[Notifications, float]]:
    """croupierd of ``launcher`` on the sim table (bench/round.py); yields its notifications
    and its start time."""
    cfg = write_config(tmp)
    notify_path = tmp / f"notify-{time.monotonic_ns()}"
    notes = Notifications(notify_path)
    env = {"NOTIFY_SOCKET": str(notify_path), "WATCHDOG_USEC": str(int(WATCHDOG_SEC * 1e6))}
    started = time.perf_counter()
    proc = start_daemon(launcher, cfg, state, tmp / "run", env=env, preexec=preexec)
    shuffler = ShufflerOffQuota(proc.pid) if preexec is not None else None
    try:
        deadline = time.monotonic() + 120
        while notes.ready is None:
            if proc.poll() is not None or time.monotonic() > deadline:
                raise SystemExit(f"croupierd did not get ready (status {proc.poll()})")
            time.sleep(0.005)
        if shuffler is not None and not shuffler.moved:
            print("pi_budget: the emulator is still in the quota's group", file=sys.stderr)
        yield notes, started
    finally:
        stop_daemon(proc)
        notes.close()
        if shuffler is not None:
            shuffler.close()


def measure(
    rounds: int,
    runs: int,
    preexec: Callable[[], None] | None,
    launcher: Launcher,
    poll: float = POLL,
    plays: int = PLAYS,
    think: float = THINK,
) -> dict[str, float]:
    """Every figure of the checkout that ``launcher`` starts, with the daemon and the CLI
    started through ``preexec``. The daemon is restarted ``plays`` times, each restart timed
    and followed by ``rounds`` rounds: the start and pipeline figures are medians over those
    plays, with the lowest and highest p99 beside them. Durable rounds per second only with
    the dealer confirming at once (``think`` 0)."""
    out: dict[str, float] = {}
    python, cli = launcher.python, launcher.cli
    for key, argv in (
        ("python -c pass (bare)", [*python, "-c", "pass"]),
        ("python: argparse, json, socket", [*python, "-c", FLOOR]),
        ("croupier --version", [*cli, "--version"]),
        ("croupier status --help", [*cli, *HELP]),
    ):
        out[key] = launcher.median_wall(argv, runs, preexec)
    each: dict[str, list[float]] = {}  # figure -> its value in each play
    with tempfile.TemporaryDirectory(prefix="croupier-pi-budget-") as name:
        tmp = Path(name)
        state = tmp / "state"
        with daemon(launcher, tmp, state, preexec) as (notes, started):
            out["ready, first start (tables built)"] = notes.ready - started
        for n in range(plays):
            with daemon(launcher, tmp, state, preexec) as (notes, started):
                assert notes.ready is not None
                ready = notes.ready - started
                sock = tmp / "run" / "control.sock"
                with ControlClient(sock, timeout=60) as c:  # the evaluator and the sign come
                    wait_state(c, "open", poll=poll)  # in after READY: the CLI waits for open
                opened = time.perf_counter() - started
                if n == 0:
                    for command in LIVE_COMMANDS:
                        argv = [*cli, "--socket", str(sock), *command.split()]
                        out[f"croupier {command}"] = launcher.median_wall(argv, runs, preexec)
                with ControlClient(sock, timeout=60) as c:
                    elapsed, metrics = play(c, rounds, poll, think)
                if n == 0:
                    time.sleep(2 * WATCHDOG_SEC / 4)  # at least two pings after a short play
                    out["longest watchdog gap"] = notes.longest_gap(notes.ready)
            times = pipeline(metrics)
            for key, value in (
                ("ready, restart (tables cached)", ready),
                ("table open, restart", opened),
                ("pipeline median", statistics.median(times)),
                ("pipeline p99", percentile(times, 0.99)),
                *((("durable rounds/s", rounds / elapsed),) if think == 0 else ()),
            ):
                each.setdefault(key, []).append(value)
    for key, values in each.items():
        out[key] = statistics.median(values)
    out["pipeline p99, lowest play"] = min(each["pipeline p99"])
    out["pipeline p99, highest play"] = max(each["pipeline p99"])
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=200, help="rounds played (200)")
    parser.add_argument("--runs", type=int, default=5, help="runs of each CLI command (5)")
    parser.add_argument(
        "--plays",
        type=int,
        default=PLAYS,
        help=f"restarts of the daemon, each followed by the rounds ({PLAYS})",
    )
    parser.add_argument(
        "--before", type=Path, metavar="DIR", help="also measure this checkout, first"
    )
    add_play_options(parser)
    add_options(parser)
    args = parser.parse_args()
    load = Path("/proc/loadavg").read_text().split(" ", 1)[0]
    quota = CpuQuota()
    why = quota.create()
    if why is not None:
        print(f"pi_budget: skipped: {why}")
        return 0
    trees = {"this tree": ROOT}
    if args.before is not None:
        trees = {"before": args.before.resolve(), **trees}
    columns: dict[str, dict[str, float]] = {}
    poll, think = args.poll / 1000, args.think / 1000
    try:
        with tempfile.TemporaryDirectory(prefix="croupier-pi-budget-checkouts-") as scratch:
            made = launchers(args, trees, Path(scratch))
            # the trees in turn at each speed, so that a change of load hits both alike
            for speed, preexec in (("15%", quota.enter), ("full", None)):
                for name, launcher in made.items():
                    columns[f"{speed} {name}"] = measure(
                        args.rounds, args.runs, preexec, launcher, poll, args.plays, think
                    )
        throttled = quota.stats()
    finally:
        quota.remove()
    targets = {
        "croupier --version": "< 0.5 s",
        "croupier status --help": "< 0.5 s",
        "ready, restart (tables cached)": "< 5 s",
        "pipeline p99": "< 50 ms",
        "longest watchdog gap": f"< {WATCHDOG_SEC / 2:g} s",
        **{f"croupier {c}": "< 0.5 s" for c in LIVE_COMMANDS},
    }
    print(
        f"Pi 3-class budget: 15% of one core (cgroup v1 cfs {QUOTA_US}/{PERIOD_US} us);"
        f" {args.plays} restarts each followed by {args.rounds} rounds of 6 seats (status"
        f" polled every {args.poll:g} ms, CONFIRM {args.think:g} ms after the verdict; start"
        f" and pipeline figures: medians of the plays),"
        f" CLI medians of {args.runs} runs" + (f"; before = {args.before}" if args.before else "")
    )
    print(f"  cgroup: {throttled}; load average before: {load}")
    for name, launcher in made.items():
        print(f"  {name}: {launcher.label}")
    width = max(20, *(len(name) + 2 for name in columns))
    print(f"  {'figure':34}" + "".join(f"{name:>{width}}" for name in columns) + "   target at 15%")
    for key in columns[next(name for name in columns if name.startswith("full"))]:
        unit, scale = ("/s", 1.0) if key.endswith("/s") else ("ms", 1000.0)
        target = targets.get(key, "(baseline)" if key.startswith("python") else "")
        cells = "".join(f"{c[key] * scale:{width - 3}.1f} {unit:2}" for c in columns.values())
        print(f"  {key:34}{cells}   {target}")
    for name, c in columns.items():
        base = c["python -c pass (bare)"]
        ratios = ", ".join(
            f"{k} {c[k] / base:.1f}x" for k in ("croupier --version", "croupier status")
        )
        print(f"  {name}: {ratios} a bare python -c pass")
    return 0


if __name__ == "__main__":
    sys.exit(main())

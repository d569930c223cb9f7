"""The table on a Pi 3-class CPU: the daemon, its emulator and the CLI confined to 15% of one
core (a cgroup v1 CPU quota: ``cpu.cfs_quota_us = 1500`` over ``cpu.cfs_period_us = 10000``),
each figure beside its baseline measured in the same run.

- CLI latency (median of several runs): ``croupier --version`` and ``croupier status`` (against
  the running daemon) under the quota, beside a bare ``python -c pass`` (the venv's
  interpreter) under the same quota and the same commands at full speed (target under the
  quota: under 0.5 s);
- daemon start-up to ``READY=1`` (sd_notify, as systemd sees it): the first start on a fresh
  state directory (builds the poker evaluator's tables: the "before") and a restart (reads
  them from the state directory: the "after"); beside the same at full speed (target under the
  quota: under 5 s);
- the round pipeline (last byte of the deal -> verdict, plus CONFIRM -> settlement committed
  with lamps and sign), p99, and durable rounds per second through the control socket (6
  seats, emulator at 115200 baud); beside the same at full speed (target p99 under 50 ms);
- the longest gap between the daemon's watchdog pings while it plays (``WatchdogSec=10s`` of
  systemd/croupierd.service; must stay under half of it, 5 s).

Needs write access to ``/sys/fs/cgroup/cpu`` (cgroup v1, root); otherwise it says why and
exits 0 without figures.

    .venv/bin/python bench/pi_budget.py [--rounds N] [--runs N]
"""

from __future__ import annotations

import argparse
import contextlib
import itertools
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import tomllib
from collections.abc import Callable, Iterator
from pathlib import Path

import tomli_w

from controller.table.control.client import ControlClient

ROOT = Path(__file__).resolve().parents[1]
CGROUP_ROOT = Path("/sys/fs/cgroup/cpu")
PERIOD_US, QUOTA_US = 10_000, 1_500  # 15% of one core
WATCHDOG_SEC = 10.0  # systemd/croupierd.service
CROUPIER = [sys.executable, "-m", "controller.cli.main"]


class CpuQuota:
    """A cgroup v1 CPU group at 15% of a core; ``enter`` puts the calling (child) process in it
    (children inherit it)."""

    def __init__(self) -> None:
        self.path = CGROUP_ROOT / f"croupier-pi-budget-{os.getpid()}"

    def create(self) -> str | None:
        """None when the group works, else why not."""
        if not (CGROUP_ROOT / "cpu.cfs_quota_us").exists():
            return f"no cgroup v1 CPU controller at {CGROUP_ROOT}"
        try:
            self.path.mkdir()
            (self.path / "cpu.cfs_period_us").write_text(str(PERIOD_US))
            (self.path / "cpu.cfs_quota_us").write_text(str(QUOTA_US))
        except OSError as exc:
            return f"cannot make a CPU cgroup under {CGROUP_ROOT}: {exc.strerror or exc}"
        return None

    def enter(self) -> None:  # a preexec_fn: runs in the child before exec
        (self.path / "tasks").write_text(str(os.getpid()))

    def stats(self) -> str:
        """What the kernel says it did (proof that the quota bit)."""
        with contextlib.suppress(OSError):
            fields = dict(
                line.split() for line in (self.path / "cpu.stat").read_text().splitlines()
            )
            return (f"throttled in {fields.get('nr_throttled')} of {fields.get('nr_periods')}"
                    f" periods")  # fmt: skip
        return "no cpu.stat"

    def remove(self) -> None:
        with contextlib.suppress(OSError):
            self.path.rmdir()


def median_time(command: list[str], runs: int, preexec: Callable[[], None] | None) -> float:
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        subprocess.run(command, capture_output=True, preexec_fn=preexec, cwd=ROOT, check=False)
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


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


@contextlib.contextmanager
def daemon(
    tmp: Path, state: Path, preexec: Callable[[], None] | None
) -> Iterator[tuple[subprocess.Popen[bytes], Notifications, float]]:
    """croupierd on the sim table; yields it, its notifications and its start time."""
    data = tomllib.loads((ROOT / "config" / "sim.toml").read_text())
    data["shuffler"]["emulator"] = {"decks": 1, "baud": 115200}
    data["timing"] = {"settled_display": 600.0}
    cfg = tmp / "table.toml"
    cfg.write_text(tomli_w.dumps(data))
    notify_path = tmp / f"notify-{time.monotonic_ns()}"
    notes = Notifications(notify_path)
    env = {**os.environ, "NOTIFY_SOCKET": str(notify_path),
           "WATCHDOG_USEC": str(int(WATCHDOG_SEC * 1e6))}  # fmt: skip
    started = time.perf_counter()
    proc = subprocess.Popen(
        [sys.executable, "-m", "controller.table.daemon", "--config", str(cfg),
         "--state-dir", str(state), "--runtime-dir", str(tmp / "run")],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=ROOT, env=env,
        preexec_fn=preexec,
    )  # fmt: skip
    try:
        deadline = time.monotonic() + 120
        while notes.ready is None:
            if proc.poll() is not None or time.monotonic() > deadline:
                raise SystemExit(f"croupierd did not get ready (status {proc.poll()})")
            time.sleep(0.005)
        yield proc, notes, started
    finally:
        proc.terminate()
        try:
            proc.wait(60)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        notes.close()


def wait_state(client: ControlClient, *states: str, timeout: float = 120.0) -> None:
    deadline = time.monotonic() + timeout
    while client.call("status")["state"] not in states:
        if time.monotonic() > deadline:
            raise SystemExit(f"timed out waiting for {states}")
        time.sleep(0.002)


def measure(rounds: int, runs: int, preexec: Callable[[], None] | None) -> dict[str, float]:
    """Every figure, with the daemon and the CLI started through ``preexec``."""
    out: dict[str, float] = {}
    out["python -c pass (bare)"] = median_time([sys.executable, "-c", "pass"], runs, preexec)
    out["croupier --version"] = median_time([*CROUPIER, "--version"], runs, preexec)
    with tempfile.TemporaryDirectory(prefix="croupier-pi-budget-") as name:
        tmp = Path(name)
        state = tmp / "state"
        with daemon(tmp, state, preexec) as (_, notes, started):
            out["ready, first start (tables built)"] = notes.ready - started
        with daemon(tmp, state, preexec) as (_, notes, started):
            out["ready, restart (tables cached)"] = notes.ready - started
            assert notes.ready is not None
            sock = tmp / "run" / "control.sock"
            status = [*CROUPIER, "--socket", str(sock), "status"]
            out["croupier status"] = median_time(status, runs, preexec)
            with ControlClient(sock, timeout=60) as c:
                wait_state(c, "open")
                playing = time.perf_counter()
                for _ in range(rounds):
                    c.call("round.seats", seats=[1, 2, 3, 4, 5, 6])
                    c.call("round.lock")
                    wait_state(c, "verified")
                    c.call("round.confirm")
                    wait_state(c, "settled", "jackpot")
                    c.call("round.confirm")
                    wait_state(c, "open")
                elapsed = time.perf_counter() - playing
                metrics = c.call("metrics")
            time.sleep(2 * WATCHDOG_SEC / 4)  # at least two pings even after a short play
            out["longest watchdog gap"] = notes.longest_gap(notes.ready)
    pipeline = [v + s for v, s in zip(metrics["verdict"], metrics["settlement"], strict=False)]
    out["pipeline p99"] = percentile(pipeline, 0.99)
    out["durable rounds/s"] = rounds / elapsed
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=60, help="rounds played (60)")
    parser.add_argument("--runs", type=int, default=5, help="runs of each CLI command (5)")
    args = parser.parse_args()
    load = Path("/proc/loadavg").read_text().split(" ", 1)[0]
    quota = CpuQuota()
    why = quota.create()
    if why is not None:
        print(f"pi_budget: skipped: {why}")
        return 0
    try:
        full = measure(args.rounds, args.runs, None)
        slow = measure(args.rounds, args.runs, quota.enter)
        throttled = quota.stats()
    finally:
        quota.remove()
    targets = {"croupier --version": "< 0.5 s", "croupier status": "< 0.5 s",
               "ready, restart (tables cached)": "< 5 s", "pipeline p99": "< 50 ms",
               "longest watchdog gap": f"< {WATCHDOG_SEC / 2:g} s"}  # fmt: skip
    print(f"Pi 3-class budget: 15% of one core (cgroup v1 cfs {QUOTA_US}/{PERIOD_US} us);"
          f" {args.rounds} rounds of 6 seats, CLI medians of {args.runs} runs")  # fmt: skip
    print(f"  cgroup: {throttled}; load average before: {load}")
    print(f"  {'figure':34} {'at 15% of a core':>17} {'full speed':>12}   target")
    for key in full:
        unit, scale = ("/s", 1.0) if key.endswith("/s") else ("ms", 1000.0)
        target = targets.get(key, "(baseline)" if key.startswith("python") else "")
        print(f"  {key:34} {slow[key] * scale:14.1f} {unit:2} {full[key] * scale:9.1f} {unit:2}"
              f"   {target}")  # fmt: skip
    base = slow["python -c pass (bare)"]
    for key in ("croupier --version", "croupier status"):
        print(f"  {key} under the quota = {slow[key] / base:.1f} x a bare python -c pass")
    return 0


if __name__ == "__main__":
    sys.exit(main())

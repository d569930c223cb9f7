"""Round pipeline benchmark: the real daemon against the emulator on a pty, 6 seats.

Prints, beside the baselines measured in the same run:

- the pipeline time of a round: from the last byte of the deal's last packet to the verdict
  handled, plus from the dealer's CONFIRM to the settlement committed in the ledger with the
  lamps and the sign frame updated (the daemon's own loop-clock timings, the ``metrics``
  control command), median and p99; beside the wire time of that last packet at the line's
  baud rate, and a bare SQLite WAL + synchronous=FULL one-row commit on the same disk;
- durable rounds per second (LOCK, six packets at 115200 baud, CONFIRM, settlement, next
  round), all through the control socket;
- idle CPU of the daemon with the sign still (target under 1% of a core) and its RSS (target
  under 60 MB).

    .venv/bin/python bench/round.py [--rounds N] [--idle SECONDS] [--baud B]
"""

from __future__ import annotations

import argparse
import os
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
import tomllib
from pathlib import Path

import tomli_w

from controller.table.control.client import ControlClient
from firmware_bridge.framing import encode_frame
from firmware_bridge.messages import DealReply, DealtCard

ROOT = Path(__file__).resolve().parents[1]
TICK = os.sysconf("SC_CLK_TCK")


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def bare_commit(directory: Path, n: int = 500) -> float:
    db = sqlite3.connect(directory / "bare.sqlite3", isolation_level=None)
    db.execute("PRAGMA journal_mode=WAL")
    db.execute("PRAGMA synchronous=FULL")
    db.execute("CREATE TABLE t (k INTEGER PRIMARY KEY, v TEXT)")
    times = []
    for i in range(n):
        t0 = time.perf_counter()
        db.execute("BEGIN")
        db.execute("INSERT INTO t VALUES (?, ?)", (i, "x" * 100))
        db.execute("COMMIT")
        times.append(time.perf_counter() - t0)
    db.close()
    return statistics.median(times)


def last_packet_wire_time(baud: int) -> float:
    """The dealer's 2-card DEAL reply frame on the wire: 10 bits a byte at 8N1."""
    reply = DealReply(0, 15, 2, (DealtCard(51), DealtCard(50)))
    frame = encode_frame(1, reply.TYPE, reply.encode())
    return len(frame) * 10 / baud


def config(baud: int) -> dict:
    data = tomllib.loads((ROOT / "config" / "sim.toml").read_text())
    data["shuffler"]["emulator"] = {"decks": 1, "baud": baud}
    data["timing"] = {"settled_display": 600.0}
    return data


def wait_state(client: ControlClient, *states: str, timeout: float = 30.0) -> dict:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        status = client.call("status")
        if status["state"] in states:
            return status
        time.sleep(0.002)
    raise SystemExit(f"timed out waiting for {states}")


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICK


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=200)
    parser.add_argument("--idle", type=float, default=10.0, help="seconds of idle CPU sampling")
    parser.add_argument("--baud", type=int, default=115200)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="croupier-bench-") as tmp:
        tmpdir = Path(tmp)
        bare = bare_commit(tmpdir)
        cfg = tmpdir / "table.toml"
        cfg.write_text(tomli_w.dumps(config(args.baud)))
        run = tmpdir / "run"
        daemon = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "controller.table.daemon",
                "--config",
                str(cfg),
                "--state-dir",
                str(tmpdir / "state"),
                "--runtime-dir",
                str(run),
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            cwd=ROOT,
        )
        try:
            deadline = time.monotonic() + 30
            while not (run / "control.sock").exists() and time.monotonic() < deadline:
                time.sleep(0.05)
            with ControlClient(run / "control.sock") as c:
                wait_state(c, "open")
                started = time.perf_counter()
                for _ in range(args.rounds):
                    c.call("round.seats", seats=[1, 2, 3, 4, 5, 6])
                    c.call("round.lock")
                    wait_state(c, "verified")
                    c.call("round.confirm")
                    wait_state(c, "settled", "jackpot")
                    c.call("round.confirm")
                    wait_state(c, "open")
                elapsed = time.perf_counter() - started
                metrics = c.call("metrics")
                cpu0, t0 = cpu_seconds(daemon.pid), time.monotonic()
                time.sleep(args.idle)
                idle = (cpu_seconds(daemon.pid) - cpu0) / (time.monotonic() - t0)
                rss = rss_mb(daemon.pid)
        finally:
            daemon.terminate()
            daemon.wait(15)
    pipeline = [v + s for v, s in zip(metrics["verdict"], metrics["settlement"], strict=False)]
    ms = 1000.0
    wire = last_packet_wire_time(args.baud)
    print(f"round pipeline, {len(pipeline)} rounds, 6 seats, emulator at {args.baud} baud")
    print(f"  {'':34} {'median':>9} {'p99':>9}")
    print(
        f"  {'last byte -> verdict':34} {statistics.median(metrics['verdict']) * ms:8.2f}ms"
        f" {percentile(metrics['verdict'], 0.99) * ms:8.2f}ms"
    )
    print(
        f"  {'CONFIRM -> settled, committed, sign':34}"
        f" {statistics.median(metrics['settlement']) * ms:8.2f}ms"
        f" {percentile(metrics['settlement'], 0.99) * ms:8.2f}ms"
    )
    print(
        f"  {'pipeline (sum)':34} {statistics.median(pipeline) * ms:8.2f}ms"
        f" {percentile(pipeline, 0.99) * ms:8.2f}ms"
    )
    print(f"  baseline: wire time of the last packet  {wire * ms:8.2f}ms")
    print(f"  baseline: bare SQLite WAL+FULL commit   {bare * ms:8.2f}ms (median)")
    print(
        f"durable rounds per second: {args.rounds / elapsed:.1f}"
        f" ({args.rounds} rounds in {elapsed:.1f} s, through the control socket)"
    )
    print(f"idle CPU over {args.idle:g} s: {idle * 100:.2f}% of a core (target < 1%)")
    print(f"RSS: {rss:.1f} MB (target < 60 MB)")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Control socket under attack: `status` latency during a wrong-credential flood, and the
connections the daemon holds before it refuses one.

A real croupierd on the simulated table (config/sim.toml). Prints, measured in the same run:

- ``status`` round-trip latency (median, p99, max) on an idle daemon: the baseline;
- the same while FLOODERS clients send ``jackpot.ack`` with a wrong credential as fast as the
  daemon answers (each on its own connection, reconnecting when refused): the target is a
  p99 under 50 ms and no pause anywhere near the 10 s watchdog (WatchdogSec);
- how many guesses the flood made, how many access-refused journal entries they left;
- how many connections the daemon held before it refused one. This benchmark runs as the
  daemon's own user, so it gets the reserved technician slots as well:
  [control] max_connections + RESERVED_SLOTS.

    .venv/bin/python bench/control_flood.py [--seconds S] [--flooders N] [--samples N]
"""

from __future__ import annotations

import argparse
import contextlib
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import tomllib
from pathlib import Path

import tomli_w

from controller.books.ledger.reader import LedgerReader
from controller.table.control.client import ControlClient
from controller.table.control.server import RESERVED_SLOTS
from controller.table.control.wire import ControlError, decode_reply

ROOT = Path(__file__).resolve().parents[1]


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def status_latencies(path: Path, samples: int, pause: float) -> list[float]:
    times = []
    with ControlClient(path) as client:
        for _ in range(samples):
            t0 = time.perf_counter()
            client.call("status")
            times.append(time.perf_counter() - t0)
            time.sleep(pause)
    return times


def flood(path: Path, stop: threading.Event, sent: list[int]) -> None:
    while not stop.is_set():
        with contextlib.suppress(ControlError, OSError), ControlClient(path) as client:
            while not stop.is_set():
                with contextlib.suppress(ControlError):
                    client.call("jackpot.ack", "wrong-guess", technician="x")
                sent[0] += 1


def connections_held(path: Path, limit: int = 1000) -> int:
    held = []
    try:
        for _ in range(limit):
            s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            s.settimeout(5)
            s.connect(str(path))
            s.sendall(b'{"id":1,"cmd":"status"}\n')
            buf = b""
            while not buf.endswith(b"\n"):
                chunk = s.recv(65536)
                if not chunk:
                    break
                buf += chunk
            try:
                decode_reply(buf)
            except ControlError:
                s.close()
                break
            held.append(s)
    finally:
        for s in held:
            s.close()
    return len(held)


def describe(name: str, times: list[float]) -> str:
    ms = [t * 1000 for t in times]
    return (
        f"{name:<34} median {statistics.median(ms):6.2f} ms  p99 {percentile(ms, 0.99):6.2f} ms"
        f"  max {max(ms):7.2f} ms  ({len(ms)} calls)"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=15.0, help="length of the flood")
    parser.add_argument("--flooders", type=int, default=8)
    parser.add_argument("--samples", type=int, default=400)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="croupier-bench-") as tmp:
        tmpdir = Path(tmp)
        data = tomllib.loads((ROOT / "config" / "sim.toml").read_text())
        data["shuffler"]["emulator"] = {"decks": 1}
        cfg = tmpdir / "table.toml"
        cfg.write_text(tomli_w.dumps(data))
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
        path = run / "control.sock"
        try:
            deadline = time.monotonic() + 30
            while not path.exists() and time.monotonic() < deadline:
                time.sleep(0.05)
            time.sleep(1.0)  # the table settles (link up, sign drawn)
            pause = args.seconds / args.samples
            idle = status_latencies(path, args.samples, pause)
            stop = threading.Event()
            sent = [0]
            threads = [
                threading.Thread(target=flood, args=(path, stop, sent), daemon=True)
                for _ in range(args.flooders)
            ]
            for th in threads:
                th.start()
            time.sleep(0.5)
            flooded = status_latencies(path, args.samples, pause)
            stop.set()
            for th in threads:
                th.join(10)
            held = connections_held(path)
            alive = daemon.poll() is None
        finally:
            daemon.terminate()
            daemon.wait(20)
        with LedgerReader.open(tmpdir / "state" / "ledger.sqlite3") as reader:
            entries = list(reader.journal.entries({"access-refused"}))
        counted = sum(e.data.get("count", 0) for e in entries)
    print(describe("status, idle (baseline)", idle))
    print(describe(f"status, {args.flooders} clients flooding", flooded))
    print(
        f"flood: {sent[0]} wrong credentials in {args.seconds:g} s; journal: {len(entries)}"
        f" access-refused entries counting {counted}; daemon alive: {alive}"
    )
    print(
        f"connections held before refusal: {held} (32 + {RESERVED_SLOTS} reserved for root"
        " and the daemon's user; an unprivileged peer gets 32)"
    )
    print(
        "watchdog: WatchdogSec=10s; the longest status answer above is the longest the loop"
        " stalled for a client"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())

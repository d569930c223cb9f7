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

``--before DIR`` runs the same measurements first with the daemon of another checkout (e.g. a
``git worktree`` of main), so that a change is judged against its before in the same run.
bench/pi_budget.py plays its rounds with :func:`play` and :func:`start_daemon` of this file.

    .venv/bin/python bench/round.py [--rounds N] [--idle S] [--baud B] [--poll MS] [--think MS]
        [--before DIR]
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
from collections.abc import Callable
from pathlib import Path
from typing import Any

import tomli_w
from _table_venv import Launcher, development  # bench/_table_venv.py

from controller.table.control.client import ControlClient
from firmware_bridge.framing import encode_frame
from firmware_bridge.messages import DealReply, DealtCard

ROOT = Path(__file__).resolve().parents[1]
TICK = os.sysconf("SC_CLK_TCK")
SEATS = [1, 2, 3, 4, 5, 6]
# Seconds between two `status` requests while the bench waits for a state. Each request costs
# the daemon CPU (~0.1-0.3 ms here): every 2 ms, the bench's own polling took a large part of
# a 15%-of-a-core budget from the rounds it measures (bench/pi_budget.py, docs/daemon.md).
POLL = 0.02
# Seconds between the verdict and the dealer's CONFIRM (--think). At a table the players act on
# their cards first (UTH-3/4 bets, a blackjack hand played out), which takes seconds; the bench
# confirms at once by default, the worst case for the settlement: the VERIFIED state change's
# journal commit, queued when the verdict is handled, is then still on the ledger's thread, and
# the settlement's commit waits behind it (docs/daemon.md, "Fast on a slow CPU")
THINK = 0.0


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


def write_config(directory: Path, baud: int = 115200) -> Path:
    """The sim table with the emulator at ``baud`` and the settled display held (the bench
    confirms it): ``directory/table.toml``."""
    data = tomllib.loads((ROOT / "config" / "sim.toml").read_text())
    data["shuffler"]["emulator"] = {"decks": 1, "baud": baud}
    data["timing"] = {"settled_display": 600.0}
    path = directory / "table.toml"
    path.write_text(tomli_w.dumps(data))
    return path


def start_daemon(
    launcher: Launcher,
    cfg: Path,
    state: Path,
    run: Path,
    *,
    env: dict[str, str] | None = None,
    preexec: Callable[[], None] | None = None,
) -> subprocess.Popen[bytes]:
    """croupierd of a checkout, started as ``launcher`` says (bench/_table_venv.py), with
    ``env``'s variables added to its environment."""
    command = [*launcher.daemon, "--config", str(cfg), "--state-dir", str(state)]
    return subprocess.Popen(
        [*command, "--runtime-dir", str(run)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        cwd=launcher.cwd,
        env=launcher.environment(env),
        preexec_fn=preexec,
    )


def stop_daemon(daemon: subprocess.Popen[bytes]) -> None:
    daemon.terminate()
    try:
        daemon.wait(60)
    except subprocess.TimeoutExpired:
        daemon.kill()
        daemon.wait()


def wait_state(
    client: ControlClient, *states: str, timeout: float = 120.0, poll: float = POLL
) -> dict[str, Any]:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        status = client.call("status")
        if status["state"] in states:
            return status
        time.sleep(poll)
    raise SystemExit(f"timed out waiting for {states}")


def play(
    client: ControlClient, rounds: int, poll: float = POLL, think: float = THINK
) -> tuple[float, dict[str, list[float]]]:
    """``rounds`` rounds of six seats from an open table, polling the state every ``poll``
    seconds, the dealer confirming ``think`` seconds after the verdict (0: at once, the
    worst case, see THINK): the seconds they took and the daemon's pipeline metrics
    (``verdict``, ``settlement``). Rounds per second mean something only with ``think`` 0:
    the table does work of the rounds during the pauses too."""
    wait_state(client, "open", poll=poll)
    started = time.perf_counter()
    for _ in range(rounds):
        client.call("round.seats", seats=SEATS)
        client.call("round.lock")
        wait_state(client, "verified", poll=poll)
        time.sleep(think)
        client.call("round.confirm")
        wait_state(client, "settled", "jackpot", poll=poll)
        client.call("round.confirm")
        wait_state(client, "open", poll=poll)
    elapsed = time.perf_counter() - started
    return elapsed, client.call("metrics")


def add_play_options(parser: argparse.ArgumentParser) -> None:
    """``--poll`` and ``--think``, in milliseconds (the arguments of :func:`play` in seconds)."""
    for flag, seconds, what in (
        ("--poll", POLL, "ms between two status polls"),
        ("--think", THINK, "ms from the verdict to the dealer's CONFIRM (0: at once, the worst)"),
    ):
        parser.add_argument(
            flag, type=float, default=seconds * 1000, metavar="MS", help=f"{what}; %(default)g"
        )


def pipeline(metrics: dict[str, list[float]]) -> list[float]:
    """Each round's last byte -> verdict plus CONFIRM -> settled."""
    return [v + s for v, s in zip(metrics["verdict"], metrics["settlement"], strict=False)]


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICK


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def measure(tree: Path, args: argparse.Namespace) -> dict[str, float]:
    """Every figure of the daemon of ``tree`` in its development venv (seconds, rounds/s, a
    fraction of a core, MB)."""
    with tempfile.TemporaryDirectory(prefix="croupier-bench-") as tmp:
        tmpdir = Path(tmp)
        run = tmpdir / "run"
        cfg = write_config(tmpdir, args.baud)
        daemon = start_daemon(development(tree, tmpdir), cfg, tmpdir / "state", run)
        try:
            deadline = time.monotonic() + 120
            while not (run / "control.sock").exists() and time.monotonic() < deadline:
                time.sleep(0.05)
            with ControlClient(run / "control.sock") as c:
                elapsed, metrics = play(c, args.rounds, args.poll / 1000, args.think / 1000)
                cpu0, t0 = cpu_seconds(daemon.pid), time.monotonic()
                time.sleep(args.idle)
                idle = (cpu_seconds(daemon.pid) - cpu0) / (time.monotonic() - t0)
                rss = rss_mb(daemon.pid)
        finally:
            stop_daemon(daemon)
    out: dict[str, float] = {}
    for name, values in (
        ("last byte -> verdict", metrics["verdict"]),
        ("CONFIRM -> settled, committed, sign", metrics["settlement"]),
        ("pipeline (sum)", pipeline(metrics)),
    ):
        out[f"{name}, median"] = statistics.median(values)
        out[f"{name}, p99"] = percentile(values, 0.99)
    if args.think == 0:
        out["durable rounds/s"] = args.rounds / elapsed
    out["idle CPU, % of a core (< 1%)"] = idle
    out["RSS, MB (< 60 MB)"] = rss
    return out


def shown(key: str, value: float) -> str:
    if key.endswith("rounds/s"):
        return f"{value:8.1f}/s"
    if key.startswith("idle CPU"):
        return f"{value * 100:8.2f}% "
    if key.startswith("RSS"):
        return f"{value:7.1f} MB"
    return f"{value * 1000:8.2f}ms"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=200)
    parser.add_argument("--idle", type=float, default=10.0, help="seconds of idle CPU sampling")
    parser.add_argument("--baud", type=int, default=115200)
    add_play_options(parser)
    parser.add_argument(
        "--before", type=Path, metavar="DIR", help="also measure the daemon of this checkout, first"
    )
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="croupier-bench-") as tmp:
        bare = bare_commit(Path(tmp))
    columns = {"this tree": measure(ROOT, args)}
    if args.before is not None:
        columns = {"before": measure(args.before.resolve(), args), **columns}
    print(
        f"round pipeline, {args.rounds} rounds, 6 seats, emulator at {args.baud} baud,"
        f" status polled every {args.poll:g} ms, CONFIRM {args.think:g} ms after the verdict,"
        " development venv" + (f"; before = {args.before}" if args.before else "")
    )
    print(f"  {'':44}" + "".join(f"{name:>12}" for name in columns))
    for key in columns["this tree"]:
        print(f"  {key:44}" + "".join(f"{shown(key, c[key]):>12}" for c in columns.values()))
    wire = last_packet_wire_time(args.baud)
    print(f"  baseline: wire time of the last packet  {wire * 1e3:.2f}ms")
    print(f"  baseline: bare SQLite WAL+FULL commit   {bare * 1e3:.2f}ms (median)")
    return 0


if __name__ == "__main__":
    sys.exit(main())

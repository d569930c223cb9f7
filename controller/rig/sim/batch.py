"""``make sim``: many ``croupier sim`` runs spread over every core (docs/sim.md).

Each profile's rounds are cut into ``--pieces`` runs of their own seed (``--seed``,
``--seed`` + 1, ...), and ``--jobs`` of them run at once, one ``croupier sim --json`` process
each. Every run's JSON object is printed as it finishes (one line each), then the totals:
runs, rounds, the CPU seconds of all the runs together and the wall-clock time. Exit status 1
when a run found a violation or failed (its replay command is printed; no new run starts after
a failure unless ``--keep-going``), else 0.

    python -m controller.rig.sim.batch --rounds 200000 --seed 1 [--jobs N] [--pieces N]
        [--profiles uth-gr,ch-bg] [--faults 0.2] [--crash-rate 0.01] [--keep-going]
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import resource
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass, field
from typing import Any, TextIO

from controller.rig.sim.profiles import PROFILES
from controller.stop_signals import StopOnSignals, exit_status


@dataclass
class Totals:
    runs: int = 0
    rounds: int = 0
    cpu_seconds: float = 0.0  # every run's process together (user + system)
    wall_seconds: float = 0.0
    failures: list[str] = field(default_factory=list)  # replay commands, or what went wrong

    def summary(self, jobs: int) -> str:
        cpu, wall = self.cpu_seconds, self.wall_seconds
        verdict = f"FAILED ({len(self.failures)} run(s))" if self.failures else "OK"
        return (
            f"sim: {self.runs} runs on {jobs} core(s), {self.rounds:,} rounds,"
            f" {cpu:,.0f} CPU seconds, {wall:,.0f} s of wall clock"
            f" ({self.rounds / cpu if cpu else 0:,.0f} rounds per CPU second,"
            f" {self.rounds / wall if wall else 0:,.0f} per second of wall clock): {verdict}"
        )


def sim_commands(
    profiles: Sequence[str],
    rounds: int,
    seed: int,
    pieces: int,
    faults: float,
    crash_rate: float,
) -> list[list[str]]:
    """One ``croupier sim --json`` command line per run: each profile's ``rounds`` cut into
    ``pieces`` runs (rounded up), piece i with seed ``seed + i``."""
    each = -(-rounds // pieces)
    return [
        [
            sys.executable,
            "-m",
            "controller.cli.main",
            "sim",
            "--json",
            f"--profile={profile}",
            f"--rounds={each}",
            f"--seed={seed + piece}",
            f"--faults={faults:g}",
            f"--crash-rate={crash_rate:g}",
        ]
        for piece in range(pieces)
        for profile in profiles
    ]


class Children:
    """The runs in progress, so that a stop ends them: a signal reaches the batch's main
    thread only, and the pool's threads would otherwise wait for every run to finish."""

    def __init__(self) -> None:
        self._running: set[subprocess.Popen[str]] = set()
        self._lock = threading.Lock()
        self.stopping = False

    def run(self, command: list[str]) -> tuple[int, str, str]:
        with self._lock:
            if self.stopping:  # a run the stop came before
                return -signal.SIGTERM, "", "not started: the batch was stopped"
            proc = subprocess.Popen(
                command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
            )
            self._running.add(proc)
        try:
            stdout, stderr = proc.communicate()
        finally:
            with self._lock:
                self._running.discard(proc)
        return proc.returncode, stdout, stderr

    def stop(self) -> None:
        """SIGTERM to every run (``croupier sim`` stops at once, exit 143); none starts after."""
        with self._lock:
            self.stopping = True
            for proc in self._running:
                with contextlib.suppress(ProcessLookupError):
                    proc.terminate()


def _outcome(totals: Totals, command: list[str], result: tuple[int, str, str], out: TextIO) -> None:
    status, stdout, stderr = result
    totals.runs += 1
    try:
        report: dict[str, Any] = json.loads(stdout)
    except ValueError:
        report = {"command": " ".join(command[2:]), "exit": status, "error": stderr.strip()}
    print(json.dumps(report), file=out, flush=True)
    totals.rounds += int(report.get("rounds", 0))
    if status != 0 or report.get("violations"):
        how = report.get("replay") or f"{' '.join(command[2:])} (exit {status})"
        totals.failures.append(str(how))


def run_jobs(
    commands: Sequence[list[str]],
    jobs: int,
    out: TextIO | None = None,
    *,
    keep_going: bool = False,
) -> Totals:
    """Run ``commands`` (each prints one JSON report to ``out``, standard output by default),
    ``jobs`` at a time; no new one starts after a failure unless ``keep_going``. CPU time is
    what the finished child processes used."""
    out = out or sys.stdout
    totals = Totals()
    started, before = time.perf_counter(), resource.getrusage(resource.RUSAGE_CHILDREN)
    pending = list(reversed(commands))
    children = Children()
    with ThreadPoolExecutor(max_workers=jobs) as pool:
        running: dict[Future[tuple[int, str, str]], list[str]] = {}
        try:
            while pending or running:
                while pending and len(running) < jobs and (keep_going or not totals.failures):
                    command = pending.pop()
                    running[pool.submit(children.run, command)] = command
                if not running:
                    break
                finished, _ = wait(running, return_when=FIRST_COMPLETED)
                for future in finished:
                    _outcome(totals, running.pop(future), future.result(), out)
        except BaseException:  # a stop signal (or a bug): the runs stopped, not waited for
            children.stop()
            raise
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    totals.cpu_seconds = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    totals.wall_seconds = time.perf_counter() - started
    return totals


def main(argv: Sequence[str] | None = None) -> int:
    cores = len(os.sched_getaffinity(0))
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=200_000, help="rounds of each profile")
    parser.add_argument("--seed", type=int, default=1, help="the first piece's seed")
    parser.add_argument("--jobs", type=int, default=cores, help="runs at once (default: cores)")
    parser.add_argument("--pieces", type=int, help="runs per profile (default: --jobs)")
    parser.add_argument("--profiles", default=",".join(PROFILES), help="comma-separated")
    parser.add_argument("--faults", type=float, default=0.2)
    parser.add_argument("--crash-rate", type=float, default=0.01)
    parser.add_argument(
        "--keep-going", action="store_true", help="start every run even after a failure"
    )
    args = parser.parse_args(argv)
    profiles = [p for p in args.profiles.split(",") if p]
    unknown = sorted(set(profiles) - set(PROFILES))
    if unknown:
        parser.error(f"unknown profile(s) {', '.join(unknown)}: from {', '.join(PROFILES)}")
    if min(args.rounds, args.jobs, args.pieces or 1) < 1:
        parser.error("--rounds, --jobs and --pieces must be at least 1")
    commands = sim_commands(
        profiles, args.rounds, args.seed, args.pieces or args.jobs, args.faults, args.crash_rate
    )
    try:
        with StopOnSignals():  # SIGTERM, SIGHUP as Ctrl-C: the runs in progress are stopped
            totals = run_jobs(commands, args.jobs, keep_going=args.keep_going)
    except KeyboardInterrupt as exc:
        print(f"sim: stopped ({str(exc) or 'SIGINT'})", file=sys.stderr)
        return exit_status(exc)
    print(totals.summary(args.jobs))
    for failure in totals.failures:
        print(f"  replay: {failure}")
    return 1 if totals.failures else 0


if __name__ == "__main__":
    sys.exit(main())

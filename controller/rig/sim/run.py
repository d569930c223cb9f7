"""``croupier sim``: run one seeded simulation of a table for a number of rounds."""

from __future__ import annotations

import logging
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from controller.rig.sim.digest import run_digest
from controller.rig.sim.world import MAX_ROUND_SECONDS, SimSettings, World
from controller.table.evaluator_cache import warm_up_cached

CACHE_DIR = Path(tempfile.gettempdir()) / "croupier-sim-cache"
STEPS_PER_ROUND = 20_000  # a round that needs more steps than this is stuck


@dataclass
class SimReport:
    settings: SimSettings
    rounds: int = 0
    steps: int = 0
    sim_seconds: float = 0.0
    wall_seconds: float = 0.0
    cpu_seconds: float = 0.0  # this process's CPU time: the rate on a busy machine
    crashes: int = 0
    jackpots: int = 0
    digest: str = ""
    outcomes: dict[str, int] = field(default_factory=dict)
    line: dict[str, int] = field(default_factory=dict)  # what the simulated line did
    violations: list[dict[str, Any]] = field(default_factory=list)
    trace: list[str] = field(default_factory=list)  # the failing round's event log
    stopped: KeyboardInterrupt | None = None  # the stop signal that cut the run short

    @property
    def rounds_per_s(self) -> float:
        return self.rounds / self.wall_seconds if self.wall_seconds > 0 else 0.0

    @property
    def rounds_per_cpu_s(self) -> float:
        return self.rounds / self.cpu_seconds if self.cpu_seconds > 0 else 0.0

    @property
    def stopped_by(self) -> str | None:
        """The signal that stopped the run, as a shell names it (None: it played out)."""
        return None if self.stopped is None else str(self.stopped) or "SIGINT"

    def replay(self) -> str | None:
        """The command that plays this run again: up to the failing round (with its trace),
        or the rounds played before a stop (None: stopped before any round was played)."""
        s = self.settings
        if self.stopped and not self.violations and self.rounds == 0:
            return None
        rounds, trace = (
            (self.rounds, "")
            if self.stopped and not self.violations
            else (
                self.rounds + 1,
                " --trace",
            )
        )
        return (
            f"croupier sim --profile {s.profile} --rounds {rounds} --seed {s.seed}"
            f" --faults {s.faults:g} --crash-rate {s.crash_rate:g}{trace}"
        )

    def to_json(self) -> dict[str, Any]:
        s = self.settings
        # a replay is named after a violation or a stop (none when nothing was played)
        replay = self.replay() if self.violations or self.stopped is not None else None
        return {
            "profile": s.profile,
            "seed": s.seed,
            "faults": s.faults,
            "crash_rate": s.crash_rate,
            "rounds": self.rounds,
            "rounds_per_s": round(self.rounds_per_s, 1),
            "rounds_per_cpu_s": round(self.rounds_per_cpu_s, 1),
            "steps": self.steps,
            "sim_seconds": round(self.sim_seconds, 3),
            "crashes": self.crashes,
            "jackpots": self.jackpots,
            "line": self.line,
            "digest": self.digest,
            "outcomes": self.outcomes,
            "violations": self.violations,
            **({"stopped_by": self.stopped_by} if self.stopped is not None else {}),
            **({"replay": replay} if replay else {}),
        }


def simulate(
    settings: SimSettings,
    rounds: int,
    progress: Callable[[int], None] | None = None,
    state_dir: Path | None = None,
) -> SimReport:
    """Play ``rounds`` rounds (settled or voided); stop at the first violation."""
    report = SimReport(settings)
    started, cpu = time.perf_counter(), time.process_time()
    # the session logs every fault it handles (and dumps its frame ring): at a million rounds
    # with faults that is the run's whole cost; the tally reports what matters
    logging.disable(logging.CRITICAL)
    try:
        _run(report, rounds, progress, state_dir)
    except KeyboardInterrupt as exc:  # before the first step: no round to report
        report.stopped = exc
    finally:
        logging.disable(logging.NOTSET)
    report.wall_seconds = time.perf_counter() - started
    report.cpu_seconds = time.process_time() - cpu
    return report


def _run(
    report: SimReport,
    rounds: int,
    progress: Callable[[int], None] | None,
    state_dir: Path | None,
) -> None:
    settings = report.settings
    with tempfile.TemporaryDirectory(prefix="croupier-sim-") as tmp:
        CACHE_DIR.mkdir(exist_ok=True)
        warm_up_cached(CACHE_DIR)  # the evaluator's tables, as the daemon's start-up
        world = World(settings, state_dir or Path(tmp))
        tally = world.tally
        try:
            last, last_at, steps_at = 0, world.now, 0
            while tally.closed < rounds and not tally.violations:
                try:
                    world.step()
                except Exception as exc:  # a bug in the code under test: report, replay
                    tally.fail("exception", None, f"{type(exc).__name__}: {exc}")
                    break
                except KeyboardInterrupt as exc:  # Ctrl-C, SIGTERM, SIGHUP: the rounds so far
                    report.stopped = exc  # are reported (a step cut short: no journal check)
                    break
                if tally.closed != last:
                    if progress is not None:
                        progress(tally.closed - last)
                    last, last_at, steps_at = tally.closed, world.now, world.steps
                elif (
                    world.now - last_at > MAX_ROUND_SECONDS
                    or world.steps - steps_at > STEPS_PER_ROUND
                ):
                    held = "; ".join(
                        f"{c.value}: {why}" for c, why in world.machine.conditions.items()
                    )
                    state = world.machine.state.value
                    tally.fail(
                        "stuck",
                        None,
                        f"no round closed since t={last_at:.1f} (state {state};"
                        f" {held or 'no condition'})",
                    )
            if not tally.violations and report.stopped is None:
                tally.check_journal()
        finally:
            world.close()
        report.rounds = tally.closed
        report.steps = world.steps
        report.sim_seconds = world.now
        report.crashes = world.crashes
        report.jackpots = world.jackpots
        report.line = world.shuffler.line_counts()
        report.outcomes = dict(sorted(tally.outcomes.items()))
        report.violations = tally.violations
        if tally.violations:
            report.trace = world.trace_lines()
        if report.stopped is not None:  # cut mid-step: no digest to compare with a replay's
            return
        report.digest = run_digest(
            [*tally.digest_lines, f"crashes {world.crashes}", f"t {world.now:.6f}"]
        )

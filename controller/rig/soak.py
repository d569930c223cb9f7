"""``croupier rig soak``: random rounds with random shuffler faults and random ``kill -9`` of
the daemon; at the end the ledger, its journal and the rig's own tally agree to the cent.

Theory of operation. A :class:`~controller.rig.dealer.Dealer` plays round after round at a
simulated Greek UTH table (``config/sim.toml``): 1 to 4 random seats put a progressive stake
on their sensors; with probability ``faults`` the round gets one of the emulator's faults
(jam, wrong count, cards face up, lost / corrupted / duplicated frames, the cable pulled, a
misfeed); with probability ``kill_rate`` the daemon is killed (SIGKILL) at a random point of
the round and restarted on the same state directory; now and then the deck is arranged to
deal a royal flush, to a seat (the pool, PRG-3..5, envy PRG-4) or to the board (a community
royal, 1000:1).

The rig books every round in its own :class:`~controller.rig.tally.PoolTally` from what it
observed (its stakes, the verdict, the cards the emulator delivered), checks that each fault
gave the verdict its rule demands, and at the end compares three sources meter by meter:
the rig's tally, the ledger's pool row, and the pools replayed from the hash-chained journal
(``verify_ledger`` must also find no problem). Each round the rig booked must be in the
ledger with the same outcome and the same payments per seat.

The soak table is ``sim.toml`` with the rig's speed levers (:data:`SOAK_OVERRIDES`): no
emulated line pacing, 2 ms sensor and 1 ms button debounce, and a chatter window scaled to the
soak's pace (a dealer plays a round a minute, the soak about twenty a second, so a stake placed
and lifted every round would otherwise look like a chattering sensor).
"""

from __future__ import annotations

import contextlib
import random
import threading
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any, Self, TypeVar, cast

from controller.books.ledger.verify import replay_journal, verify_ledger
from controller.rig.dealer import Dealer, RoundPlan, RoundSeen, plan_round, royal_order
from controller.rig.errors import RigFailure
from controller.rig.table import REPO_CONFIG, SimTable
from controller.rig.tally import PoolTally, uth_progressive_line
from controller.rig.target import TableUnderTest
from controller.rig.workers import Workers

SOAK_OVERRIDES: dict[str, Any] = {
    "shuffler": {"emulator": {"baud": None}},  # memory speed: no wire pacing
    "gpio": {"debounce_ms": 2, "button_debounce_ms": 1, "chatter_window_ms": 100},
    "timing": {"settled_display": 60.0},  # the robot dealer presses CONFIRM
}
R = TypeVar("R", bound="SoakReport")
ROYALS = 0.01  # share of the rounds dealt a royal on purpose (half to a seat, half to the board)


@dataclass
class SoakReport:
    rounds: int = 0
    seconds: float = 0.0
    outcomes: Counter[str] = field(default_factory=Counter)  # settled, voided MD-x, not opened
    faults: Counter[str] = field(default_factory=Counter)
    kills: int = 0
    jackpots: int = 0
    problems: list[str] = field(default_factory=list)
    meters: dict[str, int] = field(default_factory=dict)  # the rig's tally at the end

    seed: int | None = None
    tables: list[dict[str, int]] = field(default_factory=list)  # each table's final meters
    # the stop signal (Ctrl-C, SIGTERM, SIGHUP) that cut the soak short: the rounds played so
    # far, their books not reconciled
    stopped: KeyboardInterrupt | None = None

    @classmethod
    def combined(cls, reports: list[SoakReport], seconds: float, seed: int) -> Self:
        """One report for tables soaked at once (``seconds``: the wall time of them all)."""
        total = cls(seconds=seconds, seed=seed)
        for n, report in enumerate(reports, 1):
            total.rounds += report.rounds
            total.outcomes.update(report.outcomes)
            total.faults.update(report.faults)
            total.kills += report.kills
            total.jackpots += report.jackpots
            prefix = f"table {n}: " if len(reports) > 1 else ""
            total.problems += [prefix + p for p in report.problems]
            total.tables.append(report.meters)
        return total

    @property
    def ok(self) -> bool:
        return not self.problems and self.stopped is None

    @property
    def stopped_by(self) -> str | None:
        """The signal that stopped the soak, as a shell names it (None: it played out)."""
        return None if self.stopped is None else str(self.stopped) or "SIGINT"

    @property
    def rate(self) -> float:
        return self.rounds / self.seconds if self.seconds else 0.0

    def to_json(self) -> dict[str, Any]:
        return {
            "ok": self.ok,
            "rounds": self.rounds,
            "seconds": round(self.seconds, 2),
            "rounds_per_second": round(self.rate, 2),
            "outcomes": dict(self.outcomes),
            "faults": dict(self.faults),
            "kills": self.kills,
            "jackpots": self.jackpots,
            "seed": self.seed,
            "tables": self.tables or [self.meters],
            "problems": self.problems,
            "stopped": self.stopped_by,
        }


class Soak:
    def __init__(
        self,
        table: SimTable,
        *,
        faults: float,
        kill_rate: float,
        seed: int | None = None,
        royals: float = ROYALS,
        tablet: bool = False,
    ) -> None:
        if table.config.profile.name != "uth-gr" or len(table.config.pools) != 1:
            raise RigFailure(
                "the soak's tally knows the Greek UTH progressive: run it on a"
                " uth-gr table with one pool (config/sim.toml)"
            )
        self.table = table
        self.faults = faults
        self.kill_rate = kill_rate
        self.royals = royals
        self.rng = random.Random(seed)
        self.dealer = Dealer(table, tablet=tablet)
        self.pool_name, pool = next(iter(table.config.pools.items()))
        self.tally = PoolTally(pool)
        self.stake = pool.rules.stake
        self.seats = table.config.seats
        self.report = SoakReport()

    def plan(self) -> RoundPlan:
        return plan_round(self.rng, self.seats, self.faults, self.kill_rate, self._royal)

    def _royal(self, rng: random.Random, seats: tuple[int, ...]) -> list[int] | None:
        """Now and then a royal flush: to a seat (the pool) or to the board."""
        if rng.random() < self.royals:
            return royal_order(seats, rng, community=rng.random() < 0.5)
        return None

    def run(self, rounds: int, progress: Any = None) -> SoakReport:
        """Play ``rounds`` rounds, then reconcile the books; a stopping rig (RigStopped) cuts
        the round in play short, the rounds booked before it in the report."""
        started = time.monotonic()
        report = self.report
        try:
            for n in range(rounds):
                seen = self.dealer.play(self.plan())
                self.book(seen)
                report.rounds += 1
                if progress is not None:
                    progress(n + 1, report)
        finally:
            report.seconds = time.monotonic() - started
            report.kills = self.dealer.kills
        self.reconcile()
        return report

    # --- each round ----------------------------------------------------------------------

    def book(self, seen: RoundSeen) -> None:
        report, plan = self.report, seen.plan
        rid = seen.round_id
        report.problems += [f"{rid}: {p}" for p in seen.problems]
        if plan.fault is not None:
            report.faults[plan.fault.kind] += 1
        outcome = seen.outcome + (f" {seen.rule}" if seen.rule else "")
        report.outcomes[outcome] += 1
        report.jackpots += seen.jackpot
        if rid is None or seen.outcome == "not opened":
            return
        self.tally.opened(rid, dict.fromkeys(plan.seats, self.stake))
        if seen.outcome == "voided":
            self.tally.voided(rid)
        elif seen.outcome == "settled":
            if seen.hands is None:
                report.problems.append(f"{rid}: settled, but the rig never saw its cards")
            else:
                lines = {
                    s: uth_progressive_line(hole, seen.hands.community)
                    for s, hole in seen.hands.seats.items()
                }
                self.tally.settled(rid, lines)
        expect = plan.fault.expect if plan.fault is not None else None
        if expect is not None and not seen.killed:
            got = "verified" if seen.outcome == "settled" else seen.rule
            if got != expect:
                report.problems.append(f"{rid}: {plan.fault} gave {got}, {expect} expected")

    # --- the end: three books, one amount ------------------------------------------------

    def reconcile(self) -> None:
        report, table = self.report, self.table
        self.dealer.ready()
        report.problems += self.tally.problems
        chain = table.call("events.verify")
        if not chain["ok"]:
            report.problems.append(f"events verify: {chain['problems'][:3]}")
        self._check_sign()
        with table.ledger() as ledger:
            verified = verify_ledger(ledger)
            report.problems += [f"ledger verify: {p}" for p in verified.problems[:10]]
            _, state = ledger.pool(self.pool_name)
            row = state.to_row()
            report.problems += [f"ledger: {d}" for d in self.tally.differences("ledger", row)]
            replayed = replay_journal(ledger).pools[self.pool_name][1].to_row()
            differences = self.tally.differences("journal", replayed)
            report.problems += [f"journal: {d}" for d in differences]
            report.problems += self._round_differences(ledger)
        report.meters = dict(self.tally.meters)

    def _round_differences(self, ledger: Any) -> list[str]:
        problems = []
        bet = self.tally.config.bet
        ids = {r[0] for r in ledger.db.execute("SELECT round_id FROM rounds")}
        for rid in sorted(ids - set(self.tally.rounds)):
            problems.append(f"{rid} is in the ledger but the rig never opened it")
        for rid, books in self.tally.rounds.items():
            record = ledger.round(rid)
            if record is None:
                problems.append(f"{rid}: the rig booked it, the ledger has no such round")
                continue
            paid = {
                seat: sum(v for k, v in wagers.items() if k in (bet, "envy"))
                for seat, wagers in record.paid.items()
            }
            paid = {seat: amount for seat, amount in paid.items() if amount}
            mine = {seat: amount for seat, amount in books.paid.items() if amount}
            if record.state != books.outcome or paid != mine:
                problems.append(
                    f"{rid}: ledger {record.state} paid {paid}, rig {books.outcome} paid {mine}"
                )
        return problems[:20]

    def _check_sign(self) -> None:
        """The sign shows the pool's amount (after its roll-up)."""
        table = self.table
        expected = table.shown_amount(self.tally.meters["current"])
        if expected is None:
            return
        try:
            what = f"the sign to show {expected}"
            table.wait_until(lambda: table.sign_text() == expected, what, timeout=10.0)
        except RigFailure:
            self.report.problems.append(
                f"the sign shows {table.sign_text()!r}, the pool is {expected}"
            )


def split_rounds(rounds: int, tables: int) -> list[int]:
    """``rounds`` shared among ``tables`` as evenly as they go (the first tables one more)."""
    return [rounds // tables + (i < rounds % tables) for i in range(tables)]


class RoundCounter:
    """Rounds done across the rig's threads, each one reported to ``progress`` (may be None)
    in order; call it after every round, whatever the round's own arguments."""

    def __init__(self, progress: Callable[[int], None] | None) -> None:
        self.progress = progress
        self.done = 0
        self._lock = threading.Lock()

    def __call__(self, *_round: object) -> None:
        with self._lock:
            self.done += 1
            if self.progress is not None:
                self.progress(self.done)


def run_soak(
    rounds: int,
    *,
    faults: float,
    kill_rate: float,
    seed: int | None = None,
    royals: float = ROYALS,
    tables: int = 1,
    tablet: bool = False,
    config: str | Path = REPO_CONFIG,
    progress: Callable[[int], None] | None = None,
) -> SoakReport:
    """A whole soak with the soak's speed levers, on ``tables`` fresh simulated tables at
    once (each its own daemon, shuffler, ledger and temporary state; one rig thread each,
    ``rounds`` shared among them). ``tablet``: LOCK and CONFIRM through the control socket
    instead of the console's pins. ``progress(rounds done)`` is called after every round."""
    seed = random.SystemRandom().randrange(2**31) if seed is None else seed
    shares = split_rounds(rounds, tables)
    one_more = RoundCounter(progress)

    with contextlib.ExitStack() as stack:
        sims = [
            stack.enter_context(SimTable(config, overrides=SOAK_OVERRIDES)) for _ in range(tables)
        ]
        soaks = [
            Soak(
                sim, faults=faults, kill_rate=kill_rate, seed=seed + i, royals=royals, tablet=tablet
            )
            for i, sim in enumerate(sims)
        ]
        for sim in sims:
            sim.wait_for_state("open", timeout=30.0)
        calls = [partial(soak.run, n, one_more) for soak, n in zip(soaks, shares, strict=True)]
        return run_tables(sims, calls, [soak.report for soak in soaks], seed)


def run_tables(
    tables: Sequence[TableUnderTest],
    calls: Sequence[Callable[[], SoakReport]],
    reports: Sequence[SoakReport],
    seed: int,
    *,
    kind: type[R] = SoakReport,  # type: ignore[assignment]
    helpers: Sequence[Callable[[], object]] = (),
) -> R:
    """Each of ``calls`` (the soak of one of ``tables``) and of ``helpers`` (a server's
    restarter, say) in a thread of its own; the soaks' reports combined into a ``kind``. A stop
    signal meanwhile (Ctrl-C, SIGTERM, SIGHUP to the rig's PID) stops them at once, the round in
    play cut short (:class:`~controller.rig.workers.Workers`): the combined report is then made of
    ``reports`` (each soak's own, as far as it got) with :attr:`SoakReport.stopped` set, and
    the caller's exit stack stops the tables as after any soak."""
    workers = Workers("croupier-soak")
    for table in tables:
        table.stopping = workers.stopping
    started = time.monotonic()
    try:
        done = workers.run([*calls, *helpers])[: len(calls)]
    except KeyboardInterrupt as exc:
        total = kind.combined(list(reports), time.monotonic() - started, seed)
        total.stopped = exc
        return total
    return kind.combined(cast(list[SoakReport], done), time.monotonic() - started, seed)

"""One simulated table and its world, stepped on a simulated clock (see the package docstring).

The loop (:meth:`World.step`) hands the next table input to the real table core and carries
out its outputs as the daemon's shell does, but synchronously: a :class:`LedgerWrite` through
:func:`controller.table.ledger_apply.apply_write` on the real ledger (its answer queued as the
next input), a shuffler command to :class:`~controller.rig.sim.shuffler.SimShuffler`. With no
input waiting the clock jumps to the earliest deadline of the core, the GPIO core, the line,
the firmware, the sensor edges and the dealer.

What a crash drops (:meth:`World.crash`): the table core, the GPIO core, the host's shuffler
session and the ledger's connection, the queued inputs. What it keeps: the ledger file, the
shuffler device (it does not restart with the controller), the stakes on the sensors. The
table then comes up as the daemon does at power-up (:func:`controller.table.powerup.open_books`:
the round in play voided, MD-S2).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from controller.books.ledger.store import Ledger
from controller.engine.cards import DECK_SIZE
from controller.rig.sim.gpio import Console
from controller.rig.sim.players import Dealer, RoundPlan
from controller.rig.sim.profiles import sim_config, sim_table_data
from controller.rig.sim.shuffler import FAST_MACHINE, SLOW_MACHINE, SimShuffler
from controller.rig.sim.streams import Streams
from controller.rig.sim.tally import Tally
from controller.rig.sim.times import earliest
from controller.rig.sim.wire import LineFaults
from controller.table.core import Input, TableLogic
from controller.table.events import (
    ArchiveRound,
    CardsExposed,
    Condition,
    ConditionChanged,
    EnterWagers,
    KeepExclusions,
    LedgerWrite,
    LedgerWritten,
    Output,
    PoolAmount,
    Refused,
    Tick,
    ToShuffler,
)
from controller.table.ledger_apply import apply_write
from controller.table.machine import TableMachine
from controller.table.powerup import open_books, safeguards_of
from drivers.gpio.core import TableCore
from firmware_bridge.emulator.faults import MachineFaults
from firmware_bridge.emulator.firmware import firmware_digest

EPOCH = 1_790_000_000.0  # the simulated wall clock's start (2026-09): journal times
RESTART_DELAY = 2.0  # seconds between a crash and the table's power-up
MAX_ROUND_SECONDS = 600.0  # a round that takes longer is stuck: a violation


@dataclass(frozen=True)
class SimSettings:
    profile: str
    seed: int
    faults: float = 0.0
    crash_rate: float = 0.0


class World:
    def __init__(self, settings: SimSettings, state_dir: Path) -> None:
        self.settings = settings
        self.streams = Streams(settings.seed)
        self.now = 0.0
        self.state_dir = state_dir
        data = sim_table_data(settings.profile, state_dir)
        self.pool_texts: dict[str, dict[str, object]] = data.get("pools", {})
        self.config = sim_config(data, settings.profile)
        self._local_pools = {p.bet: name for name, p in self.config.pools.items()}  # bet -> name
        self.profile = self.config.profile
        self.seat_numbers = sorted(self.config.io.gpio.seats)
        self.shoe = self.profile.game == "blackjack"
        self.manual = self.profile.deal == "manual"
        self.hand_forming = not self.shoe and not self.manual
        self.has_shuffler = not self.manual
        line = LineFaults.scaled(settings.faults)
        self.line_faulty = settings.faults > 0
        self.queue: deque[Input] = deque()
        # the event log of the round in play: (time, text or input), rendered on a violation
        self.trace: list[tuple[float, object]] = []
        self.tally = Tally(self)
        allow = set(self.config.shuffler.firmware_allow) | {firmware_digest().hex()}
        self.shuffler = SimShuffler(
            decks=self.config.shuffler.emulator.decks if self.config.shuffler.emulator else 1,
            shoe=self.shoe,
            allow=allow,
            rng=lambda name: self.streams(f"shuffler/{name}"),
            line=line,
            post=self.post,
            is_current=self._is_current,
            deals=self.tally.dealt,
            now=self.now,
        )
        gpio = self.config.io.gpio
        settle = max(gpio.sensor_debounce, gpio.button_debounce) + 1e-6
        self.console = Console(self.streams("bounce"), 0.3 * settings.faults, settle)
        self.dealer = Dealer(self, self.streams("dealer"), settings.faults)
        self._crash_rng = self.streams("crash")
        self._crash_in: int | None = None  # outputs to carry out before the crash
        self._cable_back: float | None = None
        self.crashes = 0
        self._kept_exclusions: dict[int, str] = {}  # kept across a crash, as the daemon's file
        self.jackpots = 0  # jackpots the technician acknowledged
        self.steps = 0
        self._gpio_pending = True  # a new GPIO core reports the stakes it finds on the sensors
        # the shuffler's next deadline, asked again only after its advance or a touch (nothing
        # else changes it), and whether something outside its own advance may have queued
        # bytes or events for it since (see _advance_to)
        self._shuffler_at: float | None = None
        self._shuffler_stale = True
        self._shuffler_touched = True
        self.ledger: Ledger
        self.logic: TableLogic
        self.sensors: TableCore
        self._power_up()

    # --- the table (what a crash drops) ------------------------------------------------------

    def _power_up(self) -> None:
        cfg = self.config
        books = open_books(
            cfg,
            self.state_dir / "ledger.sqlite3",
            self.now,
            lambda: EPOCH + self.now,
            safeguards_of(cfg),
        )
        self.ledger = books.ledger
        # a process crash loses nothing SQLite committed, whatever the sync setting (the
        # simulator kills the process, not the power): docs/sim.md, durability
        self.ledger.db.execute("PRAGMA synchronous = OFF")
        # nobody else opens the simulated ledger (no CLI reads beside it): hold its lock from
        # the first transaction to the crash instead of taking and dropping the file locks of
        # every transaction and read (about 90 fcntl calls a round); nothing written changes
        self.ledger.db.execute("PRAGMA locking_mode = EXCLUSIVE")
        self.sensors = TableCore(cfg.io.gpio, self.now, initial=self.console.initial())
        self.sensors.exclude_at_start(self._kept_exclusions, self.now)  # as the daemon's file
        self._gpio_pending = True
        self.logic = TableLogic(cfg, next_round=books.last_round + 1, sensors=self.sensors)
        self.tally.powered_up(books.recovered)
        for bet, (amount, seed) in books.pools.items():
            self.post(PoolAmount(bet, amount, seed))
        for name, reason in books.conditions:
            self.post(ConditionChanged(Condition(name), True, reason))
        self.post(ConditionChanged(Condition.LINK, True, "connecting to the simulated shuffler"))
        self.post(ConditionChanged(Condition.STARTUP, False))
        self.shuffler.connect(self.now)
        self._touch_shuffler()

    def crash(self) -> None:
        """kill -9: drop the controller's memory; power up again after RESTART_DELAY."""
        self.crashes += 1
        self.log(f"CRASH #{self.crashes}")
        self.ledger.close()
        self.queue.clear()
        self.shuffler.host_lost(self.now)
        # the dealer starts over: the round in play is voided at power-up (its plan's faults
        # may be gone with the table's state: a slow machine is fixed while the table is down)
        self.dealer.new_round()
        self.tally.abandon()
        self._advance_to(self.now + RESTART_DELAY, self.logic.next_deadline())
        self._power_up()

    @property
    def machine(self) -> TableMachine:
        return self.logic.machine

    def _is_current(self, round_id: str) -> bool:
        return self.logic.is_current(round_id)

    # --- inputs from the world -------------------------------------------------------------

    def post(self, event: Input) -> None:
        self.queue.append(event)

    def press(self, button: str) -> None:
        self.console.press(button, self.now)

    def shuffler_faults(self, faults: MachineFaults, *, slow: bool = False) -> None:
        machine = self.shuffler.machine
        machine.faults = faults
        machine.timing = SLOW_MACHINE if slow else FAST_MACHINE

    def pull_cable(self, seconds: float) -> None:
        self.log("cable pulled")
        self.shuffler.pull_cable()
        self._cable_back = self.now + seconds

    def manual_deck(self) -> list[int]:
        cards = list(range(DECK_SIZE))
        self.streams("manual-deck").shuffle(cards)
        return cards

    def begin_round(self, plan: RoundPlan) -> None:
        self.trace = [(self.now, f"plan: {plan.describe()}")]
        self.tally.begin(plan)
        if self.settings.crash_rate and self._crash_rng.random() < self.settings.crash_rate:
            self._crash_in = self._crash_rng.randint(1, 60)

    def abandon_round(self) -> None:
        self.tally.abandon()

    def log(self, text: str) -> None:
        self.trace.append((self.now, text))

    def trace_lines(self) -> list[str]:
        return [
            f"{at:.3f} {what if isinstance(what, str) else repr(what)[:300]}"
            for at, what in self.trace
        ]

    # --- the loop --------------------------------------------------------------------------

    def step(self) -> None:
        """One input through the table core, or the clock to the next deadline."""
        self.steps += 1
        if self.queue:
            event = self.queue.popleft()
            self.trace.append((self.now, event))
            self._handle(event)
            self.tally.check_step()
            return
        # the core's deadline, asked once: nothing in the advance changes the core (the
        # sensors' and the line's events are only queued)
        deadline = self.logic.next_deadline()
        self._advance_to(self._next_time(deadline), deadline)

    def _next_time(self, deadline: float | None) -> float:
        if self._shuffler_stale:
            self._shuffler_at = self.shuffler.next_time()
            self._shuffler_stale = False
        first = earliest(
            deadline,
            self._shuffler_at,
            self.console.next_time(),
            self.dealer.next_at,
            self._cable_back,
        )
        assert first is not None  # the dealer always has a next move
        return max(self.now, first)

    def _advance_to(self, when: float, deadline: float | None) -> None:
        """The clock to ``when``: what is due then happens; ``deadline`` is the table core's."""
        self.now = max(self.now, when)
        now = self.now
        if self._cable_back is not None and now >= self._cable_back:
            self._cable_back = None
            self.log("cable put back")
            self.shuffler.put_cable_back()
        if self.console.apply(self.sensors, now) or self._gpio_pending:
            self._gpio_pending = False
            for event in self.sensors.poll(now):
                self.post(event)
        # the shuffler's side only when something is due there, or when the table or the
        # dealer may have handed it a request, an event or a card since the last advance
        # (bytes not yet on the line are in no deadline); otherwise its advance is a no-op
        shuffler_at = self._shuffler_at
        if self._shuffler_touched or (shuffler_at is not None and shuffler_at <= now):
            self._shuffler_touched = False
            self._shuffler_stale = True
            self.shuffler.advance(now)
        if deadline is not None and deadline <= now:
            self.post(Tick())
        if now >= self.dealer.next_at and not self.queue:
            self._touch_shuffler()
            self.dealer.act()

    def _touch_shuffler(self) -> None:
        """The shuffler's side was handed something (a command, a card, a fault, a new host):
        advance it at the next wake-up and ask its deadline again."""
        self._shuffler_touched = self._shuffler_stale = True

    def _handle(self, event: Input) -> None:
        r, before = self.machine.round, self.machine.state
        outputs = self.logic.handle(event, self.now)
        if isinstance(event, CardsExposed) and r is not None:
            refused = next((o.reason for o in outputs if isinstance(o, Refused)), None)
            self.tally.exposed(r.round_id, event, before, refused)
        elif isinstance(event, EnterWagers) and r is not None:
            self.tally.wagered(r.round_id, event)
        self._gpio_pending = True  # the core commanded the seats: their events to collect
        for output in outputs:
            if self._crash_in is not None:
                self._crash_in -= 1
                if self._crash_in <= 0:
                    self._crash_in = None
                    self.crash()
                    return
            self._carry_out(output)

    def _carry_out(self, output: Output) -> None:
        if isinstance(output, LedgerWrite):
            self.post(self.write(output))
        elif isinstance(output, ToShuffler):
            command = output.command
            self.shuffler.submit(command, output.round_id, self.now)  # type: ignore[arg-type]
            self._touch_shuffler()
        elif isinstance(output, ArchiveRound):
            self.tally.archived(output)
        elif isinstance(output, KeepExclusions):  # the daemon's seat-exclusions.json
            self._kept_exclusions = dict(output.seats)

    def write(self, request: LedgerWrite) -> LedgerWritten:
        """The ledger transaction, as the shell's (no linked pool in the simulator)."""
        amounts = apply_write(self.ledger, request, self.now, self._local_pools)
        self.tally.written(request)
        return LedgerWritten(
            request.money, True, amounts=tuple(amounts.items()), probe=request.probe
        )

    def close(self) -> None:
        self.ledger.close()


def run_until(world: World, done: Callable[[], bool], max_steps: int) -> None:
    for _ in range(max_steps):
        if done():
            return
        world.step()

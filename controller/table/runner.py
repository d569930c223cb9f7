"""The table at run time: the round state machine wired to the ledger, the shuffler, the
GPIO table, the sign and the control socket, on one asyncio event loop.

Theory of operation. Every source of activity posts :mod:`events <controller.table.events>`
into one queue; a single consumer feeds them to the :class:`TableMachine` (with the loop's
clock as ``now``, and a :class:`Tick` at the machine's next deadline) and carries out the
effects in order:

- journal entries and money events (open / void / settle) go to the ledger in ONE transaction
  per event handled, on the ledger's own thread; the outcome comes back as ``LedgerResult``
  (and ``PoolAmount``), so a failed commit (disk full) leaves nothing half-written and the
  machine closes the table;
- shuffler effects go to :class:`ShufflerLink`, which runs them one at a time;
- after every event the outputs follow the machine: seat and status lamps, the sign, the
  systemd status line; a settled round goes to the surveillance store and the shuffle audit.

The ledger is touched only from its executor thread (SQLite connections belong to a thread).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections import deque
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, TypeVar

from controller.books.audit.shuffle_audit import ShuffleStats
from controller.books.ledger.errors import LedgerError
from controller.books.ledger.powerup import Safeguards, open_ledger
from controller.books.ledger.rounds import settle_arguments
from controller.books.ledger.store import Ledger
from controller.books.linked.errors import LinkDownError
from controller.books.surveillance import RoundReusedError, SurveillanceStore
from controller.table.evaluator_cache import warm_up_cached
from controller.table.events import (
    ButtonPressed,
    CheckDeck,
    ConditionChanged,
    Effect,
    Event,
    Journal,
    LedgerResult,
    OpenRound,
    PacketDelivered,
    PoolAmount,
    ReinsertCards,
    RequestPacket,
    SeatHealth,
    SettleRound,
    ShuffleDeck,
    StakeSensed,
    Tick,
    VoidRound,
)
from controller.table.journald import log_effect
from controller.table.machine import MachineSettings, TableMachine, TableState
from controller.table.outputs import lamp_patterns, sign_state
from controller.table.tableconfig import TableConfig

log = logging.getLogger(__name__)
T = TypeVar("T")
LEDGER_EFFECTS = (Journal, OpenRound, VoidRound, SettleRound)
MONEY_ACTIONS = {OpenRound: "open", VoidRound: "void", SettleRound: "settle"}
SHUFFLER_EFFECTS = (RequestPacket, ShuffleDeck, ReinsertCards, CheckDeck)
LEDGER_PROBE_SECONDS = 5.0
AUDIT_POSITIONS = 9  # community 5 + the first seat's 2 + 2 more: present in every UTH/CH deal


class PipelineMetrics:
    """Round pipeline timings (loop clock, seconds; no card data), for bench/round.py:

    - ``verdict``: from the last byte of the deal's last packet to the verdict handled;
    - ``settlement``: from the dealer's CONFIRM to the settlement committed in the ledger and
      the lamps and sign updated (the ledger's answer is an event of its own)."""

    def __init__(self, keep: int = 10_000) -> None:
        self.verdict: deque[float] = deque(maxlen=keep)
        self.settlement: deque[float] = deque(maxlen=keep)
        self._confirmed_at: float | None = None

    def observe(
        self, event: Event, before: TableState, after: TableState, started: float, done: float
    ) -> None:
        if isinstance(event, PacketDelivered) and event.at is not None:
            if after in (TableState.VERIFIED, TableState.VOID) and before == TableState.DEALING:
                self.verdict.append(done - event.at)
        elif after == TableState.SHOWDOWN and before == TableState.VERIFIED:
            self._confirmed_at = started
        elif before == TableState.SHOWDOWN and after in (TableState.SETTLED, TableState.JACKPOT):
            if self._confirmed_at is not None:
                self.settlement.append(done - self._confirmed_at)
            self._confirmed_at = None

    def to_json(self) -> dict[str, list[float]]:
        return {"verdict": list(self.verdict), "settlement": list(self.settlement)}


class TableRunner:
    def __init__(
        self,
        config: TableConfig,
        *,
        state_dir: Path,
        clock: Callable[[], float] | None = None,
        wall_clock: Callable[[], float] = time.time,
    ) -> None:
        self.config = config
        self.state_dir = state_dir
        self.wall_clock = wall_clock
        self._clock = clock
        self.queue: asyncio.Queue[Event] = asyncio.Queue()
        self.ledger_thread = ThreadPoolExecutor(1, thread_name_prefix="croupier-ledger")
        self.ledger: Ledger | None = None
        self.machine: TableMachine | None = None
        self.shuffler: Any = None  # ShufflerLink, attached by the daemon
        self.gpio: Any = None  # drivers.gpio.table.GpioTable, attached by the daemon
        self.sign: Any = None  # controller.table.sign.Sign, attached by the daemon
        self.notifier: Any = None  # controller.table.sdnotify.Notifier
        self.surveillance: SurveillanceStore | None = None
        self.audit: ShuffleStats | None = None
        self.recovered: list[str] = []
        self.linked: dict[str, Any] = {}  # name -> controller.books.linked.client.LinkedPool
        self._linked_tasks: list[asyncio.Task[None]] = []
        self.last_settled: dict[str, Any] | None = None
        self._journal_failed = False
        self._last_lamps: dict[str, str] = {}
        self._sign_shown: Any = None
        self._key_on = False
        self.metrics = PipelineMetrics()

    # --- time and the ledger thread ----------------------------------------------------

    def now(self) -> float:
        return self._clock() if self._clock else asyncio.get_running_loop().time()

    async def in_ledger(self, fn: Callable[[], T]) -> T:
        return await asyncio.get_running_loop().run_in_executor(self.ledger_thread, fn)

    def post(self, event: Event) -> None:
        """Any component (thread-safe through the loop) hands the machine an event."""
        self.queue.put_nowait(event)

    # --- start-up ----------------------------------------------------------------------

    async def open(self) -> None:
        """Open the ledger (recovering interrupted rounds, MD-S2), run the power-up
        self-check, configure the pools, and build the machine."""
        cfg = self.config
        path = cfg.resolve_state(self.state_dir)
        path.parent.mkdir(parents=True, exist_ok=True)
        now = self.now()

        safeguards = Safeguards(
            simulated=cfg.shuffler.emulator is not None,
            table_id=cfg.table_id,
            key_path=Path(cfg.ledger_key) if cfg.ledger_key else None,
            witness_url=cfg.witness_url,
            witness_dsn=next((s.dsn for s in cfg.linked.values()), None),
        )
        closed: list[tuple[str, str]] = []  # conditions that keep the table closed

        def start() -> tuple[list[str], dict[str, tuple[int, int]], int]:
            opened = open_ledger(path, now, self.wall_clock, safeguards)
            self.ledger, status = opened.ledger, opened.status
            closed.extend(opened.conditions)
            may_open = status.table_may_open
            recovered = [v.round_id for v in self.ledger.recover(now)] if may_open else []
            pools = {}
            if may_open:
                for pool in cfg.pools.values():
                    self.ledger.configure_pool(pool, now)
            for name, (pool_cfg, state) in self.ledger.pools().items():
                if name in cfg.pools:
                    pools[pool_cfg.bet] = (state.current, pool_cfg.seed)
            return recovered, pools, self._last_round()

        recovered, pools, last = await self.in_ledger(start)
        if cfg.profile.game != "blackjack":
            warm_up_cached(self.state_dir)  # the evaluator's tables, before the first showdown
        self.recovered = recovered
        self.surveillance = SurveillanceStore(
            self.state_dir / "surveillance.sqlite3",
            keyring=self.ledger.db.keyring if self.ledger else None,
        )
        self.audit = self.surveillance.load_audit(AUDIT_POSITIONS)
        settings = MachineSettings(
            cfg.table_id,
            packet_timeout=cfg.shuffler.packet_timeout,
            settled_display=cfg.settled_display,
            limits=cfg.limits,
        )
        self.machine = TableMachine(cfg.profile, settings, next_round=last + 1)
        for bet, (amount, seed) in pools.items():
            self.post(PoolAmount(bet, amount, seed))
        for name, reason in closed:
            self.post(ConditionChanged(name, True, reason))
        for name, settings in cfg.linked.items():
            await self._join_linked(name, settings)

    async def _join_linked(self, name: str, settings: Any) -> None:
        """Connect a linked pool in the background; its link and amounts become events."""
        from controller.books.linked.client import LinkedPool
        from controller.books.linked.link import AmountChanged, LinkChanged

        pool = LinkedPool(settings, self.config.table_id, self.config.profile.progressive)
        self.linked[name] = pool
        bet = self.config.profile.progressive.bet
        self.post(ConditionChanged("progressive-link", True, f"joining linked pool {name}"))

        async def follow() -> None:
            async for event in pool.events():
                if isinstance(event, LinkChanged):
                    self.post(ConditionChanged("progressive-link", not event.up, event.reason))
                    if event.recovered:
                        self.post_journal(
                            "linked.recovered",
                            {"pool": name, "rounds": [v.round_id for v in event.recovered]},
                        )
                elif isinstance(event, AmountChanged):
                    self.post(PoolAmount(bet, event.amount, event.seed))

        await pool.start()
        self._linked_tasks.append(asyncio.create_task(follow(), name=f"linked-{name}"))

    def _last_round(self) -> int:
        prefix = f"{self.config.table_id}-"
        assert self.ledger is not None
        row = self.ledger.db.execute(
            "SELECT max(CAST(substr(round_id, ?) AS INTEGER)) FROM rounds WHERE round_id LIKE ?",
            (len(prefix) + 1, prefix + "%"),
        ).fetchone()
        return int(row[0] or 0)

    async def close(self) -> None:
        for task in self._linked_tasks:
            task.cancel()
        for pool in self.linked.values():
            with contextlib.suppress(Exception):
                await pool.close()
        if self.ledger is not None:
            await self.in_ledger(self.ledger.close)
            self.ledger = None
        self.ledger_thread.shutdown(wait=True)
        if self.surveillance is not None:
            self.surveillance.close()

    # --- the event loop ----------------------------------------------------------------

    async def run(self, stop: asyncio.Event) -> None:
        assert self.machine is not None
        self.post(ConditionChanged("startup", False))
        probe = asyncio.create_task(self._probe_ledger(), name="ledger-probe")
        try:
            await self._loop(stop)
        finally:
            probe.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await probe

    async def _probe_ledger(self) -> None:
        """While a failed commit keeps the table closed, try a journal entry now and then;
        once the disk takes writes again, the ledger condition clears."""
        while True:
            await asyncio.sleep(LEDGER_PROBE_SECONDS)
            machine = self.machine
            if machine is None or "ledger" not in machine.conditions:
                continue
            now = self.now()
            try:
                await self.in_ledger(lambda now=now: self._write_probe(now))
            except LedgerError:
                continue
            self._journal_failed = False
            self.post(ConditionChanged("ledger", False))

    def _write_probe(self, now: float) -> None:
        assert self.ledger is not None
        with self.ledger.transaction():
            self.ledger.journal.append("ledger-writable", {}, now)

    async def _loop(self, stop: asyncio.Event) -> None:
        """Events in order, a Tick at the machine's deadline. The queue's getter is never
        cancelled while the loop runs (a cancelled get can lose the event it just took):
        waiting with a timeout leaves it pending for the next turn."""
        assert self.machine is not None
        stopper = asyncio.ensure_future(stop.wait())
        getter: asyncio.Future[Event] | None = None
        try:
            while not stop.is_set():
                if getter is None:
                    getter = asyncio.ensure_future(self.queue.get())
                deadline = self.machine.next_deadline()
                timeout = None if deadline is None else max(0.0, deadline - self.now())
                done, _ = await asyncio.wait(
                    {getter, stopper}, timeout=timeout, return_when=asyncio.FIRST_COMPLETED
                )
                if stopper in done:
                    break
                event: Event = Tick()
                if getter in done:
                    event, getter = getter.result(), None
                try:
                    await self.handle(event)
                except Exception as exc:  # fail safe: nothing in an event may stop the table
                    self._fail_safe(event, exc)
        finally:
            stopper.cancel()
            if getter is not None:
                getter.cancel()

    def _fail_safe(self, event: Event, exc: Exception) -> None:
        """An event the table could not handle (a bug, or input that escaped the checks at
        the boundary): the round's state is in doubt, so close the table, journal it and keep
        serving. A restart voids the round in play (MD-S2) and opens the table again."""
        what = f"{type(event).__name__} failed: {type(exc).__name__}: {str(exc)[:200]}"
        log.error("table closed: %s", what)
        self.post(
            ConditionChanged(
                "internal",
                True,
                f"{what}; restart the daemon (the round in play is voided, MD-S2)",
            )
        )

    async def handle(self, event: Event) -> None:
        """One event through the machine, its effects carried out, outputs updated."""
        assert self.machine is not None
        before = self.machine.state
        started = self.now()
        effects = self.machine.handle(event, started)
        await self._carry_out(effects)
        self._follow(before)
        self.metrics.observe(event, before, self.machine.state, started, self.now())

    async def _carry_out(self, effects: list[Effect]) -> None:
        for effect in effects:
            log_effect(effect)  # the daemon's log (journald: ROUND=, TABLE=)
        ledger_effects = [e for e in effects if isinstance(e, LEDGER_EFFECTS)]
        if ledger_effects:
            await self._commit(ledger_effects)
        for effect in effects:
            if isinstance(effect, SHUFFLER_EFFECTS):
                if self.shuffler is None:
                    log.error("no shuffler link for %s", effect)
                else:
                    round_id = self.machine.round.round_id if self.machine.round else None
                    self.shuffler.submit(effect, round_id)

    async def _commit(self, effects: list[Effect]) -> None:
        """One ledger transaction for everything one event asked for; a linked pool's part
        of a money event goes to its store first (docs/linked-pools.md)."""
        assert self.ledger is not None
        ledger = self.ledger
        now = self.now()
        linked_notes: list[Journal] = []
        for e in effects:
            if isinstance(e, OpenRound | VoidRound | SettleRound) and self.linked:
                try:
                    linked_notes += await self._linked_step(e, now)
                except LinkDownError as exc:
                    if isinstance(e, VoidRound) and exc.queued:  # applied at reconnection
                        linked_notes.append(Journal("linked.void-queued", {"round": e.round_id}))
                        continue
                    self.post(
                        LedgerResult(
                            e.round_id,
                            MONEY_ACTIONS[type(e)],
                            False,
                            str(exc),
                            condition="progressive-link",
                        )
                    )
                    return
                except LedgerError as exc:
                    log.error("linked pool: %s", exc)
                    self.post(LedgerResult(e.round_id, MONEY_ACTIONS[type(e)], False, str(exc)))
                    return
        local = {p.bet: name for name, p in self.config.pools.items()}

        def write() -> list[Event]:
            results: list[Event] = []
            with ledger.transaction():
                for e in [*effects, *linked_notes]:
                    if isinstance(e, Journal):
                        ledger.journal.append(e.kind, e.data, now)
                    elif isinstance(e, OpenRound):
                        stakes = {s: {e.pool: v} for s, v in e.stakes.items()}
                        done = ledger.open_round(e.round_id, stakes if e.pool in local else {}, now)
                        results += [
                            LedgerResult(e.round_id, "open", True),
                            *self._amounts(done.pools),
                        ]
                    elif isinstance(e, VoidRound):
                        done = ledger.void_round(e.round_id, now, rule=e.rule, cause=e.reason)
                        results += [
                            LedgerResult(e.round_id, "void", True),
                            *self._amounts(done.pools),
                        ]
                    elif isinstance(e, SettleRound):
                        args = self._local_settlement(e.result, local)
                        done = ledger.settle_round(e.round_id, now, **args)
                        results += [
                            LedgerResult(e.round_id, "settle", True),
                            *self._amounts(done.pools),
                        ]
            return results

        try:
            results = await self.in_ledger(write)
        except LedgerError as exc:
            log.error("ledger: %s", exc)
            money = [e for e in effects if not isinstance(e, Journal)]
            if not money:
                self._journal_broken(str(exc))
            for e in money:
                self.post(LedgerResult(e.round_id, MONEY_ACTIONS[type(e)], False, str(exc)))
            return
        if self._journal_failed:
            self._journal_failed = False
            self.post(ConditionChanged("ledger", False))
        for event in results:
            self.post(event)
        for e in effects:
            if isinstance(e, SettleRound):
                self._archive(e)
            elif isinstance(e, VoidRound) and self.audit is not None:
                self.audit.forget_previous()  # the deck may be replaced: a new chain

    def _local_settlement(self, result: Any, local: dict[str, str]) -> dict[str, Any]:
        """The local ledger's settle arguments: a linked pool's wagers are its store's."""
        args = settle_arguments(result, local)
        linked_bets = {self.config.profile.progressive.bet} if self.linked else set()
        for per_seat in (args["stakes"], args["payouts"]):
            for wagers in per_seat.values():
                for bet in linked_bets:
                    wagers.pop(bet, None)
        return args

    async def _linked_step(self, effect: Effect, now: float) -> list[Journal]:
        """A money event's part for the linked pool; the store's answer, journaled locally
        so the table's own journal says what the store counted."""
        name, pool = next(iter(self.linked.items()))
        bet = self.config.profile.progressive.bet
        if isinstance(effect, OpenRound):
            if effect.pool != bet:
                return []
            # even without a linked stake: the client then knows the round needs no link
            done = await pool.open_round(
                effect.round_id, {s: {bet: v} for s, v in effect.stakes.items()}, now
            )
            return [
                Journal(
                    "linked.opened",
                    {
                        "pool": name,
                        "round": effect.round_id,
                        "seq": done.seq,
                        "amounts": done.pools,
                    },
                )
            ]
        if isinstance(effect, VoidRound):
            done = await pool.void_round(
                effect.round_id, now, rule=effect.rule, cause=effect.reason
            )
            return [
                Journal("linked.voided", {"pool": name, "round": effect.round_id, "seq": done.seq})
            ]
        args = settle_arguments(effect.result, {bet: name})  # hands without their cards
        done = await pool.settle_round(effect.round_id, now, hits=args["hits"], hands=args["hands"])
        paid = {str(seat): wagers for seat, wagers in done.paid.items()}
        return [
            Journal(
                "linked.settled",
                {
                    "pool": name,
                    "round": effect.round_id,
                    "seq": done.seq,
                    "paid": paid,
                    "jackpot": done.jackpot,
                },
            )
        ]

    def _journal_broken(self, error: str) -> None:
        """A transition could not be journaled: close the table until the ledger works."""
        if not self._journal_failed:
            self._journal_failed = True
            self.post(ConditionChanged("ledger", True, f"journal not writable: {error}"))

    def _amounts(self, amounts: dict[str, int]) -> list[Event]:
        events: list[Event] = []
        for name, amount in amounts.items():
            pool = self.config.pools.get(name)
            if pool is not None:
                events.append(PoolAmount(pool.bet, amount, pool.seed))
        return events

    def _archive(self, effect: SettleRound) -> None:
        """Keep the round for surveillance and feed the shuffle audit."""
        machine = self.machine
        assert machine is not None and self.surveillance is not None
        r = machine.round
        if r is None or r.round_id != effect.round_id or r.record is None:
            return
        result = effect.result.to_json()
        try:
            self.surveillance.add_round(
                r.round_id, self.config.profile.name, r.record, result, self.wall_clock()
            )
        except RoundReusedError as exc:
            self.post_journal("alarm.round-reused", {"round": r.round_id, "cause": str(exc)})
            self.post(ConditionChanged("round-reused", True, str(exc)))
        self.last_settled = {"round": r.round_id, "result": result}
        hand_formed = r.deal.needs_confirm  # a shoe's order is not one shuffle's
        if (
            self.audit is not None
            and hand_formed
            and self.audit.add_shuffle(r.deal.delivered_order())
        ):
            self.surveillance.save_audit(self.audit)
            report = self.audit.report()
            if report.alarm:
                self.post_journal(
                    "shuffle-audit-alarm",
                    {
                        "shuffles": report.shuffles,
                        "worst_p": report.worst_p,
                    },
                )

    def post_journal(self, kind: str, data: dict[str, Any]) -> None:
        """Journal something that is not a machine transition (an alarm, an audit)."""
        asyncio.get_running_loop().create_task(self._commit([Journal(kind, data)]))

    async def journal_now(self, kind: str, data: dict[str, Any]) -> None:
        """Journal and wait for the commit (at shutdown, before the ledger closes)."""
        await self._commit([Journal(kind, data)])

    # --- inputs from the GPIO table ----------------------------------------------------

    def is_current(self, round_id: str) -> bool:
        """Is ``round_id`` the round in play (its shuffler commands still wanted)?"""
        r = self.machine.round if self.machine else None
        return (
            r is not None
            and r.round_id == round_id
            and self.machine.state.value not in ("void", "settled", "jackpot")
        )

    def gpio_event(self, event: Any) -> None:
        """drivers.gpio.events -> table events (the machine decides what counts)."""
        from drivers.gpio import events as g

        if isinstance(event, g.StakePlaced):
            if event.accepted:
                self.post(StakeSensed(event.seat, True))
        elif isinstance(event, g.StakeRemoved):
            self.post(StakeSensed(event.seat, False))
        elif isinstance(event, g.SensorStuck | g.SensorChatter):
            self.post(SeatHealth(event.seat, True, event.describe()))
        elif isinstance(event, g.SeatCleared):
            self.post(SeatHealth(event.seat, False, event.describe()))
        elif isinstance(event, g.KeySwitched):
            self._key_on = event.on
            self.post_journal("technician-key", {"on": event.on})
        elif isinstance(event, g.ButtonPressed):
            excluded = (
                [s for s, st in self.gpio.seat_states().items() if st is g.SeatState.EXCLUDED]
                if self.gpio is not None
                else []
            )
            if event.button == "confirm" and self._key_on and excluded:
                # CONFIRM with the technician key on clears the excluded seats (docs/tableio.md)
                for seat in excluded:
                    self.gpio.clear(seat)
                self.post_journal("seats-cleared", {"seats": excluded, "by": "technician key"})
            else:
                self.post(ButtonPressed(event.button))

    # --- outputs -----------------------------------------------------------------------

    def _follow(self, before: TableState) -> None:
        machine = self.machine
        assert machine is not None
        state = machine.state
        if self.gpio is not None:
            with contextlib.suppress(Exception):
                self._follow_gpio(before, state)
        if self.sign is not None:
            try:
                wanted = sign_state(machine, self.config)
                if wanted != self._sign_shown:
                    self._sign_shown = wanted
                    self.sign.update(wanted)
            except Exception as exc:  # a sign problem must never stop the table
                log.error("sign: %s", exc)
        if state != before and self.notifier is not None:
            self.notifier.status(f"{state.value} {machine.round.round_id if machine.round else ''}")

    def _follow_gpio(self, before: TableState, state: TableState) -> None:
        machine = self.machine
        assert machine is not None
        if state == TableState.LOCKED and before == TableState.OPEN:
            self.gpio.lock()
        if state in (TableState.OPEN, TableState.CLOSED) and before not in (
            TableState.OPEN,
            TableState.CLOSED,
        ):
            self.gpio.round_boundary(void=before == TableState.VOID)
        if state == TableState.JACKPOT and before != TableState.JACKPOT and machine.last_result:
            for pool in machine.last_result.pools.values():
                for seat in pool.get("jackpot_seats", []):
                    self.gpio.set_winner(seat)
        for lamp, pattern in lamp_patterns(machine).items():
            if self._last_lamps.get(lamp) != pattern:
                self._last_lamps[lamp] = pattern
                self.gpio.set_status_lamp(lamp, pattern)

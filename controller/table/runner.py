"""The table at run time: the asyncio shell around the pure table core.

Theory of operation. :class:`~controller.table.core.TableLogic` decides everything; this shell
only moves events in and carries outputs out. Every source of activity posts an event into one
queue: the shuffler link, the GPIO sensors and console (:class:`drivers.gpio.table.GpioTable`
runs the sensor state machine's pins; the core holds that same pure object), the control
socket, the ledger's answers, the linked pools. A single consumer hands each event to the core
with the loop's clock as ``now`` (and a :class:`Tick` at the core's next deadline) and carries
out its outputs in order:

- :class:`LedgerWrite`: the linked pool's part first (PostgreSQL, docs/linked-pools.md), then
  ONE SQLite transaction on the ledger's own thread (SQLite connections belong to a thread);
  the outcome goes back into the queue as :class:`LedgerWritten`, so a failed commit (disk
  full) leaves nothing half-written and the core closes the table;
- :class:`ToShuffler` goes to :class:`ShufflerLink`, which runs commands one at a time;
- :class:`ArchiveRound` / :class:`DeckChainBroken` to the surveillance store and the shuffle
  audit; :class:`ShowSign` to the sign; :class:`ReportStatus` to systemd once the table is
  idle (the last one only);
- a round the ledger closed (settled or voided): its DEAL exchanges with the shuffler, raw
  frames and all, from the link's memory to the surveillance store, one transaction, for the
  evidence bundle (docs/evidence.md); a deck check's as it is made (:meth:`keep_deck_check`).
  The surveillance store's writes run on its own thread, in order, not waited for
  (:mod:`controller.table.surveillance_worker`: its crash semantics); a reused round ID or a
  failed archive comes back as an event;
- :class:`AskWitness`: the ledger's witness, silent at power-up, is asked again in a task of
  its own (off the loop and off the ledger's thread: it may take its timeout), the head it
  saw compared on the ledger's thread; the answer goes back as :class:`WitnessChecked`.

Nothing here decides what the table does; a condition that appears (a failing lamp, a ledger
that does not commit) is logged as the core reports it.
"""

from __future__ import annotations

import asyncio
import functools
import logging
import sqlite3
import time
from collections import deque
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from enum import Enum
from pathlib import Path
from typing import Any, TypeVar

from controller.books.audit.shuffle_audit import AuditReport, ShuffleStats
from controller.books.evidence import narrow_evidence
from controller.books.ledger.errors import LedgerError
from controller.books.ledger.powerup import PendingWitness, unanswered
from controller.books.ledger.rounds import settle_arguments
from controller.books.ledger.store import Ledger
from controller.books.ledger.witness import WitnessError
from controller.books.linked.errors import LinkDownError
from controller.books.surveillance import RoundReusedError, SurveillanceError, SurveillanceStore
from controller.table.alerts import AlertBook, conditions_of
from controller.table.core import Input, TableLogic
from controller.table.evaluator_cache import warm_up_cached
from controller.table.events import (
    MONEY_ACTIONS,
    AppendJournal,
    ArchiveRound,
    AskWitness,
    Condition,
    ConditionChanged,
    DeckChainBroken,
    JournalNote,
    KeepExclusions,
    LedgerAction,
    LedgerWrite,
    LedgerWritten,
    MoneyEffect,
    OpenRound,
    Output,
    PacketDelivered,
    PoolAmount,
    Refused,
    ReportStatus,
    RoundsRecorded,
    ShowSign,
    Tick,
    ToShuffler,
    VoidRound,
    WitnessChecked,
)
from controller.table.exclusions import exclusions_path, write_exclusions
from controller.table.journald import log_effect
from controller.table.ledger_apply import apply_write
from controller.table.link_evidence import capped
from controller.table.machine import TableMachine, TableState
from controller.table.outputs import sign_state
from controller.table.powerup import Books, open_books, safeguards_of
from controller.table.surveillance_worker import SurveillanceWorker
from controller.table.tableconfig import TableConfig
from display.scenes import SignState

log = logging.getLogger(__name__)
T = TypeVar("T")
LATER_LIMIT = 64  # jobs that wait for an idle table before they start anyway
BURST = 16  # events the table takes straight from its queue before the event loop gets a turn
# Seconds a control command waits for the table to take its event (TableRunner.take): over a
# linked store's default operation_timeout (5 s), the longest one event usually takes, and
# under the CLI's 10 s (a command waits for one event at most)
TAKE_WAIT = 8.0


class Handover(Enum):
    """What became of an event handed to the table with :meth:`TableRunner.take`."""

    TAKEN = "taken"  # the core has taken it
    QUEUED = "queued"  # still waiting after TAKE_WAIT: taken in its turn
    STOPPED = "stopped"  # the table stopped first: never handled


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
        self, event: Input, before: TableState, after: TableState, started: float, done: float
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
        self.queue: asyncio.Queue[Input] = asyncio.Queue()
        self.ledger_thread = ThreadPoolExecutor(1, thread_name_prefix="croupier-ledger")
        self.ledger: Ledger | None = None
        self.logic: TableLogic | None = None
        self.shuffler: Any = None  # ShufflerLink, attached by the daemon
        self.gpio: Any = None  # drivers.gpio.table.GpioTable, given to open()
        self.sign: Any = None  # controller.table.sign.Sign, attached by the daemon
        self.notifier: Any = None  # controller.table.sdnotify.Notifier
        self.surveillance: SurveillanceWorker | None = None
        self.audit: ShuffleStats | None = None
        self.recovered: list[str] = []
        self.linked: dict[str, Any] = {}  # name -> controller.books.linked.client.LinkedPool
        self._linked_tasks: list[asyncio.Task[None]] = []
        self.witness: PendingWitness | None = None  # silent at power-up: asked again
        self._witness_task: asyncio.Task[None] | None = None
        self.last_settled: dict[str, Any] | None = None
        self.metrics = PipelineMetrics()
        self.alerts = AlertBook()  # for the pit (controller.table.alerts)
        self.audit_alarm = False
        self._behind: set[asyncio.Future[dict[str, int]]] = set()  # journal writes under way
        self._later: list[Callable[[], None]] = []  # work that waits until the table is idle
        self._warm = False  # the evaluator's tables are in (warm_up)
        self._status: str | None = None  # systemd's status line, not yet sent (_send_status)
        self._takers: dict[int, asyncio.Future[Handover | Refused]] = {}  # id(event) -> take()
        self._stopped = False  # the run loop has ended: nothing is taken any more

    @property
    def machine(self) -> TableMachine | None:
        return self.logic.machine if self.logic is not None else None

    # --- time and the ledger thread ----------------------------------------------------

    def now(self) -> float:
        return self._clock() if self._clock else asyncio.get_running_loop().time()

    async def in_ledger(self, fn: Callable[[], T]) -> T:
        """Run ``fn`` on the ledger's thread after every transaction given before, the
        journal entries still waiting for an idle table included (a read sees them)."""
        self._run_later()
        return await asyncio.get_running_loop().run_in_executor(self.ledger_thread, fn)

    async def in_surveillance(self, fn: Callable[[SurveillanceStore], T]) -> T:
        """Run ``fn`` on the surveillance store's thread after every job given before, those
        still waiting for an idle table included (``round show last`` sees the round just
        settled)."""
        assert self.surveillance is not None
        self._run_later()
        return await self.surveillance.call(fn)

    async def idle(self) -> None:
        """Wait until the journal writes and the surveillance store's jobs given so far are
        done, and their answers posted (tests and tools that read the files afterwards)."""
        self._run_later()
        while self._behind:
            await asyncio.wait(set(self._behind))
        if self.surveillance is not None:
            await self.surveillance.call(lambda store: None)
        await asyncio.sleep(0)  # the answers' callbacks

    def _when_idle(self, job: Callable[[], None]) -> None:
        """Start ``job`` once the table has handled the events waiting (or before the next
        money commit, or when many wait): work that must not share the CPU with a round's
        pipeline (on a Pi the journal entry of a state change and the surveillance writes,
        run concurrently on their threads, took CPU the settle path needed)."""
        self._later.append(job)
        if len(self._later) >= LATER_LIMIT:
            self._run_later()

    def _run_later(self) -> None:
        jobs, self._later = self._later, []
        for job in jobs:
            job()

    def post(self, event: Input) -> None:
        """Any component (thread-safe through the loop) hands the table an event."""
        self.queue.put_nowait(event)

    async def take(self, event: Input) -> Handover | Refused:
        """Hand the table an event and wait until the core has taken it: the machine's state
        is the one the event led to when this returns TAKEN. What the event set going (a
        linked pool's step, a commit, a shuffler command, the lamps) may still be under way.
        A control command that answers after this is seen in its state by the caller's next
        request (``round confirm`` then ``status``), however the event loop orders its
        callbacks. A :class:`Refused`: the core did not take it, and says why (journaled: a
        stake after LOCK, a seat not in the round...). QUEUED: the table was busy for longer
        than TAKE_WAIT (a linked pool's store that does not answer); the event is taken in its
        turn. STOPPED: the table stopped before taking it; it is never handled."""
        if self._stopped:
            return Handover.STOPPED
        taken: asyncio.Future[Handover | Refused] = asyncio.get_running_loop().create_future()
        key = id(event)  # unique while the event waits in the queue
        self._takers[key] = taken
        self.post(event)
        try:
            await asyncio.wait((taken,), timeout=TAKE_WAIT)
        finally:
            self._takers.pop(key, None)
        return taken.result() if taken.done() else Handover.QUEUED

    def _taken(self, event: Input, refused: Refused | None = None) -> None:
        """The core has taken ``event`` (or failed on it, or ``refused`` it): release its
        :meth:`take`."""
        taken = self._takers.pop(id(event), None)
        if taken is not None and not taken.done():
            taken.set_result(refused or Handover.TAKEN)

    def _stop_taking(self) -> None:
        """The run loop has ended: the events still queued are never handled."""
        self._stopped = True
        for taken in self._takers.values():
            if not taken.done():
                taken.set_result(Handover.STOPPED)
        self._takers.clear()

    def post_journal(self, kind: str, data: dict[str, Any]) -> None:
        """Journal something that is not a machine transition (an access, an alarm)."""
        self.post(JournalNote(kind, data))

    async def journal_now(self, kind: str, data: dict[str, Any]) -> None:
        """Journal and wait for the commit: at shutdown, once the event loop has stopped and
        before the ledger closes (the refusals still counted by the control socket)."""
        ledger, now = self.ledger, self.now()
        if ledger is None:
            return

        def write() -> None:
            with ledger.transaction():
                ledger.journal.append(kind, data, now)

        await self.in_ledger(write)

    # --- start-up ----------------------------------------------------------------------

    async def open(self, gpio: Any = None) -> None:
        """Open the ledger (recovering interrupted rounds, MD-S2), run the power-up
        self-check, configure the pools, and build the table core (on ``gpio``'s sensor
        state machine, a started :class:`drivers.gpio.table.GpioTable`, if the table has
        one)."""
        cfg = self.config
        path = cfg.resolve_state(self.state_dir)
        path.parent.mkdir(parents=True, exist_ok=True)
        now = self.now()

        safeguards = safeguards_of(cfg)

        def start() -> Books:
            return open_books(cfg, path, now, self.wall_clock, safeguards)

        books = await self.in_ledger(start)
        self.ledger, self.witness = books.ledger, books.witness
        recovered, pools, last, closed = (
            books.recovered,
            books.pools,
            books.last_round,
            books.conditions,
        )
        self.recovered = recovered
        keyring = self.ledger.db.keyring if self.ledger else None
        store_path = self.state_dir / "surveillance.sqlite3"
        self.surveillance = SurveillanceWorker(
            lambda: SurveillanceStore(store_path, keyring=keyring)
        )
        await self.surveillance.start()
        try:  # bundles from before name cards the socket's group could read (B15)
            narrow_evidence(self.state_dir)
        except OSError as exc:
            log.warning("the evidence bundles stay readable by others: %s", exc)
        self.audit = await self.surveillance.call(lambda s: s.load_audit(AUDIT_POSITIONS))
        self.gpio = gpio
        sensors = gpio.core if gpio is not None else None
        self.logic = TableLogic(cfg, next_round=last + 1, sensors=sensors)
        for bet, (amount, seed) in pools.items():
            self.post(PoolAmount(bet, amount, seed))
        for name, reason in closed:
            self.post(ConditionChanged(Condition(name), True, reason))
        for name, settings in cfg.linked.items():
            await self._join_linked(name, settings)

    async def warm_up(self) -> None:
        """The poker evaluator's tables (from the state directory's cache: tens of ms here,
        a few hundred on a Pi), before the first showdown. The daemon does this after READY
        (:meth:`run`): the table is closed (``startup``) until it is done. Without it the
        first evaluation would build them (about 1.5 s here). Once per runner: a harness that
        called it before :meth:`run` is not made to wait again."""
        if self.config.profile.game != "blackjack" and not self._warm:
            await asyncio.to_thread(warm_up_cached, self.state_dir)
        self._warm = True

    async def _join_linked(self, name: str, settings: Any) -> None:
        """Connect a linked pool in the background; its link and amounts become events."""
        from controller.books.linked.client import LinkedPool
        from controller.books.linked.link import AmountChanged, LinkChanged

        pool = LinkedPool(settings, self.config.table_id, self.config.profile.progressive)
        self.linked[name] = pool
        bet = self.config.profile.progressive.bet
        joining = f"joining linked pool {name}"
        self.post(ConditionChanged(Condition.PROGRESSIVE_LINK, True, joining))

        async def follow() -> None:
            async for event in pool.events():
                if isinstance(event, LinkChanged):
                    if event.up:  # before the link's condition clears
                        self.post(RoundsRecorded(event.latest_round, f"linked pool {name}"))
                    link = ConditionChanged(Condition.PROGRESSIVE_LINK, not event.up, event.reason)
                    self.post(link)
                    if event.recovered:
                        self.post_journal(
                            "linked.recovered",
                            {"pool": name, "rounds": [v.round_id for v in event.recovered]},
                        )
                elif isinstance(event, AmountChanged):
                    self.post(PoolAmount(bet, event.amount, event.seed))

        await pool.start()
        self._linked_tasks.append(asyncio.create_task(follow(), name=f"linked-{name}"))

    async def close(self) -> None:
        self._run_later()  # queued journal entries and surveillance writes: nothing is lost
        for task in [*self._linked_tasks, self._witness_task]:
            if task is not None:
                task.cancel()
        if self.witness is not None:
            self.witness.close()
        for pool in self.linked.values():
            try:
                await pool.close()
            except Exception as exc:  # closing must go on: the ledger still has to close
                log.warning("linked pool did not close cleanly: %s", exc)
        if self.ledger is not None:
            await self.in_ledger(self.ledger.close)
            self.ledger = None
        self.ledger_thread.shutdown(wait=True)
        if self.surveillance is not None:  # its queued writes first: nothing is lost
            await asyncio.to_thread(self.surveillance.close)

    # --- the event loop ----------------------------------------------------------------

    async def run(self, stop: asyncio.Event) -> None:
        """Events in order, a Tick at the core's deadline. The queue's getter is never
        cancelled while the loop runs (a cancelled get can lose the event it just took):
        waiting with a timeout leaves it pending for the next turn."""
        logic = self.logic
        assert logic is not None
        await self.warm_up()
        self.post(ConditionChanged(Condition.STARTUP, False))
        stopper = asyncio.ensure_future(stop.wait())
        getter: asyncio.Future[Input] | None = None
        burst = 0  # events taken straight from the queue since the loop last had a turn
        try:
            while not stop.is_set():
                event: Input = Tick()
                if getter is None and burst < BURST and not self.queue.empty():
                    # waiting already: no task and no wait (a round's events come in bursts;
                    # each wait cost the Pi's CPU a task and three turns of the loop)
                    event, burst = self.queue.get_nowait(), burst + 1
                else:  # the loop has its turn: this event starts the next burst
                    burst = 1
                    if getter is None:
                        getter = asyncio.ensure_future(self.queue.get())
                    deadline = logic.next_deadline()
                    timeout = None if deadline is None else max(0.0, deadline - self.now())
                    done, _ = await asyncio.wait(
                        {getter, stopper}, timeout=timeout, return_when=asyncio.FIRST_COMPLETED
                    )
                    if stopper in done:
                        break
                    if getter in done:
                        event, getter = getter.result(), None
                try:
                    await self.handle(event)
                    if self.queue.empty():
                        self._run_later()
                        self._send_status()
                except Exception as exc:  # fail safe: nothing in an event may stop the table
                    self._fail_safe(event, exc)
                finally:
                    self._taken(event)
        finally:
            stopper.cancel()
            if getter is not None:
                getter.cancel()
            self._stop_taking()

    def _send_status(self) -> None:
        """systemd's status line (``systemctl status``), once the table is idle: the last
        state the core reported, one datagram however many states it went through meanwhile
        (each had cost the settle path a system call that wakes systemd)."""
        if self._status is not None and self.notifier is not None:
            self.notifier.status(self._status)
        self._status = None

    def _fail_safe(self, event: Input, exc: Exception) -> None:
        """An event the table could not handle (a bug, or input that escaped the checks at
        the boundary): the round's state is in doubt, so close the table, journal it and keep
        serving. A restart voids the round in play (MD-S2) and opens the table again."""
        if isinstance(event, ConditionChanged) and event.name is Condition.INTERNAL:
            log.error("table closed: %s failed: %s", type(event).__name__, exc)
            return  # closing the table failed too: posting it again would only loop
        self._close_internal(f"{type(event).__name__} failed", exc)

    def _close_internal(self, what: str, exc: BaseException) -> None:
        """Close the table for a failure of its own (``what`` failed with ``exc``)."""
        what = f"{what}: {type(exc).__name__}: {str(exc)[:200]}"
        log.error("table closed: %s", what)
        self.post(
            ConditionChanged(
                Condition.INTERNAL,
                True,
                f"{what}; restart the daemon (the round in play is voided, MD-S2)",
            )
        )

    async def handle(self, event: Input) -> None:
        """One event through the core, its outputs carried out in order."""
        logic = self.logic
        assert logic is not None
        before = logic.machine.state
        started = self.now()
        outputs = logic.handle(event, started)
        refusals = [o for o in outputs if isinstance(o, Refused)]
        self._taken(event, refusals[0] if refusals else None)
        for output in outputs:
            await self._carry_out(output)
        if self.gpio is not None:
            self.gpio.refresh()  # the core changed seats or lamps: the pins follow
        self.metrics.observe(event, before, logic.machine.state, started, self.now())
        self.alerts.update(conditions_of(logic.machine, self.audit_alarm), self.wall_clock())

    async def _carry_out(self, output: Output) -> None:
        if isinstance(output, LedgerWrite):
            for item in output.items:
                log_effect(item)  # the daemon's log (journald: ROUND=, TABLE=)
            if not output.money:
                self._write_behind(output)
                return
            written = await self._write(output)
            self.post(written)
            if written.ok:
                for round_id, action in written.money:
                    if action is not LedgerAction.OPEN:
                        self._keep_frames(round_id)
        elif isinstance(output, ToShuffler):
            if self.shuffler is None:
                log.error("no shuffler link for %s", output.command)
            else:
                self.shuffler.submit(output.command, output.round_id)
        elif isinstance(output, ArchiveRound):
            self._archive(output)
        elif isinstance(output, DeckChainBroken):
            if self.audit is not None:
                self.audit.forget_previous()
        elif isinstance(output, ShowSign):
            self._show(output.state)
        elif isinstance(output, KeepExclusions):
            path = exclusions_path(self.state_dir)
            try:  # on the I/O thread, in order: an fsync on an SD card is not the loop's
                await self.in_ledger(functools.partial(write_exclusions, path, output.seats))
            except OSError as exc:
                log.error("the excluded seats are not kept across a restart: %s", exc)
        elif isinstance(output, ReportStatus) and self.notifier is not None:
            self._status = output.text  # sent once the table is idle (_send_status)
        elif isinstance(output, AskWitness) and self.witness is not None:
            self._witness_task = asyncio.create_task(self._ask_witness(), name="witness")

    async def _ask_witness(self) -> None:
        """Ask the witness that did not answer; compare the head it saw (see the module
        docstring). Once it answered it is the ledger's publisher's (or closed)."""
        pending = self.witness
        assert pending is not None
        try:
            seen = await asyncio.get_running_loop().run_in_executor(None, pending.ask)
        except WitnessError as exc:
            self.post(WitnessChecked(False, unanswered(exc)))
            return
        now = self.now()
        found = await self.in_ledger(lambda: pending.compare(seen, now))
        self.witness = None
        rollback = found[0][1] if found else ""
        log.info("the ledger's witness answered: %s", rollback or "the ledger holds its head")
        self.post(WitnessChecked(True, rollback=rollback))

    # --- the ledger ----------------------------------------------------------------------

    async def _write(self, request: LedgerWrite) -> LedgerWritten:
        """One ledger transaction for everything one event asked for; a linked pool's part
        of a money event goes to its store first (docs/linked-pools.md)."""
        self._run_later()  # the journal entries queued before it go first
        now = self.now()
        linked_notes: list[AppendJournal] = []
        for item in request.items:
            if isinstance(item, AppendJournal) or not self.linked:
                continue
            try:
                linked_notes += await self._linked_step(item, now)
            except LinkDownError as exc:
                if isinstance(item, VoidRound) and exc.queued:  # applied at reconnection
                    linked_notes.append(
                        AppendJournal("linked.void-queued", {"round": item.round_id})
                    )
                    continue
                failed = ((item.round_id, MONEY_ACTIONS[type(item)]),)
                return LedgerWritten(failed, False, str(exc), Condition.PROGRESSIVE_LINK)
            except LedgerError as exc:
                log.error("linked pool: %s", exc)
                failed = ((item.round_id, MONEY_ACTIONS[type(item)]),)
                return LedgerWritten(failed, False, str(exc))
        done = self._submit(request, now, linked_notes)
        await asyncio.wait((done,))
        return self._answer(request, done)

    def _submit(
        self, request: LedgerWrite, now: float, linked_notes: list[AppendJournal]
    ) -> asyncio.Future[dict[str, int]]:
        """Queue the transaction on the ledger's thread now: it takes its place in the order
        of the ledger's transactions here, whenever its answer is awaited."""
        assert self.ledger is not None
        ledger = self.ledger
        local = {p.bet: name for name, p in self.config.pools.items()}
        linked_bet = self.config.profile.progressive.bet if self.linked else None

        def write() -> dict[str, int]:
            return apply_write(
                ledger, request, now, local, extra=linked_notes, linked_bet=linked_bet
            )

        return asyncio.get_running_loop().run_in_executor(self.ledger_thread, write)

    @staticmethod
    def _answer(request: LedgerWrite, done: asyncio.Future[dict[str, int]]) -> LedgerWritten:
        """The :class:`LedgerWritten` of a finished transaction (a failure of the ledger is
        an answer; anything else is raised)."""
        try:
            amounts = done.result()
        except LedgerError as exc:
            if not request.probe:
                log.error("ledger: %s", exc)
            return LedgerWritten(request.money, False, str(exc), probe=request.probe)
        return LedgerWritten(
            request.money, True, amounts=tuple(amounts.items()), probe=request.probe
        )

    def _write_behind(self, request: LedgerWrite) -> None:
        """A transaction of journal entries only (a state change, a note, a probe), not
        waited for: given to the ledger's thread once the table is idle, or before the next
        money commit (the journal keeps the core's order); its answer comes back as an event
        (a failure closes the table as before, a few events later). Money is never written
        this way: the table waits for every commit of money (MD-S2, the settle path)."""
        self._when_idle(functools.partial(self._submit_behind, request, self.now()))

    def _submit_behind(self, request: LedgerWrite, now: float) -> None:
        done = self._submit(request, now, [])
        self._behind.add(done)

        def answered(future: asyncio.Future[dict[str, int]]) -> None:
            self._behind.discard(future)
            if future.cancelled():  # the loop is going away
                return
            try:
                self.post(self._answer(request, future))
            except Exception as exc:  # not a ledger error: a bug, as in an event
                self._close_internal("a journal write", exc)

        done.add_done_callback(answered)

    async def _linked_step(self, effect: MoneyEffect, now: float) -> list[AppendJournal]:
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
                AppendJournal(
                    "linked.opened",
                    {
                        "pool": name,
                        "round": effect.round_id,
                        "seq": done.seq,
                        "amounts": done.pools,
                        # the accepted stakes the store shares a hit by (CH-9): the local
                        # ledger's rounds hold no linked stake, its journal does
                        "stakes": {str(s): v for s, v in sorted(effect.stakes.items())},
                    },
                )
            ]
        if isinstance(effect, VoidRound):
            done = await pool.void_round(
                effect.round_id, now, rule=effect.rule, cause=effect.reason, stakes=effect.stakes
            )
            return [
                AppendJournal(
                    "linked.voided", {"pool": name, "round": effect.round_id, "seq": done.seq}
                )
            ]
        args = settle_arguments(effect.result, {bet: name})  # hands without their cards
        done = await pool.settle_round(effect.round_id, now, hits=args["hits"], hands=args["hands"])
        paid = {str(seat): wagers for seat, wagers in done.paid.items()}
        return [
            AppendJournal(
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

    def _store_later(
        self,
        job: Callable[[SurveillanceStore], Any],
        when_failed: Callable[[BaseException], None],
        what: str,
        when_done: Callable[[Any], None] | None = None,
    ) -> None:
        """A surveillance store job (:meth:`SurveillanceWorker.post`), given to its thread
        once the table is idle (:meth:`_when_idle`)."""
        worker = self.surveillance
        assert worker is not None
        self._when_idle(lambda: worker.post(job, when_failed, what, when_done))

    def _archive(self, archive: ArchiveRound) -> None:
        """Keep the round for surveillance and feed the shuffle audit (the store's commit and
        the audit's tests on the store's thread, once the table is idle: the table does not
        wait for them)."""
        assert self.surveillance is not None
        result = archive.result.to_json()
        order = archive.shuffle_order
        audit = self.audit
        if audit is not None and (order is None or not audit.add_shuffle(list(order))):
            audit = None  # nothing new to save
        round_id, profile, wall = archive.round_id, self.config.profile.name, self.wall_clock()
        saved = audit.copy() if audit is not None else None  # the next round counts on
        self._store_later(
            lambda s: s.add_round(round_id, profile, archive.record, result, wall, audit=saved),
            lambda exc: self._archive_failed(round_id, exc),
            f"round {round_id} is not kept for surveillance",
        )
        self.last_settled = {"round": archive.round_id, "result": result}
        if saved is not None:  # the chi-square tests (~1 ms here) after the commit
            self._store_later(
                lambda s: saved.report(),
                lambda exc: self._close_internal("the shuffle audit", exc),
                "the shuffle audit",
                when_done=self._audit_reported,
            )

    def _audit_reported(self, report: AuditReport) -> None:
        self.audit_alarm = report.alarm
        if report.alarm:
            self.post_journal(
                "shuffle-audit-alarm", {"shuffles": report.shuffles, "worst_p": report.worst_p}
            )

    def _archive_failed(self, round_id: str, exc: BaseException) -> None:
        """A round the store did not keep: a reused round ID is an alarm that closes the
        table; any other failure closes it as an event that failed would (:meth:`_fail_safe`):
        the table must not go on dealing rounds that surveillance cannot replay."""
        if isinstance(exc, RoundReusedError):
            self.post_journal("alarm.round-reused", {"round": round_id, "cause": str(exc)})
            self.post(ConditionChanged(Condition.ROUND_REUSED, True, str(exc)))
        else:
            self._close_internal(f"keeping round {round_id} for surveillance", exc)

    def _keep_frames(self, round_id: str) -> None:
        """A closed round's DEAL exchanges from the link's memory to the surveillance store
        (at most MAX_ROUND_FRAMES frames, the rest counted; evidence never stops a table: a
        failure is logged)."""
        link = self.shuffler
        if link is None or self.surveillance is None:
            return
        exchanges = link.exchanges_of(round_id)
        dropped = capped(exchanges)
        shuffler, wall = link.identity_json(), self.wall_clock()
        self._store_later(
            lambda s: s.add_deal_frames(round_id, shuffler, exchanges, dropped, wall),
            self._evidence_failed,
            f"the deal frames of round {round_id} are not kept",
        )

    def keep_deck_check(self, exchange: dict[str, Any]) -> None:
        """A deck check's exchange (the shuffler link's) to the surveillance store (a failure
        is logged)."""
        if self.surveillance is None:
            return
        wall = exchange["wall"]  # when the reply arrived, on the link's wall clock
        at = self.wall_clock() if wall is None else wall
        self.surveillance.post(
            lambda s: s.add_deck_check(exchange, at),
            self._evidence_failed,
            "a deck check is not kept",
        )

    def _evidence_failed(self, exc: BaseException) -> None:
        """Evidence never stops a table: a failure of the store (logged by the worker) is
        borne; anything else is a bug, and closes the table as a bug in an event does."""
        if not isinstance(exc, SurveillanceError | OSError | sqlite3.Error):
            self._close_internal("keeping evidence", exc)

    def attach_sign(self, sign: Any) -> None:
        """The sign (:class:`controller.table.sign.Sign`), started after the table: it shows
        the table's state at once, then every change the core reports."""
        self.sign = sign
        if self.logic is not None:
            self._show(sign_state(self.logic.machine, self.config))

    def _show(self, state: SignState) -> None:
        if self.sign is not None:
            try:
                self.sign.update(state)
            except Exception as exc:  # a sign problem must never stop the table
                log.error("sign: %s", exc)

    def is_current(self, round_id: str) -> bool:
        """Is ``round_id`` the round in play (its shuffler commands still wanted)?"""
        return self.logic is not None and self.logic.is_current(round_id)

    def gpio_event(self, event: Any) -> None:
        """A sensor or console event from the GPIO table (the core translates it)."""
        self.post(event)

    def clear_seat(self, seat: int) -> bool:
        """A technician clears an excluded seat; see :meth:`TableLogic.clear_seat`."""
        assert self.logic is not None
        cleared = self.logic.clear_seat(seat, self.now())
        if self.gpio is not None:
            self.gpio.refresh()
        return cleared

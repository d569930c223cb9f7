"""The table's client of a linked pool: :class:`LinkedPool`, for the daemon's event loop.

Theory of operation
-------------------
A supervisor task keeps two connections to the store: a *listener* (autocommit, ``LISTEN`` on
the pool's channel) and a *writer* (``SERIALIZABLE`` money transactions, one at a time). On
connecting it registers the table with the pool (``join``), checks that the pool pays by the
table's profile rules, settles what the table owes the store (openings in doubt, voids owed,
and at the first join the rounds an earlier run left open: MD-S2), re-reads the amount once,
and only then reports the link up. It then waits for notifications, which arrive at each
commit by any table, in commit order, with the amount and the journal sequence number; when
none comes for ``heartbeat`` seconds it checks both connections with a trivial query. Nothing
polls the amount.

Any connection failure, a check or money transaction without an answer within
``operation_timeout``, or a server shutdown marks the link down at once (``link_up`` false,
a :class:`LinkChanged` event), drops both connections and reconnects with jittered exponential
backoff (``LinkState``). Money calls made while the link is down fail at once with
:class:`LinkDownError`; nothing they carried is counted:

- ``open_round`` refused: no linked stake is taken. If the link failed *during* the opening,
  its outcome is unknown: the opening is "in doubt" and will be abandoned (voided if it did
  commit) before the link is reported up again, so the table treats its linked stakes as not
  taken.
- ``void_round``: the void is owed and applied when the link is back (``queued=True``).
- ``settle_round``: ask again with the same arguments once the link is up (idempotent).

Results and events name the pool as the table configuration does (``settings.name``); the
store's name (``settings.pool``) appears in messages.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import socket
from collections import deque
from collections.abc import AsyncIterator, Awaitable, Callable, Coroutine, Mapping
from typing import Any, TypeVar

import psycopg
from psycopg import AsyncConnection, sql

from controller import __version__
from controller.books.ledger import inputs
from controller.books.ledger.errors import (
    BadRoundError,
    LedgerError,
    RoundConflictError,
    RoundStateError,
)
from controller.books.ledger.records import RoundOpened, RoundSettled, RoundVoided
from controller.books.linked import store
from controller.books.linked.admin import application_name
from controller.books.linked.errors import LinkDownError, LinkedStoreError
from controller.books.linked.link import (
    AmountChanged,
    AmountTracker,
    LinkChanged,
    LinkEvent,
    LinkState,
)
from controller.books.linked.schema import require_current
from controller.books.linked.settings import LinkedSettings, table_id_problem
from controller.engine.pools.config import PoolConfig
from controller.engine.profiles import Progressive
from controller.validation import ConfigError, DocumentLimits, loads_json, money

T = TypeVar("T")
log = logging.getLogger(__name__)
NOTIFY_LIMITS = DocumentLimits(max_bytes=8000, max_depth=4)  # PostgreSQL's payload limit

QUEUE_LIMIT = 256  # events kept per subscriber that does not keep up (oldest dropped)
UNSTAKED_MEMORY = 64  # recent rounds opened without a stake on the pool
RULE_FIELDS = (
    "bet",
    "stake",
    "award",
    "share_scope",
    "multiple_hits",
    "envy_bonus",
    "envy_to_winner",
    "paytable",
)


def one_line(exc: BaseException) -> str:
    text = " ".join(str(exc).split())
    return text or type(exc).__name__


def rule_differences(pool: PoolConfig, rules: Progressive) -> list[str]:
    """How the pool's rules differ from the table profile's (a table must pay as the pool)."""
    return [
        f"{name} is {getattr(pool.rules, name)!r} in the store, {getattr(rules, name)!r} here"
        for name in RULE_FIELDS
        if getattr(pool.rules, name) != getattr(rules, name)
    ]


class LinkedPool:
    """One linked pool as a table sees it (see the module docstring).

    ``rules`` are the table profile's progressive rules: the pool must pay by them (bet, unit
    stake, pay table, award policy, envy), or the link stays down with the differences as
    the reason. ``recover``: at the first join, void (MD-S2) every round of this table that
    an earlier run left open in the store; they come with the first ``LinkChanged(up=True)``.
    """

    def __init__(
        self,
        settings: LinkedSettings,
        table: str,
        rules: Progressive,
        *,
        recover: bool = True,
        state: LinkState | None = None,
    ) -> None:
        problem = table_id_problem(table)
        if problem:
            raise LinkedStoreError(problem)
        self.settings = settings
        self.table = table
        self.rules = rules
        self.name = settings.name
        self.pool = settings.pool
        self.config: PoolConfig | None = None  # the pool's configuration, once joined
        self._link = state or LinkState(settings.reconnect_min, settings.reconnect_max)
        self._amounts = AmountTracker(settings.name)
        self._recover = recover
        self._client = f"croupier {__version__} pid {os.getpid()} on {socket.gethostname()}"
        self._writer: AsyncConnection | None = None
        self._listener: AsyncConnection | None = None
        self._tx: store.PoolTransactions | None = None
        self._write_lock = asyncio.Lock()
        self._busy_writer: asyncio.Task | None = None  # a money task that outlived its timeout
        self._up = asyncio.Event()
        self._subscribers: set[asyncio.Queue[LinkEvent]] = set()
        self._unstaked: deque[str] = deque(maxlen=UNSTAKED_MEMORY)
        self._supervisor: asyncio.Task | None = None
        self._listen_task: asyncio.Task | None = None
        self._background: set[asyncio.Task] = set()
        self._closing = False

    # -- life cycle -----------------------------------------------------------------------------

    async def start(self) -> None:
        """Start connecting (in the background: the link may well be down at start-up)."""
        if self._supervisor is None:
            self._supervisor = asyncio.create_task(self._supervise(), name=f"linked {self.name}")

    async def close(self) -> None:
        self._closing = True
        if self._supervisor is not None:
            self._supervisor.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._supervisor
        self._lose("the table closed the link")
        await self._drop()
        if self._background:
            await asyncio.wait(self._background, timeout=self.settings.operation_timeout)

    async def __aenter__(self) -> LinkedPool:
        await self.start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    @property
    def link_up(self) -> bool:
        return self._link.up

    @property
    def link_reason(self) -> str:
        """Why the link is down ("" when up)."""
        return self._link.reason

    @property
    def amount(self) -> AmountChanged | None:
        """The last amount seen (None before the first join)."""
        return self._amounts.last

    async def wait_up(self, timeout: float | None = None) -> None:
        """Wait until the link is up (TimeoutError after ``timeout`` seconds)."""
        async with asyncio.timeout(timeout):
            await self._up.wait()

    async def events(self) -> AsyncIterator[LinkEvent]:
        """Every link change and amount change from now on, starting with the current state
        (for the sign, the lamps and the daemon's ``PoolAmount``)."""
        queue: asyncio.Queue[LinkEvent] = asyncio.Queue()
        self._subscribers.add(queue)
        try:
            yield LinkChanged(self.name, self.link_up, self.link_reason)
            if self.amount is not None:
                yield self.amount
            while True:
                yield await queue.get()
        finally:
            self._subscribers.discard(queue)

    def _broadcast(self, event: LinkEvent) -> None:
        for queue in self._subscribers:
            if queue.qsize() >= QUEUE_LIMIT:
                queue.get_nowait()
            queue.put_nowait(event)

    def _offer(self, change: AmountChanged) -> None:
        news = self._amounts.offer(change)
        if news is not None:
            self._broadcast(news)

    def _read(self, change: AmountChanged) -> None:
        """The store's own reading: shown whatever a NOTIFY claimed before it."""
        news = self._amounts.read(change)
        if news is not None:
            self._broadcast(news)

    def _lose(self, reason: str) -> None:
        """The link is down from now on: tell the subscribers, stop listening (the
        supervisor then drops the connections and reconnects after the backoff)."""
        self._up.clear()
        before = self._link.reason
        was_up = self._link.lost(asyncio.get_running_loop().time(), reason)
        if was_up or reason != before:
            self._broadcast(LinkChanged(self.name, False, reason))
        if self._listen_task is not None and not self._listen_task.done():
            self._listen_task.cancel()

    def _spawn(self, coro: Coroutine[Any, Any, Any]) -> None:
        task = asyncio.create_task(coro)
        self._background.add(task)
        task.add_done_callback(self._background.discard)

    # -- the supervisor -------------------------------------------------------------------------

    async def _supervise(self) -> None:
        loop = asyncio.get_running_loop()
        while not self._closing:
            delay = self._link.next_attempt - loop.time()
            if delay > 0:
                await asyncio.sleep(delay)
            try:
                async with asyncio.timeout(
                    self.settings.connect_timeout + 4 * self.settings.operation_timeout
                ):
                    await self._connect()
            except (psycopg.Error, OSError, TimeoutError, LedgerError) as exc:
                what = "" if isinstance(exc, LedgerError) else f"cannot reach pool {self.pool}: "
                self._lose(what + one_line(exc))
                await self._drop()
                continue
            self._listen_task = asyncio.create_task(self._listen())
            try:
                await asyncio.wait({self._listen_task})
            finally:
                if not self._listen_task.done():
                    self._listen_task.cancel()
                    with contextlib.suppress(asyncio.CancelledError):
                        await self._listen_task
            if not self._listen_task.cancelled():  # else a money call already marked it down
                exc = self._listen_task.exception()
                self._lose(f"the link to pool {self.pool} failed: {one_line(exc)}")
            await self._drop()

    async def _connect(self) -> None:
        settings = self.settings
        params = settings.connection_params(application_name(self.table))
        self._listener = await AsyncConnection.connect(settings.dsn, autocommit=True, **params)
        await self._listener.execute(
            sql.SQL("LISTEN {}").format(sql.Identifier(store.channel(self.pool)))
        )
        self._writer = await store.connect(settings.dsn, **params)
        await require_current(self._writer, f"the store of pool {self.pool}")
        tx = store.PoolTransactions(self._writer, self.pool, self.table, self.name)
        config, _, _ = await tx.join(self._client, self._listener.info.backend_pid)
        differences = rule_differences(config, self.rules)
        if differences:
            raise LinkedStoreError(
                f"pool {self.pool} does not pay by this table's profile: " + "; ".join(differences)
            )
        now = asyncio.get_running_loop().time()
        recovered = []
        if self._recover:
            for rid in await tx.open_round_ids():
                recovered.append(
                    await tx.void_round(
                        rid, now, rule=store.RECOVERY_RULE, cause=store.RECOVERY_CAUSE
                    )
                )
            self._recover = False
        for rid in list(self._link.in_doubt):
            await tx.abandon_round(rid, now)
            del self._link.in_doubt[rid]
        for rid, owed in list(self._link.owed_voids.items()):
            try:  # its repeat, if the void committed before the link failed: the same void
                await tx.void_round(rid, owed.now, rule=owed.rule, cause=owed.cause)
            except RoundStateError:  # settled or unknown: nothing to void
                pass
            except RoundConflictError as exc:
                # another void of the round is recorded: the same money (the opening's stakes
                # returned, its contribution reversed), so it stands; refusing the link for
                # its words would fail every reconnection until the daemon restarts
                log.error("linked pool %s: the void owed was not applied: %s", self.pool, exc)
            del self._link.owed_voids[rid]
        amount, seed, seq = await tx.amount()
        latest = await tx.latest_round_id()
        self.config = config
        self._tx = tx
        self._link.joined()
        self._up.set()
        self._broadcast(LinkChanged(self.name, True, "", tuple(recovered), latest))
        self._read(AmountChanged(self.name, amount, seed, seq))

    async def _listen(self) -> None:
        """Notifications as they come; every heartbeat the pool row itself, read on the
        listening connection (which also shows that the connection lives): it overrides
        whatever a NOTIFY claimed, so a forged one shows for one heartbeat at most."""
        listener, timeout = self._listener, self.settings.operation_timeout
        assert listener is not None
        while True:
            async for note in listener.notifies(timeout=self.settings.heartbeat):
                self._on_notify(note.payload)
            async with asyncio.timeout(timeout):
                amount, seed, seq = await store.pool_amount(listener, self.pool)
            self._read(AmountChanged(self.name, amount, seed, seq))
            if not self._write_lock.locked():
                async with self._write_lock:
                    async with asyncio.timeout(timeout):
                        await self._ping_writer()

    async def _ping_writer(self) -> None:
        writer = self._writer
        assert writer is not None
        async with writer.transaction():
            await writer.execute("SELECT 1")

    def _on_notify(self, payload: str) -> None:
        """A pool's new amount from the store. Anyone who may NOTIFY on the channel can send
        anything: the payload goes through the checked reader and the amounts must be money."""
        try:
            data = loads_json(payload, "notify", NOTIFY_LIMITS)
            change = AmountChanged(
                self.name,
                int(data["amount"]),
                int(data["seed"]),
                int(data["seq"]),
                data.get("table"),
                data.get("kind", ""),
            )
        except (ConfigError, ValueError, KeyError, TypeError):
            return  # not ours (someone else's NOTIFY on the channel)
        if money(change.amount) or money(change.seed):
            log.warning("linked pool %s: NOTIFY with an amount outside 0..MONEY_MAX", self.name)
            return
        self._offer(change)

    async def _drop(self) -> None:
        """Forget both connections; close them in the background (a money task that outlived
        its timeout keeps the writer until psycopg has cancelled its query)."""
        self._tx = None
        writer, listener = self._writer, self._listener
        self._writer = self._listener = None
        if listener is not None:
            self._spawn(listener.close())
        if writer is not None:
            busy = self._busy_writer
            if busy is not None and not busy.done():
                busy.add_done_callback(lambda _: self._spawn(writer.close()))
            else:
                self._spawn(writer.close())

    # -- money ----------------------------------------------------------------------------------

    async def _money(self, doing: str, op: Callable[[store.PoolTransactions], Awaitable[T]]) -> T:
        """Run one transaction on the writer; a link problem marks the link down and raises
        LinkDownError at once (the transaction's outcome may then be unknown)."""
        async with self._write_lock:
            tx = self._tx
            if tx is None or not self._link.up:
                raise LinkDownError(f"{doing}: the link is down ({self.link_reason})")
            task = asyncio.create_task(op(tx))
            try:
                done, _ = await asyncio.wait({task}, timeout=self.settings.operation_timeout)
            except asyncio.CancelledError:
                self._busy_writer = task
                task.cancel()
                self._lose(f"{doing} was interrupted")
                raise
            if not done:
                self._busy_writer = task
                task.cancel()
                reason = f"no answer from the store in {self.settings.operation_timeout:g} s"
                self._lose(reason)
                raise LinkDownError(f"{doing}: {reason}")
            try:
                return task.result()
            except (psycopg.OperationalError, psycopg.InterfaceError) as exc:
                self._lose(f"the link to pool {self.pool} failed: {one_line(exc)}")
                raise LinkDownError(f"{doing}: the link failed: {one_line(exc)}") from None
            except psycopg.Error as exc:
                raise LinkedStoreError(f"{doing}: the store refused it: {one_line(exc)}") from None

    async def open_round(
        self, round_id: str, stakes: Mapping[Any, Mapping[str, int]], now: float
    ) -> RoundOpened:
        """Take the round's stakes on the pool's bet (``stakes``: seat -> wager -> amount, as
        for the local ledger; other wagers are ignored) and add their contribution. A round
        without such a stake records nothing and needs no link. Raises LinkDownError when the
        link is down or fails: the linked stakes are then **not taken**."""
        rid = inputs.round_id(round_id)
        clean = inputs.seat_wagers(stakes, f"round {rid} stakes", positive=True)
        seats = store.pool_stakes(clean, self.rules.bet)
        if not seats:
            self._unstaked.append(rid)
            return RoundOpened(rid, {}, {}, {}, 0)
        doing = f"opening round {rid} on pool {self.pool}"
        if not self.link_up:
            raise LinkDownError(
                f"{doing}: refused, the link is down ({self.link_reason}): "
                f"its {self.rules.bet} stakes are not taken"
            )
        try:
            return await self._money(doing, lambda tx: tx.open_round(rid, seats, now))
        except (LinkDownError, asyncio.CancelledError):
            self._link.open_in_doubt(rid, now)
            raise

    async def void_round(
        self,
        round_id: str,
        now: float,
        *,
        rule: str,
        cause: str,
        stakes: Mapping[Any, Mapping[str, int]] | None = None,
    ) -> RoundVoided:
        """Void the round (MD-*): stakes returned, contribution reversed. ``stakes``, if
        given (every stake of the round at the void, as for ``Ledger.void_round``), must hold
        the opening's stakes on the pool unchanged (PRG-2); the table wagers in it are the
        local ledger's to record. While the link is down the void is kept and applied when
        it is back (LinkDownError, ``queued``), recording the opening's stakes only."""
        rid = inputs.round_id(round_id)
        inputs.text(rule, "the rule voiding the round")
        inputs.text(cause, "the cause of the void")
        final = (
            None
            if stakes is None
            else inputs.seat_wagers(stakes, f"round {rid} stakes", positive=True)
        )
        if rid in self._unstaked:
            return RoundVoided(rid, rule, cause, {}, {}, {}, 0)
        doing = f"voiding round {rid} on pool {self.pool}"
        try:
            return await self._money(
                doing, lambda tx: tx.void_round(rid, now, rule=rule, cause=cause, final=final)
            )
        except LinkDownError as exc:
            self._link.void_owed(rid, rule, cause, now)
            raise LinkDownError(
                f"{exc}; the void will be applied when the link is back", queued=True
            ) from None

    async def settle_round(
        self,
        round_id: str,
        now: float,
        *,
        hits: Mapping[str, Mapping[Any, str | None]] | None = None,
        hands: Mapping[Any, str] | None = None,
        payouts: Mapping[Any, Mapping[str, int]] | None = None,
        stakes: Mapping[Any, Mapping[str, int]] | None = None,
    ) -> RoundSettled:
        """Settle the round's linked stakes: the arguments of ``Ledger.settle_round``
        (``rounds.settle_arguments`` makes them). ``hits[name]`` gives each seat's best line
        of the pool's pay table (required, ``{}`` when nobody hit; other pools' hits are
        ignored); ``hands`` of the staked seats go to the hit history; ``stakes``, if given,
        must hold the opening's stakes on the pool unchanged (PRG-2); ``payouts`` of table
        wagers are the local ledger's business and are ignored. Raises LinkDownError when the
        link is down or fails: ask again with the same arguments when it is back."""
        del payouts  # the table wagers are settled by the table's own ledger
        rid = inputs.round_id(round_id)
        lines = inputs.pool_hits(hits)
        seat_hands = inputs.hands(hands)
        final = (
            None
            if stakes is None
            else inputs.seat_wagers(stakes, f"round {rid} stakes", positive=True)
        )
        if rid in self._unstaked:
            return RoundSettled(rid, {}, {}, {}, 0)
        if self.name not in lines:
            raise BadRoundError(
                f"round {rid}: no hits given for pool {self.name} (give {{}} when no seat hit)"
            )
        doing = f"settling round {rid} on pool {self.pool}"
        return await self._money(
            doing,
            lambda tx: tx.settle_round(
                rid, now, lines=lines[self.name], hands=seat_hands, final=final
            ),
        )

    async def open_round_ids(self) -> list[str]:
        """This table's rounds open in the store (LinkDownError when the link is down)."""
        return await self._money("listing open rounds", lambda tx: tx.open_round_ids())

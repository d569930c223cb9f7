"""One table's money transactions on one linked pool, in PostgreSQL.

:class:`PoolTransactions` runs the table's round events against the shared store over one
asyncio connection. Each event is one ``SERIALIZABLE`` transaction that first locks the pool
row (``SELECT ... FOR UPDATE``), computes with the same pure functions as the local ledger
(``controller.books.ledger.rounds`` over ``controller.engine.pools``: contributions with carried
remainders, reversals, awards with ``resolve_awards`` and its largest-remainder split),
appends one entry to the pool's hash-chained journal, writes its rows and the pool's meters,
and sends ``NOTIFY`` with the new amount (delivered to every listening sign at commit). A
serialisation failure or a deadlock rolls the transaction back and runs it again from fresh
reads (:func:`serializable`), so a hit and the reset to seed always apply to the pool as it
stands when they commit.

The writers of a store are serialised by a table lock taken before the transaction's snapshot
(:data:`SERIALISE_WRITERS`), so under contention they queue instead of failing; the retry
remains for the rare failures serialisable isolation may still report.

Events are idempotent by (pool, table, round ID), the ``rounds`` primary key: repeating an
event with the same content returns the recorded result (``retried=True``), different content
raises ``RoundConflictError``. Rounds of different tables never collide, whatever their IDs.

``abandon_round`` settles the doubt about an opening whose commit outcome the table never
learned (the link failed during COMMIT): an opening that did commit is voided, one that did
not is recorded as abandoned so that it can never count later.

Connection failures are not handled here: psycopg's ``OperationalError`` reaches the caller
(:class:`controller.books.linked.client.LinkedPool` turns it into ``LinkDownError``).
"""

from __future__ import annotations

import asyncio
import json
import random
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, TypeVar

from psycopg import AsyncConnection, IsolationLevel, errors

from controller.books.ledger import rounds
from controller.books.ledger.errors import BadRoundError, RoundConflictError, RoundStateError
from controller.books.ledger.inputs import ROUND_ID
from controller.books.ledger.journal import Entry, canonical, chained, wall_text
from controller.books.ledger.records import RoundOpened, RoundSettled, RoundVoided, Stakes
from controller.books.ledger.rounds import LinkShares, RoundState, round_key
from controller.books.linked.errors import LinkedStoreError
from controller.books.linked.rows import pool_row
from controller.books.linked.schema import POOL_METERS
from controller.engine.pools.awards import outcome_from_json
from controller.engine.pools.config import PoolConfig
from controller.engine.pools.meters import Contribution, PoolState, Reversal
from controller.validation import MONEY_MAX

T = TypeVar("T")

MAX_ATTEMPTS = 50  # serialisation failures before giving up (each retry re-reads the pool)
RECOVERY_RULE, RECOVERY_CAUSE = "MD-S2", "the table restarted while the round was in play"
ABANDON_RULE = "LINK"
ABANDON_CAUSE = "the link failed while the round was being opened: its linked stakes were not taken"

_METERS = ", ".join(POOL_METERS)
LOCK_POOL = (
    f"SELECT config, {_METERS}, head_seq, head_hash, extract(epoch FROM clock_timestamp()) "
    "FROM croupier.pools WHERE name = %s FOR UPDATE"
)
UPDATE_POOL = (
    "UPDATE croupier.pools SET "
    + ", ".join(f"{m} = %({m})s" for m in POOL_METERS)
    + ", head_seq = %(head_seq)s, head_hash = %(head_hash)s, updated = now() WHERE name = %(name)s"
)
INSERT_ENTRY = (
    "INSERT INTO croupier.journal (pool, seq, kind, table_id, mono, wall, data, prev_hash, hash) "
    "VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s)"
)


class LinkedRoundState(StrEnum):
    """A ``croupier.rounds`` row's ``state``: the local ledger's
    (:class:`~controller.books.ledger.rounds.RoundState`) and ``abandoned``, an opening in
    doubt that the store never counted (:meth:`PoolTransactions.abandon_round`). The values
    are the column's: the schema's CHECK, and the SQL of the store, ``pool verify`` and
    ``pool status``, name them too. Written as ``.value`` (a plain string, whatever the
    driver makes of an enum)."""

    OPEN = RoundState.OPEN.value
    VOIDED = RoundState.VOIDED.value
    SETTLED = RoundState.SETTLED.value
    ABANDONED = "abandoned"


ROUND_COLUMNS = (
    "state",
    "stakes",
    "staked",
    "contribution",
    "reversal",
    "outcome",
    "rule",
    "cause",
    "open_seq",
    "close_seq",
    "opened",
    "closed",
)
SELECT_ROUND = (
    f"SELECT {', '.join(ROUND_COLUMNS)} FROM croupier.rounds "
    "WHERE pool = %s AND table_id = %s AND round_id = %s"
)
INSERT_ROUND = (
    "INSERT INTO croupier.rounds (pool, table_id, round_id, "
    + ", ".join(ROUND_COLUMNS)
    + ") VALUES (%s, %s, %s, "
    + ", ".join(["%s"] * len(ROUND_COLUMNS))
    + ")"
)
CLOSE_ROUND = (
    "UPDATE croupier.rounds SET state = %s, reversal = %s, outcome = %s, rule = %s, cause = %s, "
    "close_seq = %s, closed = %s WHERE pool = %s AND table_id = %s AND round_id = %s"
)
TABLE_TOTALS = (
    "rounds",
    "stakes_in",
    "contributions",
    "reserve_contributions",
    "voids",
    "hits",
    "won_from_pool",
    "won_fixed",
)
UPDATE_TABLE = (
    "UPDATE croupier.tables SET last_seen = now(), "
    + ", ".join(f"{c} = {c} + %({c})s" for c in TABLE_TOTALS)
    + " WHERE pool = %(pool)s AND table_id = %(table)s"
)
INSERT_HIT = (
    "INSERT INTO croupier.hits (pool, hit_id, table_id, round_id, seat, line, hand, stake, "
    "amount, from_pool, share, envy, cycle, wall, seq) "
    "VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s)"
)


def table_deltas(kind: str, data: dict[str, Any], pool: str) -> dict[str, int]:
    """What a journaled round event adds to its table's totals (``tables`` row), from the
    entry's data alone: the store applies it as it writes the entry, verify recomputes every
    table's totals from the journal with it."""
    deltas = dict.fromkeys(TABLE_TOTALS, 0)
    moved = data.get("pools", {}).get(pool)
    if moved is None:
        return deltas
    if kind == "round.opened":
        deltas.update(
            rounds=1,
            stakes_in=moved["stake"],
            contributions=moved["to_current"],
            reserve_contributions=moved["to_reserve"] + moved["overflow"],
        )
    elif kind == "round.voided":
        returned = sum(sum(w.values()) for w in data["returned"].values())
        shares = moved.get("shares_returned", {"to_current": 0, "to_reserve": 0})  # CH-9
        deltas.update(
            rounds=-1,
            stakes_in=-returned,
            contributions=-moved["from_current"],
            reserve_contributions=shares["to_reserve"]
            - moved["from_overflow"]
            - moved["from_reserve"],
            voids=1,
            won_from_pool=-shares["to_current"],
        )
    elif kind == "round.settled":
        awards = moved["awards"].values()  # [stake, line, amount, from_pool, share, envy]
        deltas.update(
            hits=len(moved["order"]),
            won_from_pool=moved["jackpot_paid"],
            won_fixed=sum(a[2] + a[4] - a[3] for a in awards),
        )
    return deltas


# The first statement of every money transaction. LOCK takes no snapshot, so a transaction
# that waited for another one's commit takes its SERIALIZABLE snapshot after that commit and
# does not fail with a serialisation error (with the pool row's FOR UPDATE first, every waiter
# failed and retried at each commit: a retry storm that starved tables under load). The mode
# conflicts with itself, not with plain reads (status, verify, the amount re-read).
SERIALISE_WRITERS = "LOCK TABLE croupier.pools IN SHARE ROW EXCLUSIVE MODE"


def channel(pool: str) -> str:
    """The NOTIFY channel of a pool (a quoted identifier: pool names may hold '-')."""
    return f"croupier_pool:{pool}"


async def serializable(conn: AsyncConnection, work: Callable[[], Awaitable[T]]) -> T:
    """Run ``work`` in a transaction, again from the start after a serialisation failure or
    a deadlock (the other transaction committed first; ``work`` re-reads what it needs)."""
    delay = 0.001
    for attempt in range(1, MAX_ATTEMPTS + 1):
        try:
            async with conn.transaction():
                await conn.execute(SERIALISE_WRITERS)
                return await work()
        except (errors.SerializationFailure, errors.DeadlockDetected):
            if attempt == MAX_ATTEMPTS:
                raise LinkedStoreError(
                    f"gave up after {MAX_ATTEMPTS} serialisation failures in a row"
                ) from None
            await asyncio.sleep(random.uniform(0, delay))  # de-synchronise the contenders
            delay = min(delay * 2, 0.05)
    raise AssertionError("unreachable")


@dataclass
class LockedPool:
    """The pool row as read under its lock, and the journal head as it moves."""

    config: PoolConfig
    state: PoolState
    head: tuple[int, str]
    wall: str  # the server's clock when the lock was taken


async def lock_pool(conn: AsyncConnection, name: str) -> LockedPool:
    cur = await conn.execute(LOCK_POOL, (name,))
    row = await cur.fetchone()
    if row is None:
        raise LinkedStoreError(f"there is no linked pool {name!r} in the store")
    config, state = pool_row(name, row[0], row[1:-3])
    return LockedPool(
        config,
        state,
        (row[-3], row[-2]),
        wall_text(float(row[-1])),
    )


async def write_entry(
    conn: AsyncConnection,
    locked: LockedPool,
    kind: str,
    data: dict[str, Any],
    now: float,
    table: str | None,
) -> Entry:
    text = canonical(data)
    entry = chained(locked.head, kind, data, text, float(now), locked.wall)
    await conn.execute(
        INSERT_ENTRY,
        (
            locked.config.name,
            entry.seq,
            kind,
            table,
            entry.mono,
            entry.wall,
            text,
            entry.prev_hash,
            entry.hash,
        ),
    )
    locked.head = (entry.seq, entry.hash)
    return entry


async def put_pool(
    conn: AsyncConnection, locked: LockedPool, state: PoolState, event: dict[str, Any]
) -> None:
    """Write the pool's meters and journal head, and announce the amount (NOTIFY)."""
    row = state.to_row()
    row["head_seq"], row["head_hash"] = locked.head
    await conn.execute(UPDATE_POOL, row)
    payload = {
        "pool": state.name,
        "amount": state.current,
        "seed": locked.config.seed,
        "seq": locked.head[0],
        **event,
    }
    await conn.execute("SELECT pg_notify(%s, %s)", (channel(state.name), canonical(payload)))
    locked.state = state


MAX_STORE_SEAT = 64  # more than any table seats: a seat number read back from the store


def _seat_money(seat: Any, amount: Any, what: str) -> tuple[int, int]:
    """``(seat, amount)`` read back from the store, checked: a seat 1..MAX_STORE_SEAT and whole
    minor units 0..MONEY_MAX; LinkedStoreError (one line) for anything else, so a row edited in
    the database fails the operation instead of paying it or crashing the table."""
    try:
        number = int(seat)
    except (TypeError, ValueError):
        number = 0
    if isinstance(seat, bool) or not 1 <= number <= MAX_STORE_SEAT:
        raise LinkedStoreError(f"{what}: seat {str(seat)[:20]!r} is not a seat number")
    if type(amount) is not int or not 0 <= amount <= MONEY_MAX:
        raise LinkedStoreError(f"{what}: seat {number}: {str(amount)[:20]!r} is not an amount")
    return number, amount


def _stake_json(text: str) -> dict[int, int]:
    """A round's stakes (seat -> stake) as the store keeps them, checked (:func:`_seat_money`)."""
    try:
        stakes = json.loads(text)
    except (TypeError, ValueError):
        raise LinkedStoreError("a round's stakes in the store are not JSON") from None
    if not isinstance(stakes, dict):
        raise LinkedStoreError("a round's stakes in the store are not a seat map")
    return dict(_seat_money(seat, stake, "stakes") for seat, stake in stakes.items())


def _link_shares_of(text: str, pool: str) -> list[tuple[Any, Any, Any, Any]]:
    """The ``link_shares`` rows (table, round, seat, share) of a ``round.settled`` entry's
    data; LinkedStoreError when the entry does not have that shape."""
    try:
        rows = json.loads(text)["pools"].get(pool, {}).get("link_shares", [])
        return [(table, other, seat, share) for table, other, seat, share in rows]
    except (TypeError, ValueError, KeyError, AttributeError):
        raise LinkedStoreError("a round.settled entry's link_shares are malformed") from None


async def connect(dsn: str, **params: Any) -> AsyncConnection:
    """A connection for money transactions: not autocommit, SERIALIZABLE. ``params`` are
    libpq parameters (``connect_timeout``, ``keepalives_idle``, ``application_name``...)."""
    conn = await AsyncConnection.connect(dsn, autocommit=False, **params)
    await conn.set_isolation_level(IsolationLevel.SERIALIZABLE)
    return conn


async def pool_amount(conn: AsyncConnection, pool: str) -> tuple[int, int, int]:
    """(amount displayed, seed, journal seq) of the pool row as ``conn`` sees it, checked
    (:func:`~controller.books.linked.rows.pool_row`)."""
    cur = await conn.execute(
        f"SELECT config, {_METERS}, head_seq FROM croupier.pools WHERE name = %s", (pool,)
    )
    row = await cur.fetchone()
    if row is None:
        raise LinkedStoreError(f"the linked pool {pool!r} has disappeared from the store")
    config, state = pool_row(pool, row[0], row[1:-1])
    return state.current, config.seed, row[-1]


class PoolTransactions:
    """A table's round events on one linked pool (see the module docstring); ``conn`` comes
    from :func:`connect` and serves one operation at a time."""

    def __init__(
        self, conn: AsyncConnection, pool: str, table: str, label: str | None = None
    ) -> None:
        self.conn = conn
        self.pool = pool
        self.table = table
        self.label = label or pool  # the pool's name in results (the table's name for it)

    async def join(
        self, client: str, listener_pid: int | None = None
    ) -> tuple[PoolConfig, PoolState, int]:
        """Register the table with the pool (or note that it is back), with the backend PID
        of its listening connection (``pool status`` shows it connected while that session
        lives): the pool's configuration, meters and journal head."""

        async def work() -> tuple[PoolConfig, PoolState, int]:
            cur = await self.conn.execute(
                f"SELECT config, {_METERS}, head_seq FROM croupier.pools WHERE name = %s",
                (self.pool,),
            )
            row = await cur.fetchone()
            if row is None:
                raise LinkedStoreError(
                    f"there is no linked pool {self.pool!r} in the store (create it with "
                    "`croupier pool init --dsn ... --pool ...`)"
                )
            await self.conn.execute(
                "INSERT INTO croupier.tables (pool, table_id, client, listener_pid) "
                "VALUES (%s, %s, %s, %s) ON CONFLICT (pool, table_id) DO UPDATE SET "
                "last_seen = now(), client = excluded.client, "
                "listener_pid = excluded.listener_pid",
                (self.pool, self.table, client, listener_pid),
            )
            return (*pool_row(self.pool, row[0], row[1:-1]), row[-1])

        return await serializable(self.conn, work)

    async def amount(self) -> tuple[int, int, int]:
        """(amount displayed, seed, journal seq) as the store has them now."""
        async with self.conn.transaction():
            return await pool_amount(self.conn, self.pool)

    async def _round(self, rid: str) -> dict[str, Any] | None:
        cur = await self.conn.execute(SELECT_ROUND, (self.pool, self.table, rid))
        row = await cur.fetchone()
        if row is None:
            return None
        found = dict(zip(ROUND_COLUMNS, row, strict=True))
        try:
            found["state"] = LinkedRoundState(found["state"])
        except ValueError:
            raise LinkedStoreError(
                f"{self._named(rid)}: its state {str(found['state'])[:20]!r} in the store is "
                f"not one of {', '.join(LinkedRoundState)}"
            ) from None
        return found

    async def _closing_entry(self, rid: str, row: dict[str, Any]) -> dict[str, Any]:
        """The data of the journal entry that closed a round (voided or settled): what a
        repeat of the event is compared with. LinkedStoreError when it is missing or not a
        JSON object (a store edited by hand: ``croupier pool verify`` says more)."""
        cur = await self.conn.execute(
            "SELECT data FROM croupier.journal WHERE pool = %s AND seq = %s",
            (self.pool, row["close_seq"]),
        )
        found = await cur.fetchone()
        try:
            data = None if found is None else json.loads(found[0])
        except (TypeError, ValueError):
            data = None
        if not isinstance(data, dict):
            raise LinkedStoreError(
                f"{self._named(rid)}: the journal entry that closed it ({row['close_seq']}) is "
                f"missing or malformed; run `croupier pool verify` on pool {self.pool}"
            )
        return data

    def _named(self, rid: str) -> str:
        """A round as messages name it: its table's, in the store shared by tables."""
        return f"round {rid} of table {self.table}"

    async def _table_totals(self, deltas: dict[str, int]) -> None:
        await self.conn.execute(UPDATE_TABLE, {**deltas, "pool": self.pool, "table": self.table})

    # -- opening --------------------------------------------------------------------------------

    async def open_round(self, rid: str, seats: dict[int, int], now: float) -> RoundOpened:
        """Record the round's stakes on this pool (seat -> stake, at least one) and its
        contribution (PRG-1)."""

        async def work() -> RoundOpened:
            locked = await lock_pool(self.conn, self.pool)
            bet = locked.config.bet
            existing = await self._round(rid)
            if existing is not None:
                if existing["state"] == LinkedRoundState.ABANDONED:
                    raise RoundStateError(
                        f"round {rid} of table {self.table} was abandoned ({existing['cause']})"
                    )
                # only an opening asked again is the same round
                if existing["state"] != LinkedRoundState.OPEN:
                    raise RoundConflictError(
                        f"round {rid} of table {self.table} is already {existing['state']} in"
                        " the store: the table numbered a round twice"
                    )
                if _stake_json(existing["stakes"]) != seats:
                    raise RoundConflictError(
                        f"round {rid} of table {self.table} was already opened with other stakes"
                    )
                return self._opened(rid, bet, existing)
            stakes = {seat: {bet: stake} for seat, stake in seats.items()}
            key = round_key(self.table, rid)
            fed = rounds.contributions(stakes, [(locked.config, locked.state)])
            data = {**rounds.opened_data(key, stakes, fed), "table": self.table}
            entry = await write_entry(self.conn, locked, "round.opened", data, now, self.table)
            move = fed[self.pool]
            c: Contribution = move.move
            await self.conn.execute(
                INSERT_ROUND,
                (
                    self.pool,
                    self.table,
                    rid,
                    LinkedRoundState.OPEN.value,
                    canonical(rounds.seat_keys(seats)),
                    sum(seats.values()),
                    canonical(data["pools"][self.pool]),
                    None,
                    None,
                    None,
                    None,
                    entry.seq,
                    None,
                    entry.wall,
                    None,
                ),
            )
            await self._table_totals(table_deltas("round.opened", data, self.pool))
            await put_pool(
                self.conn, locked, move.after, {"kind": "round.opened", "table": self.table}
            )
            return RoundOpened(
                rid, stakes, {self.label: c}, {self.label: move.after.current}, entry.seq
            )

        return await serializable(self.conn, work)

    def _opened(self, rid: str, bet: str, row: dict[str, Any]) -> RoundOpened:
        recorded = json.loads(row["contribution"])
        stakes = _on_bet(_stake_json(row["stakes"]), bet)
        return RoundOpened(
            rid,
            stakes,
            {self.label: Contribution.from_json(recorded)},
            {self.label: recorded["current"]},
            row["open_seq"],
            retried=True,
        )

    # -- voiding --------------------------------------------------------------------------------

    async def void_round(
        self, rid: str, now: float, *, rule: str, cause: str, final: Stakes | None = None
    ) -> RoundVoided:
        """Void the round (MD-*): its stakes returned, its contribution reversed exactly.
        ``final``: every stake of the round at the void, when the table knows them; its
        stakes on this pool's bet must be the opening's (PRG-2: BadRoundError otherwise),
        the others are the table's ledger's to record. The entry says ``added`` (nothing,
        on this pool) when they were given, ``opening_only`` when not (a void at start-up
        recovery, owed while the link was down, an abandoned opening).

        A void repeated (a retry, a void owed while the link was down whose first attempt
        did commit) returns the recorded result when it asks the same, as the local ledger
        does: the rule, the cause and, if it gives ``final``, the same stakes on this pool's
        bet (a repeat without them contradicts nothing). RoundConflictError, naming what
        differs, when it asks another rule or cause; other stakes on the pool's bet are
        BadRoundError (PRG-2, checked first, as the local ledger does). A void of an
        abandoned opening returns the abandonment (the store never counted the round:
        nothing to compare). RoundStateError for a settled or unknown round."""

        async def work() -> RoundVoided:
            locked = await lock_pool(self.conn, self.pool)
            bet = locked.config.bet
            row = await self._round(rid)
            if row is None:
                raise RoundStateError(f"no round {rid} of table {self.table} in pool {self.pool}")
            if row["state"] == LinkedRoundState.SETTLED:
                raise RoundStateError(f"round {rid} is settled: a settled round cannot be voided")
            if row["state"] == LinkedRoundState.ABANDONED:
                return self._voided(rid, bet, row)
            if final is not None:
                _check_final_stakes(rid, bet, _stake_json(row["stakes"]), final, "at the void")
            if row["state"] == LinkedRoundState.VOIDED:
                asked = None if final is None else _on_bet(pool_stakes(final, bet), bet)
                request = rounds.void_request(rule, cause, asked)
                recorded = await self._closing_entry(rid, row)
                rounds.refuse_other_repeat(self._named(rid), recorded, request, "voided")
                return self._voided(rid, bet, row)
            return await self._void(locked, rid, row, now, rule, cause, known=final is not None)

        return await serializable(self.conn, work)

    async def _void(
        self,
        locked: LockedPool,
        rid: str,
        row: dict[str, Any],
        now: float,
        rule: str,
        cause: str,
        *,
        known: bool = False,
    ) -> RoundVoided:
        """``known``: the table gave every stake of the round (none added on this pool)."""
        bet = locked.config.bet
        contribution = Contribution.from_json(json.loads(row["contribution"]))
        shares = {self.pool: await self._fixed_shares(rid, row["open_seq"])}  # CH-9: back
        moved = rounds.reversals([(locked.config, locked.state, contribution)], shares)
        returned = _on_bet(_stake_json(row["stakes"]), bet)
        key = round_key(self.table, rid)
        added = {} if known else None
        data = {
            **rounds.voided_data(key, rule, cause, returned, moved, added),
            "table": self.table,
        }
        entry = await write_entry(self.conn, locked, "round.voided", data, now, self.table)
        move = moved[self.pool]
        r: Reversal = move.move
        await self.conn.execute(
            CLOSE_ROUND,
            (
                LinkedRoundState.VOIDED.value,
                canonical(data["pools"][self.pool]),
                None,
                rule,
                cause,
                entry.seq,
                entry.wall,
                self.pool,
                self.table,
                rid,
            ),
        )
        await self._table_totals(table_deltas("round.voided", data, self.pool))
        await put_pool(self.conn, locked, move.after, {"kind": "round.voided", "table": self.table})
        return RoundVoided(
            rid,
            rule,
            cause,
            returned,
            {self.label: r},
            {self.label: move.after.current},
            entry.seq,
        )

    def _voided(self, rid: str, bet: str, row: dict[str, Any]) -> RoundVoided:
        """An already voided (or abandoned) round, as recorded."""
        if row["state"] == LinkedRoundState.ABANDONED:
            return RoundVoided(rid, row["rule"], row["cause"], {}, {}, {}, row["close_seq"], True)
        recorded = json.loads(row["reversal"])
        returned = _on_bet(_stake_json(row["stakes"]), bet)
        return RoundVoided(
            rid,
            row["rule"],
            row["cause"],
            returned,
            {self.label: Reversal.from_json(recorded)},
            {self.label: recorded["current"]},
            row["close_seq"],
            retried=True,
        )

    async def abandon_round(self, rid: str, now: float) -> RoundVoided | None:
        """Settle the doubt about an opening whose outcome the table never learned: void it
        if it committed, else record it as abandoned so it can never count. Returns the void
        (None when nothing had been counted)."""

        async def work() -> RoundVoided | None:
            locked = await lock_pool(self.conn, self.pool)
            row = await self._round(rid)
            if row is not None:
                if row["state"] == LinkedRoundState.OPEN:
                    return await self._void(locked, rid, row, now, ABANDON_RULE, ABANDON_CAUSE)
                return None
            key = round_key(self.table, rid)
            data = {"round": key, "table": self.table, "rule": ABANDON_RULE, "cause": ABANDON_CAUSE}
            entry = await write_entry(self.conn, locked, "round.abandoned", data, now, self.table)
            await self.conn.execute(
                INSERT_ROUND,
                (
                    self.pool,
                    self.table,
                    rid,
                    LinkedRoundState.ABANDONED.value,
                    "{}",
                    0,
                    None,
                    None,
                    None,
                    ABANDON_RULE,
                    ABANDON_CAUSE,
                    None,
                    entry.seq,
                    None,
                    entry.wall,
                ),
            )
            await put_pool(
                self.conn, locked, locked.state, {"kind": "round.abandoned", "table": self.table}
            )
            return None

        return await serializable(self.conn, work)

    async def latest_round_id(self) -> str | None:
        """The ID of this table's last round in the store (``None``: none yet). The
        table numbers its next round after it: a round whose opening the store committed just
        before the table was killed is in no local ledger, and its ID must not be used again."""
        async with self.conn.transaction():
            cur = await self.conn.execute(
                # the table numbers its rounds with zero-padded digits, so its last is the
                # longest ID, then the last in order; whatever its state (an abandoned opening
                # has no open_seq, and its ID must not be used again either)
                "SELECT round_id FROM croupier.rounds WHERE pool = %s AND table_id = %s "
                "ORDER BY length(round_id) DESC, round_id DESC LIMIT 1",
                (self.pool, self.table),
            )
            row = await cur.fetchone()
        if row is None:
            return None
        if not isinstance(row[0], str) or not ROUND_ID.match(row[0]):
            raise LinkedStoreError(
                f"table {self.table}'s latest round ID in the store"
                f" {str(row[0])[:70]!r} is not a round ID"
            )
        return row[0]

    async def open_round_ids(self) -> list[str]:
        async with self.conn.transaction():
            cur = await self.conn.execute(
                "SELECT round_id FROM croupier.rounds WHERE pool = %s AND table_id = %s "
                "AND state = 'open' ORDER BY open_seq",
                (self.pool, self.table),
            )
            return [r[0] for r in await cur.fetchall()]

    # -- settling -------------------------------------------------------------------------------

    async def settle_round(
        self,
        rid: str,
        now: float,
        *,
        lines: dict[int, str],
        hands: dict[int, str],
        final: Stakes | None,
    ) -> RoundSettled:
        """Resolve the round's awards on the pool as it stands (PRG-2..5, CH-8, CH-9), reset
        it to the seed after a 100% award, record the hits: one serialisable transaction."""

        async def work() -> RoundSettled:
            locked = await lock_pool(self.conn, self.pool)
            config = locked.config
            row = await self._round(rid)
            if row is None:
                raise RoundStateError(f"no round {rid} of table {self.table} in pool {self.pool}")
            if row["state"] in (LinkedRoundState.VOIDED, LinkedRoundState.ABANDONED):
                raise RoundStateError(f"round {rid} was voided ({row['rule']}): nothing to settle")
            seats = _stake_json(row["stakes"])
            if final is not None:
                _check_final_stakes(rid, config.bet, seats, final, "at settlement")
            strangers = sorted(set(lines) - set(seats))
            if strangers:
                raise BadRoundError(f"round {rid}: seats {strangers} have no stake on {self.pool}")
            pool_lines = {self.pool: lines}
            seat_hands = {s: h for s, h in hands.items() if s in seats}
            request = rounds.settle_request(pool_lines, seat_hands, {}, {})
            if row["state"] == LinkedRoundState.SETTLED:
                return await self._settled_again(rid, locked, seats, row, request)
            key = round_key(self.table, rid)
            link = {self.pool: await self._link_shares(config, rid, row["open_seq"])}
            settled = rounds.awards(key, pool_lines, [(config, locked.state, seats)], link)
            data = {**rounds.settled_data(key, request, settled), "table": self.table}
            entry = await write_entry(self.conn, locked, "round.settled", data, now, self.table)
            move = settled[self.pool]
            await self.conn.execute(
                CLOSE_ROUND,
                (
                    LinkedRoundState.SETTLED.value,
                    None,
                    canonical(data["pools"][self.pool]),
                    None,
                    None,
                    entry.seq,
                    entry.wall,
                    self.pool,
                    self.table,
                    rid,
                ),
            )
            await self._record_hits(locked, rid, move, seat_hands, entry)
            outcome = move.move
            await self._table_totals(table_deltas("round.settled", data, self.pool))
            await put_pool(
                self.conn, locked, move.after, {"kind": "round.settled", "table": self.table}
            )
            return RoundSettled(
                rid,
                {self.label: outcome},
                rounds.payouts(key, {}, {}, settled),
                {self.label: move.after.current},
                entry.seq,
            )

        return await serializable(self.conn, work)

    async def _link_shares(self, config: PoolConfig, rid: str, open_seq: int) -> LinkShares:
        """CH-9 across the link (``share_scope = "link"``): the Jumbo 7 stakes of every other
        table's round in play now (they share a hit of this round), and the shares hits at
        other tables fixed for this round since it opened (it pays them now)."""
        received = await self._fixed_shares(rid, open_seq)
        rules = config.rules
        if rules.award != "share-round" or rules.share_scope != "link":
            return LinkShares(received=received)
        cur = await self.conn.execute(
            "SELECT table_id, round_id, stakes FROM croupier.rounds WHERE pool = %s "
            "AND state = 'open' AND table_id <> %s",
            (self.pool, self.table),
        )
        others = {
            (table, other, seat): stake
            for table, other, stakes in await cur.fetchall()
            for seat, stake in _stake_json(stakes).items()
        }
        return LinkShares(others, received)

    async def _fixed_shares(self, rid: str, open_seq: int) -> dict[int, int]:
        """The shares (seat -> share) hits at other tables fixed for this table's round
        ``rid`` while it was in play: read from their ``round.settled`` entries (CH-9)."""
        cur = await self.conn.execute(
            "SELECT data FROM croupier.journal WHERE pool = %s AND seq > %s "
            "AND kind = 'round.settled' AND table_id <> %s AND strpos(data, 'link_shares') > 0 "
            "ORDER BY seq",
            (self.pool, open_seq, self.table),
        )
        fixed: dict[int, int] = {}
        for (text,) in await cur.fetchall():
            for table, other, seat, share in _link_shares_of(text, self.pool):
                if table == self.table and other == rid:
                    seat, share = _seat_money(seat, share, "link_shares")
                    fixed[seat] = fixed.get(seat, 0) + share
        return fixed

    async def _record_hits(
        self,
        locked: LockedPool,
        rid: str,
        move: rounds.PoolMove,
        hands: dict[int, str],
        entry: Entry,
    ) -> None:
        cur = await self.conn.execute(
            "SELECT coalesce(max(hit_id), 0) + 1 FROM croupier.hits WHERE pool = %s", (self.pool,)
        )
        first = (await cur.fetchone())[0]
        for hit in rounds.hit_rows(first, rid, move, hands, entry):
            await self.conn.execute(
                INSERT_HIT,
                (
                    self.pool,
                    hit["hit_id"],
                    self.table,
                    rid,
                    hit["seat"],
                    hit["line"],
                    hit["hand"],
                    hit["stake"],
                    hit["amount"],
                    hit["from_pool"],
                    hit["share"],
                    hit["envy"],
                    hit["cycle"],
                    hit["wall"],
                    hit["seq"],
                ),
            )

    async def _settled_again(
        self,
        rid: str,
        locked: LockedPool,
        seats: dict[int, int],
        row: dict[str, Any],
        request: dict[str, Any],
    ) -> RoundSettled:
        recorded = await self._closing_entry(rid, row)
        rounds.refuse_other_repeat(self._named(rid), recorded, request, "settled")
        outcome_json = json.loads(row["outcome"])
        outcome = outcome_from_json(outcome_json)
        key = round_key(self.table, rid)
        # payouts() reads the outcome's awards and the pool's bet, not the state after
        move = rounds.PoolMove(locked.config, locked.state, outcome, seats)
        return RoundSettled(
            rid,
            {self.label: outcome},
            rounds.payouts(key, {}, {}, {self.pool: move}),
            {self.label: outcome_json["current"]},
            row["close_seq"],
            retried=True,
        )


def _check_final_stakes(
    rid: str, bet: str, seats: dict[int, int], final: Stakes, when: str
) -> None:
    """PRG-2: a progressive stake is placed before the round starts and never changes
    (``final``: the round's stakes ``when``, at settlement or at the void)."""
    later = {s: w[bet] for s, w in final.items() if bet in w}
    if later != seats:
        raise BadRoundError(
            f"round {rid}: the {bet} stakes {when} {later} differ from those of "
            f"the opening {seats}; a {bet} stake is placed before the round starts and never "
            "changes (PRG-2)"
        )


def _on_bet(seats: Mapping[int, int], bet: str) -> Stakes:
    """Seat -> stake on the pool's bet as a round's stakes (seat -> wager -> amount)."""
    return {seat: {bet: stake} for seat, stake in seats.items()}


def pool_stakes(stakes: Mapping[int, Mapping[str, int]], bet: str) -> dict[int, int]:
    """The seats' stakes on the pool's bet (seat -> stake)."""
    return {seat: wagers[bet] for seat, wagers in stakes.items() if bet in wagers}

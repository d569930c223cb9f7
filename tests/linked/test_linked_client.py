"""The table's client (LinkedPool) against a real PostgreSQL server that the tests stop and
start: amounts through LISTEN/NOTIFY, link down and rejoin, nothing taken while down ever
counted, openings in doubt, voids owed, timeouts, recovery, the pool's rules."""

import asyncio
import contextlib
import dataclasses

import psycopg
import pytest
from pg import RULES, SEED, create_pool, drop_database, dsn_with, fresh_database, start_server

from controller.books.ledger.errors import BadRoundError
from controller.books.linked import store
from controller.books.linked.client import LinkedPool
from controller.books.linked.errors import LinkDownError
from controller.books.linked.link import AmountChanged, LinkChanged
from controller.books.linked.settings import LinkedSettings
from controller.books.linked.verify import verify_store
from controller.engine.paytable import FixedPerUnit, PayTable
from controller.engine.pools.config import pool_config

WAIT = 30  # seconds: a bound on waiting for the server, never a timing assertion
JACKPOT = "seven-card-straight-flush"


@pytest.fixture(scope="module")
def server():
    """A server of this module's own: its tests stop and start it."""
    server = start_server()
    yield server
    server.destroy()


@pytest.fixture
def dsn(server):
    if not server.is_running():
        server.start()
    name = fresh_database(server.dsn)
    create_pool(dsn_with(server.dsn, name))
    yield dsn_with(server.dsn, name)
    if not server.is_running():
        server.start()
    assert verify_store(dsn_with(server.dsn, name)).problems == []
    drop_database(server.dsn, name)


def settings(dsn, **overrides):
    values = dict(
        name="j7",
        dsn=dsn,
        pool="jumbo7",
        heartbeat=1.0,
        operation_timeout=2.0,
        reconnect_min=0.05,
        reconnect_max=0.5,
    )
    values.update(overrides)
    return LinkedSettings(**values)


class Watcher:
    """A subscriber to a client's events, as the sign would be."""

    def __init__(self, linked):
        self.seen = []
        self._events = linked.events()
        self._new = asyncio.Condition()
        self._task = asyncio.create_task(self._run())

    async def _run(self):
        async for event in self._events:
            async with self._new:
                self.seen.append(event)
                self._new.notify_all()

    async def wait_for(self, predicate):
        async def wait():
            async with self._new:
                await self._new.wait_for(lambda: any(predicate(e) for e in self.seen))

        await asyncio.wait_for(wait(), WAIT)
        return next(e for e in self.seen if predicate(e))

    async def close(self):
        self._task.cancel()
        await asyncio.gather(self._task, return_exceptions=True)


@contextlib.asynccontextmanager
async def two_tables(dsn):
    """Tables A and B on the pool, both linked, and B's sign watching the pool's events."""
    async with (
        LinkedPool(settings(dsn), "A", RULES) as a,
        LinkedPool(settings(dsn), "B", RULES) as b,
    ):
        await a.wait_up(WAIT)
        await b.wait_up(WAIT)
        yield a, b, Watcher(b)


def amounts(dsn):
    with psycopg.connect(dsn) as conn:
        row = conn.execute("SELECT current, rounds FROM croupier.pools").fetchone()
        states = dict(conn.execute("SELECT round_id, state FROM croupier.rounds ORDER BY round_id"))
    return row, states


def test_every_table_follows_the_shared_amount(dsn):
    async def main():
        async with two_tables(dsn) as (a, b, sign):
            opened = await a.open_round("r1", {1: {"jumbo7": 100, "ante": 500}}, 1.0)
            seen = await sign.wait_for(lambda e: isinstance(e, AmountChanged) and e.table == "A")
            await sign.close()
            return opened, seen, sign.seen

    opened, seen, events = asyncio.run(main())
    assert opened.stakes == {1: {"jumbo7": 100}}  # only the pool's bet is taken
    assert (seen.amount, seen.kind, seen.pool) == (SEED + 20, "round.opened", "j7")
    assert events[0] == LinkChanged("j7", True)
    assert events[1].amount == SEED and events[1].table is None  # the state on subscribing


def test_link_down_takes_nothing_and_the_table_rejoins(dsn, server):
    async def main():
        async with LinkedPool(settings(dsn), "A", RULES) as a:
            await a.wait_up(WAIT)
            lamps = Watcher(a)
            await a.open_round("r1", {1: {"jumbo7": 100}}, 1.0)
            server.stop()
            down = await lamps.wait_for(lambda e: isinstance(e, LinkChanged) and not e.up)
            with pytest.raises(LinkDownError, match="not taken"):
                await a.open_round("r2", {1: {"jumbo7": 100}}, 2.0)
            with pytest.raises(LinkDownError) as void:
                await a.void_round("r1", 2.0, rule="MD-S2", cause="shuffler jam")
            with pytest.raises(LinkDownError) as settle:
                await a.settle_round("r9", 2.0, hits={"j7": {}})
            unstaked = await a.open_round("r3", {1: {"ante": 500}}, 3.0)  # other bets go on
            server.start()
            await a.wait_up(WAIT)
            back = await lamps.wait_for(lambda e: isinstance(e, AmountChanged) and e.seq > 2)
            await lamps.close()
            return down, void.value, settle.value, unstaked, back

    down, void, settle, unstaked, back = asyncio.run(main())
    assert not down.up and down.reason
    assert void.queued and not settle.queued
    assert unstaked.contributions == {} and unstaked.stakes == {}
    assert back.amount == SEED  # the void owed was applied before the link came up
    (current, rounds), states = amounts(dsn)
    assert (current, rounds) == (SEED, 0)
    assert states == {"r1": "voided"}  # r2, refused while down, was never counted


@pytest.mark.parametrize("committed", [True, False])
def test_an_opening_whose_outcome_was_lost_is_never_counted(dsn, monkeypatch, committed):
    """The link fails during COMMIT: the table returns the linked stakes, and the client
    makes the store agree before it reports the link up again."""
    original = store.PoolTransactions.open_round

    async def lossy(self, rid, seats, now):
        if rid == "lost":
            if committed:
                await original(self, rid, seats, now)
            raise psycopg.OperationalError("server closed the connection unexpectedly")
        return await original(self, rid, seats, now)

    monkeypatch.setattr(store.PoolTransactions, "open_round", lossy)

    async def main():
        async with LinkedPool(settings(dsn), "A", RULES) as a:
            await a.wait_up(WAIT)
            await a.open_round("kept", {2: {"jumbo7": 100}}, 1.0)
            with pytest.raises(LinkDownError, match="the link failed"):
                await a.open_round("lost", {1: {"jumbo7": 100}}, 2.0)
            assert not a.link_up
            await a.wait_up(WAIT)
            return a.amount

    amount = asyncio.run(main())
    assert amount.amount == SEED + 20
    (current, rounds), states = amounts(dsn)
    assert (current, rounds) == (SEED + 20, 1)
    assert states == {"kept": "open", "lost": "voided" if committed else "abandoned"}


def lose_answer_of_void(monkeypatch, **committed):
    """The link fails during the COMMIT of round r1's first void, which the store did apply
    (with ``committed`` overriding what was asked); every call's result is kept."""
    original = store.PoolTransactions.void_round
    results = []

    async def lossy(self, rid, now, **asked):
        if results:
            results.append(await original(self, rid, now, **asked))
            return results[-1]
        results.append(await original(self, rid, now, **{**asked, **committed}))
        raise psycopg.OperationalError("server closed the connection unexpectedly")

    monkeypatch.setattr(store.PoolTransactions, "void_round", lossy)
    return results


async def void_lost_then_rejoin(dsn):
    async with LinkedPool(settings(dsn), "A", RULES) as a:
        await a.wait_up(WAIT)
        await a.open_round("r1", {1: {"jumbo7": 100}}, 1.0)
        with pytest.raises(LinkDownError) as void:
            await a.void_round(
                "r1", 2.0, rule="MD-S3", cause="two cards up", stakes={1: {"jumbo7": 100}}
            )
        assert void.value.queued and not a.link_up
        await a.wait_up(WAIT)
        await a.open_round("r2", {1: {"jumbo7": 100}}, 3.0)  # the table plays on


def test_a_void_whose_answer_was_lost_is_applied_once(dsn, monkeypatch):
    """The void committed but its answer was lost: the void owed, applied at reconnection,
    is its repeat (same rule and cause, without the stakes) and returns the recorded one."""
    results = lose_answer_of_void(monkeypatch)
    asyncio.run(void_lost_then_rejoin(dsn))
    first, owed = results
    assert not first.retried and owed.retried and owed.seq == first.seq
    (current, rounds), states = amounts(dsn)
    assert (current, rounds) == (SEED + 20, 1) and states == {"r1": "voided", "r2": "open"}


def test_a_void_owed_that_contradicts_the_stores_does_not_keep_the_link_down(
    dsn, monkeypatch, caplog
):
    """The store holds another void of the round (the same money: the opening's stakes
    returned, its contribution reversed): it stands, the void owed is dropped with an error
    in the log, and the link comes up (else every reconnection would fail on it)."""
    results = lose_answer_of_void(monkeypatch, rule="MD-S1")
    with caplog.at_level("ERROR", logger="controller.books.linked.client"):
        asyncio.run(void_lost_then_rejoin(dsn))
    assert len(results) == 1  # the owed void was refused: the store's stands
    (current, rounds), states = amounts(dsn)
    assert (current, rounds) == (SEED + 20, 1) and states == {"r1": "voided", "r2": "open"}
    (record,) = [r for r in caplog.records if "void owed" in r.getMessage()]
    assert 'rule "MD-S1" recorded, "MD-S3" asked' in record.getMessage()


def test_a_transaction_without_an_answer_marks_the_link_down(dsn):
    """Another session holds the pool row: the opening gets no answer within the operation
    timeout, the link is reported down at once, and the opening is settled as in doubt."""

    async def main():
        blocker = await psycopg.AsyncConnection.connect(dsn)
        async with LinkedPool(settings(dsn, operation_timeout=1.0), "A", RULES) as a:
            await a.wait_up(WAIT)
            await blocker.execute("SELECT * FROM croupier.pools FOR UPDATE")
            with pytest.raises(LinkDownError, match="no answer from the store in 1 s"):
                await a.open_round("slow", {1: {"jumbo7": 100}}, 1.0)
            assert not a.link_up
            await blocker.rollback()
            await a.wait_up(WAIT)
        await blocker.close()

    asyncio.run(main())
    (current, rounds), states = amounts(dsn)
    assert (current, rounds) == (SEED, 0) and states == {"slow": "abandoned"}


def test_rounds_an_earlier_run_left_open_are_voided_at_the_first_join(dsn):
    async def earlier_run():
        conn = await store.connect(dsn)
        tx = store.PoolTransactions(conn, "jumbo7", "A")
        await tx.join("earlier run")
        await tx.open_round("stale", {1: 100}, 1.0)
        await conn.close()

    async def main():
        await earlier_run()
        async with LinkedPool(settings(dsn), "A", RULES) as a:
            lamps = Watcher(a)
            up = await lamps.wait_for(lambda e: isinstance(e, LinkChanged) and e.up)
            await lamps.close()
            return up

    up = asyncio.run(main())
    assert [(v.round_id, v.rule) for v in up.recovered] == [("stale", "MD-S2")]
    assert amounts(dsn)[1] == {"stale": "voided"}


def test_a_settlement_asked_again_after_the_link_is_back(dsn, server):
    async def main():
        async with LinkedPool(settings(dsn), "A", RULES) as a:
            await a.wait_up(WAIT)
            lamps = Watcher(a)
            await a.open_round("r1", {1: {"jumbo7": 100}, 2: {"jumbo7": 100}}, 1.0)
            server.stop()
            await lamps.wait_for(lambda e: isinstance(e, LinkChanged) and not e.up)
            await lamps.close()
            hits = {"j7": {2: JACKPOT}, "other-pool": {1: "royal-flush"}}
            with pytest.raises(LinkDownError, match="link is down"):
                await a.settle_round("r1", 2.0, hits=hits, hands={2: "SF"})
            server.start()
            await a.wait_up(WAIT)
            return await a.settle_round("r1", 2.0, hits=hits, hands={2: "SF"})

    settled = asyncio.run(main())
    assert settled.jackpot and settled.pools == {"j7": SEED}
    assert settled.paid == {1: {"jumbo7": 0, "jackpot-share": 50020}, 2: {"jumbo7": 50020}}


def test_a_pool_that_pays_otherwise_keeps_the_link_down(server):
    name = fresh_database(server.dsn)
    other = dsn_with(server.dsn, name)
    pays = dict(RULES.paytable.pays, flush=FixedPerUnit(800))
    rules = dataclasses.replace(RULES, paytable=PayTable("jumbo7", pays))
    create_pool(other, pool_config("jumbo7", rules, seed=SEED))

    async def main():
        async with LinkedPool(settings(other), "A", RULES) as a:
            lamps = Watcher(a)
            await lamps.wait_for(lambda e: isinstance(e, LinkChanged) and "paytable" in e.reason)
            await lamps.close()
            return a.link_up, a.link_reason

    up, reason = asyncio.run(main())
    drop_database(server.dsn, name)
    assert not up and "does not pay by this table's profile" in reason


def test_bad_calls_are_refused_before_anything_is_sent(dsn):
    async def main():
        async with LinkedPool(settings(dsn), "A", RULES) as a:
            await a.wait_up(WAIT)
            await a.open_round("r1", {1: {"jumbo7": 100}}, 1.0)
            with pytest.raises(BadRoundError, match="no hits given for pool j7"):
                await a.settle_round("r1", 2.0, hits={"jumbo7-bg": {}})
            with pytest.raises(BadRoundError, match="not a positive amount"):
                await a.open_round("r2", {1: {"jumbo7": 0}}, 1.0)
            await a.void_round("r1", 3.0, rule="MD-S1", cause="test")

    asyncio.run(main())


def test_a_forged_notify_shows_for_a_heartbeat_at_most_and_never_freezes_the_sign(dsn):
    """Anyone who may connect to the database may NOTIFY on the pool's channel. A payload
    claiming sequence 2^62 was shown, and every genuine one after it looked old: the sign
    stayed at the forged amount until the daemon restarted. The pool row read every
    heartbeat overrides it."""
    forged = '{"amount": 999999, "seed": 1, "seq": 4611686018427387904, "table": "X"}'

    async def main():
        async with two_tables(dsn) as (a, b, sign):
            async with await psycopg.AsyncConnection.connect(dsn, autocommit=True) as stranger:
                await stranger.execute("SELECT pg_notify('croupier_pool:jumbo7', %s)", (forged,))
            await sign.wait_for(lambda e: isinstance(e, AmountChanged) and e.amount == 999999)
            after = len(sign.seen)
            back = await sign.wait_for(  # the next heartbeat's reading of the row
                lambda e: (
                    isinstance(e, AmountChanged) and e.amount == SEED and e in sign.seen[after:]
                )
            )
            await a.open_round("r1", {1: {"jumbo7": 100}}, 1.0)
            genuine = await sign.wait_for(lambda e: isinstance(e, AmountChanged) and e.table == "A")
            await sign.close()
            return back, genuine, b.amount

    back, genuine, shown = asyncio.run(main())
    assert back.seq < 2**62 and genuine.amount == SEED + 20
    assert shown.amount == SEED + 20

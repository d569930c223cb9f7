"""CH-9 across the link (share_scope = "link", ch-bg's default) on a real PostgreSQL store:
at a hit the store fixes the shares over every Jumbo 7 stake of the round each participating
table has in play (the hitting round included), in proportion to stake, to the cent
(largest remainder, ties to the hitting table first); each table is paid its seats' shares at
its own settlement; a round voided after the hit (a misdeal, MD-S2 after a kill -9) gets none
and its share returns to the pool, journaled. ``share_scope = "table"`` is unchanged."""

import asyncio
import dataclasses
import json
import os
import signal
import subprocess
import sys
import textwrap

import psycopg
import pytest
from pg import RULES, SEED, create_pool, jumbo7

from controller.books.linked import store
from controller.books.linked.client import LinkedPool
from controller.books.linked.settings import LinkedSettings
from controller.books.linked.verify import verify_store
from controller.engine.pools.config import pool_config

JACKPOT = "seven-card-straight-flush"
WAIT = 30  # seconds: a bound on waiting, never a timing assertion
RATE = RULES.contribution_rate  # 20% of each stake feeds the pool


def contribution(stake):
    return int(stake * RATE)


class Tables:
    """Each table's money transactions on the pool, one connection each (asyncio)."""

    def __init__(self, dsn):
        self.dsn = dsn
        self.tx = {}

    async def __aenter__(self):
        return self

    async def __aexit__(self, *exc):
        for tx in self.tx.values():
            await tx.conn.close()

    async def __call__(self, table):
        if table not in self.tx:
            conn = await store.connect(self.dsn)
            self.tx[table] = store.PoolTransactions(conn, "jumbo7", table)
            await self.tx[table].join("test")
        return self.tx[table]


def link_settings(dsn):
    return LinkedSettings(
        name="j7",
        dsn=dsn,
        pool="jumbo7",
        heartbeat=1.0,
        operation_timeout=5.0,
        reconnect_min=0.05,
        reconnect_max=0.5,
    )


def run(dsn, work):
    async def main():
        async with Tables(dsn) as tables:
            return await work(tables)

    return asyncio.run(main())


def sql(dsn, query, params=()):
    with psycopg.connect(dsn) as conn:
        return conn.execute(query, params).fetchall()


def current(dsn):
    return sql(dsn, "SELECT current FROM croupier.pools")[0][0]


def entry(dsn, kind, table, rid):
    (data,) = sql(
        dsn,
        "SELECT data FROM croupier.journal WHERE kind = %s AND table_id = %s "
        "AND data::jsonb ->> 'round' = %s",
        (kind, table, f"{table}/{rid}"),
    )[0]
    return json.loads(data)


def test_two_tables_share_the_jackpot_and_each_pays_at_its_own_settlement(pool_dsn):
    # the example of docs/linked-pools.md: 100 + 200 at A, 100 + 300 at B, pool 100,140
    async def work(t):
        a, b = await t("A"), await t("B")
        await a.open_round("a1", {1: 100, 2: 200}, 1.0)
        await b.open_round("b1", {1: 100, 3: 300}, 2.0)
        hit = await a.settle_round("a1", 3.0, lines={1: JACKPOT}, hands={}, final=None)
        after_hit = current(pool_dsn)
        paid_b = await b.settle_round("b1", 4.0, lines={3: "flush"}, hands={}, final=None)
        return hit, after_hit, paid_b

    hit, after_hit, paid_b = run(pool_dsn, work)
    outcome = hit.outcomes["jumbo7"]
    assert outcome.pool_before == SEED + contribution(700) == 100140
    # exact 14305.71, 28611.43, 14305.71, 42917.14: two cents left, to the .71 ties, the
    # hitting table's seat first, then B seat 1
    assert (outcome.awards[1].amount, outcome.awards[2].share) == (14306, 28611)
    assert outcome.link_shares == {("B", "b1", 1): 14306, ("B", "b1", 3): 42917}
    assert outcome.jackpot_paid == 100140 and after_hit == SEED  # PRG-5
    assert hit.paid == {1: {"jumbo7": 14306}, 2: {"jumbo7": 0, "jackpot-share": 28611}}
    # B pays its seats' shares at its own settlement, on top of its own lines (flush 4/unit)
    assert paid_b.paid == {
        1: {"jumbo7": 0, "jackpot-share": 14306},
        3: {"jumbo7": 1200, "jackpot-share": 42917},
    }
    assert paid_b.outcomes["jumbo7"].jackpot_paid == 0  # drawn at the hit, not again
    assert current(pool_dsn) == SEED
    hits = sql(
        pool_dsn,
        "SELECT table_id, seat, amount, share, from_pool FROM croupier.hits ORDER BY hit_id",
    )
    assert hits == [
        ("A", 1, 14306, 0, 14306),
        ("A", 2, 0, 28611, 28611),
        ("B", 1, 0, 14306, 14306),
        ("B", 3, 1200, 42917, 42917),
    ]
    won = dict(sql(pool_dsn, "SELECT table_id, won_from_pool FROM croupier.tables"))
    assert won == {"A": 100140, "B": 0}  # the hit draws the whole jackpot


def test_three_tables_share_to_the_cent_and_only_rounds_in_play_count(pool_dsn):
    async def work(t):
        a, b, c = await t("A"), await t("B"), await t("C")
        await c.open_round("c0", {5: 100}, 1.0)
        await c.settle_round("c0", 1.5, lines={}, hands={}, final=None)  # before the hit
        await a.open_round("a1", {1: 100}, 2.0)
        await b.open_round("b1", {2: 100}, 3.0)
        await c.open_round("c1", {4: 100}, 4.0)
        hit = await a.settle_round("a1", 5.0, lines={1: JACKPOT}, hands={}, final=None)
        await a.open_round("a2", {1: 100}, 6.0)  # after the hit: no share
        late = await a.settle_round("a2", 7.0, lines={}, hands={}, final=None)
        paid_b = await b.settle_round("b1", 8.0, lines={}, hands={}, final=None)
        paid_c = await c.settle_round("c1", 9.0, lines={}, hands={}, final=None)
        return hit, late, paid_b, paid_c

    hit, late, paid_b, paid_c = run(pool_dsn, work)
    jackpot = SEED + contribution(400)  # c0, a1, b1, c1
    outcome = hit.outcomes["jumbo7"]
    assert outcome.jackpot_paid == jackpot == 100080
    # 100080 / 3 = 33360 exactly: no remainder here
    assert outcome.awards[1].amount == 33360
    assert outcome.link_shares == {("B", "b1", 2): 33360, ("C", "c1", 4): 33360}
    assert late.paid == {1: {"jumbo7": 0}}
    assert paid_b.paid == {2: {"jumbo7": 0, "jackpot-share": 33360}}
    assert paid_c.paid == {4: {"jumbo7": 0, "jackpot-share": 33360}}


def test_three_tables_remainder_cents_follow_the_documented_rule(pool_dsn):
    async def work(t):
        a, b, c = await t("A"), await t("B"), await t("C")
        await b.open_round("b1", {1: 100, 2: 100}, 1.0)
        await c.open_round("c1", {3: 300}, 2.0)
        await a.open_round("a1", {6: 100}, 3.0)
        return await a.settle_round("a1", 4.0, lines={6: JACKPOT}, hands={}, final=None)

    outcome = run(pool_dsn, work).outcomes["jumbo7"]
    jackpot = SEED + contribution(600)  # 100120 over 600: exact 16686.67 x3, 50060.0
    shares = {("A", "a1", 6): outcome.awards[6].amount, **outcome.link_shares}
    assert sum(shares.values()) == jackpot == outcome.jackpot_paid
    # floors 16686 x3 + 50060 leave 2 cents; the .67 ties go to the hitting table, then B 1
    assert shares == {
        ("A", "a1", 6): 16687,
        ("B", "b1", 1): 16687,
        ("B", "b1", 2): 16686,
        ("C", "c1", 3): 50060,
    }


def test_a_round_voided_after_the_hit_gets_no_share_and_it_returns_to_the_pool(pool_dsn):
    async def work(t):
        a, b = await t("A"), await t("B")
        await a.open_round("a1", {1: 100}, 1.0)
        await b.open_round("b1", {1: 300}, 2.0)
        await a.settle_round("a1", 3.0, lines={1: JACKPOT}, hands={}, final=None)
        return await b.void_round("b1", 4.0, rule="MD-M2", cause="a card exposed")

    voided = run(pool_dsn, work)
    assert voided.returned == {1: {"jumbo7": 300}}
    # the jackpot 100080 was 25020 / 75060; B's 75060 comes back, B's contribution goes
    assert current(pool_dsn) == SEED - contribution(300) + 75060
    data = entry(pool_dsn, "round.voided", "B", "b1")
    assert data["rule"] == "MD-M2"
    assert data["pools"]["jumbo7"]["shares_returned"] == {
        "seats": {"1": 75060},
        "to_current": 75060,
        "to_reserve": 0,
    }
    won = dict(sql(pool_dsn, "SELECT table_id, won_from_pool FROM croupier.tables"))
    assert won == {"A": 100080, "B": -75060}
    assert sql(pool_dsn, "SELECT count(*) FROM croupier.hits WHERE table_id = 'B'") == [(0,)]


TABLE_PROCESS = """
import asyncio, sys
from controller.books.linked.client import LinkedPool
from controller.books.linked.settings import LinkedSettings
from controller.engine.profiles import load_profile

async def main():
    settings = LinkedSettings(name="j7", dsn=sys.argv[1], pool="jumbo7", heartbeat=1.0,
                              operation_timeout=5.0, reconnect_min=0.05, reconnect_max=0.5)
    async with LinkedPool(settings, "B", load_profile("ch-bg").progressive) as b:
        await b.wait_up(30)
        await b.open_round("B-000001", {2: {"jumbo7": 200, "ante": 1000}}, 1.0)
        print("OPENED", flush=True)
        await asyncio.sleep(3600)

asyncio.run(main())
"""


def test_a_table_killed_between_the_hit_and_its_settlement_gives_its_share_back(pool_dsn):
    """Table B (its own process) has a round in play at A's hit, is killed (SIGKILL) before
    settling it; at restart its client voids the round (MD-S2) and its share returns."""
    process = subprocess.Popen(
        [sys.executable, "-c", textwrap.dedent(TABLE_PROCESS), pool_dsn],
        stdout=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )
    try:
        assert process.stdout.readline().strip() == "OPENED"

        async def hit(t):
            a = await t("A")
            await a.open_round("A-000001", {1: 200}, 2.0)
            return await a.settle_round("A-000001", 3.0, lines={1: JACKPOT}, hands={}, final=None)

        outcome = run(pool_dsn, hit).outcomes["jumbo7"]
    finally:
        process.send_signal(signal.SIGKILL)
        process.wait(WAIT)
    jackpot = SEED + contribution(400)
    assert outcome.link_shares == {("B", "B-000001", 2): jackpot // 2}
    assert current(pool_dsn) == SEED

    async def restart():
        async with LinkedPool(link_settings(pool_dsn), "B", RULES) as b:
            await b.wait_up(WAIT)
            return b.amount.amount

    shown = asyncio.run(restart())
    assert shown == SEED - contribution(200) + jackpot // 2 == current(pool_dsn)
    data = entry(pool_dsn, "round.voided", "B", "B-000001")
    assert (data["rule"], data["returned"]) == ("MD-S2", {"2": {"jumbo7": 200}})
    assert data["pools"]["jumbo7"]["shares_returned"]["seats"] == {"2": jackpot // 2}


def test_table_scope_shares_over_the_hitting_round_only(store_dsn):
    rules = dataclasses.replace(RULES, share_scope="table")
    create_pool(store_dsn, pool_config("jumbo7", rules, seed=SEED))

    async def work(t):
        a, b = await t("A"), await t("B")
        await a.open_round("a1", {1: 100, 2: 300}, 1.0)
        await b.open_round("b1", {1: 100}, 2.0)
        hit = await a.settle_round("a1", 3.0, lines={1: JACKPOT}, hands={}, final=None)
        return hit, await b.settle_round("b1", 4.0, lines={}, hands={}, final=None)

    hit, paid_b = run(store_dsn, work)
    outcome = hit.outcomes["jumbo7"]
    assert outcome.link_shares == {}
    # the jackpot, B's contribution included, goes to A's bettors alone (1:3)
    assert outcome.jackpot_paid == SEED + contribution(500) == 100100
    assert (outcome.awards[1].amount, outcome.awards[2].share) == (25025, 75075)
    assert paid_b.paid == {1: {"jumbo7": 0}}
    assert verify_store(store_dsn).problems == []


@pytest.mark.parametrize("scope", ["link", "table"])
def test_the_link_comes_up_whatever_the_share_scope(store_dsn, scope):
    rules = dataclasses.replace(RULES, share_scope=scope)
    create_pool(store_dsn, jumbo7() if scope == "link" else pool_config("jumbo7", rules, seed=SEED))

    async def main():
        async with LinkedPool(link_settings(store_dsn), "A", rules) as table:
            await table.wait_up(WAIT)
            return table.link_up

    assert asyncio.run(main())

"""The linked-pool store against a real PostgreSQL server: schema and migrations, pools,
round events and their idempotency, shared awards, abandoned openings, verify and tampering
(PRG-1..6, CH-8, CH-9)."""

import asyncio
import json
import re

import psycopg
import pytest
from pg import SEED, create_pool, jumbo7
from pg import run_on_pool as run

from controller.books.ledger.errors import BadRoundError, RoundConflictError, RoundStateError
from controller.books.ledger.rounds import RoundState
from controller.books.linked import admin, schema, store
from controller.books.linked.errors import LinkedStoreError, StoreVersionError
from controller.books.linked.verify import verify_store
from controller.engine.pools.meters import METER_COLUMNS
from controller.validation import ConfigError

JACKPOT = "seven-card-straight-flush"


def status(dsn):
    async def main():
        conn = await store.connect(dsn)
        try:
            return await admin.pool_status(conn)
        finally:
            await conn.close()

    return asyncio.run(main())["pools"][0]


def sql(dsn, query, params=()):
    with psycopg.connect(dsn, autocommit=True) as conn:
        cur = conn.execute(query, params)
        return cur.fetchall() if cur.description else None


# -- schema ------------------------------------------------------------------------------------


def test_migrations_create_the_schema_once_and_record_the_version(store_dsn):
    assert create_pool(store_dsn) == "created"

    async def again():
        conn = await store.connect(store_dsn)
        try:
            return await schema.migrate(conn)
        finally:
            await conn.close()

    assert asyncio.run(again()) == (schema.SCHEMA_VERSION, schema.SCHEMA_VERSION)
    version = sql(store_dsn, "SELECT value FROM croupier.meta WHERE key = 'schema_version'")
    assert version == [(str(schema.SCHEMA_VERSION),)]


def test_the_pool_row_has_a_column_for_every_meter(store_dsn):
    create_pool(store_dsn)
    columns = {
        r[0]
        for r in sql(
            store_dsn,
            "SELECT column_name FROM information_schema.columns "
            "WHERE table_schema = 'croupier' AND table_name = 'pools'",
        )
    }
    assert set(METER_COLUMNS) <= columns


def test_a_store_of_a_newer_version_is_refused(store_dsn):
    create_pool(store_dsn)
    sql(store_dsn, "UPDATE croupier.meta SET value = '99' WHERE key = 'schema_version'")
    with pytest.raises(StoreVersionError, match=r"version 99.*install a newer croupier"):
        status(store_dsn)


def test_an_uninitialised_store_says_what_to_run(store_dsn):
    with pytest.raises(StoreVersionError, match="croupier pool init"):
        status(store_dsn)


def test_the_round_states_are_the_columns_values_and_the_local_ledgers(store_dsn):
    create_pool(store_dsn)
    (check,) = sql(
        store_dsn,
        "SELECT pg_get_constraintdef(oid) FROM pg_constraint "
        "WHERE conrelid = 'croupier.rounds'::regclass AND contype = 'c'",
    )[0]
    assert sorted(re.findall(r"'(\w+)'", check)) == sorted(store.LinkedRoundState)
    assert {s.value for s in RoundState} < {s.value for s in store.LinkedRoundState}


def test_a_round_state_outside_the_schemas_is_a_one_line_error(store_dsn):
    create_pool(store_dsn)
    run(store_dsn, lambda tx: tx.open_round("r1", {1: 100}, 1.0))
    sql(store_dsn, "ALTER TABLE croupier.rounds DROP CONSTRAINT rounds_state_check")
    sql(store_dsn, "UPDATE croupier.rounds SET state = 'paid'")
    with pytest.raises(LinkedStoreError, match="round r1 of table t1: its state 'paid' in the"):
        run(store_dsn, lambda tx: tx.void_round("r1", 2.0, rule="MD-S1", cause="test"))


# -- pools -------------------------------------------------------------------------------------


def test_a_pool_change_is_journaled_and_refused_while_a_round_is_open(pool_dsn):
    assert create_pool(pool_dsn) == "unchanged"
    run(pool_dsn, lambda tx: tx.open_round("r1", {1: 100}, 1.0))
    with pytest.raises(RoundStateError, match="round r1 of table t1 is open"):
        create_pool(pool_dsn, jumbo7(seed=200_000))
    run(pool_dsn, lambda tx: tx.void_round("r1", 2.0, rule="MD-S1", cause="test"))
    assert create_pool(pool_dsn, jumbo7(seed=200_000)) == "changed"
    changed = sql(pool_dsn, "SELECT data FROM croupier.journal WHERE kind = 'pool.configured'")
    assert json.loads(changed[0][0])["changed"] == {"seed": [SEED, 200_000]}


def test_a_cap_below_the_amount_displayed_is_refused(pool_dsn):
    run(pool_dsn, lambda tx: tx.open_round("r1", {1: 100}, 1.0))
    run(pool_dsn, lambda tx: tx.settle_round("r1", 2.0, lines={}, hands={}, final=None))
    with pytest.raises(ConfigError, match="below the amount displayed"):
        create_pool(pool_dsn, jumbo7(cap=SEED + 10))


# -- round events ------------------------------------------------------------------------------


def test_a_retried_opening_counts_once_and_other_stakes_conflict(pool_dsn):
    async def work(tx):
        first = await tx.open_round("r1", {1: 100, 2: 100}, 1.0)
        again = await tx.open_round("r1", {1: 100, 2: 100}, 1.5)
        with pytest.raises(RoundConflictError, match="other stakes"):
            await tx.open_round("r1", {1: 100}, 2.0)
        return first, again

    first, again = run(pool_dsn, work)
    assert not first.retried and again.retried
    assert first.contributions == again.contributions
    assert first.pools == again.pools == {"jumbo7": SEED + 40}  # 20% of 200 (PRG-1)
    assert status(pool_dsn)["meters"]["rounds"] == 1


def test_the_same_round_id_at_two_tables_is_two_rounds(pool_dsn):
    run(pool_dsn, lambda tx: tx.open_round("r1", {1: 100}, 1.0), table="t1")
    run(pool_dsn, lambda tx: tx.open_round("r1", {1: 100}, 1.0), table="t2")
    pool = status(pool_dsn)
    assert pool["meters"]["current"] == SEED + 40
    assert [(t["table_id"], t["rounds"], t["open_rounds"]) for t in pool["tables"]] == [
        ("t1", 1, 1),
        ("t2", 1, 1),
    ]


def test_contributions_carry_their_remainder_across_tables(pool_dsn):
    """20% of a 3-cent stake is 3/5 cent: nothing is rounded away, whoever contributes."""

    async def open_at(table, rid):
        conn = await store.connect(pool_dsn)
        tx = store.PoolTransactions(conn, "jumbo7", table)
        await tx.join("test")
        try:
            return await tx.open_round(rid, {1: 3}, 1.0)
        finally:
            await conn.close()

    moved = [asyncio.run(open_at(f"t{n % 3}", f"r{n}")) for n in range(5)]
    assert [m.contributions["jumbo7"].to_current for m in moved] == [0, 1, 0, 1, 1]
    assert status(pool_dsn)["meters"]["carry"] == "0/1"  # 5 x 3/5 = exactly 3 cents


def test_a_void_reverses_exactly_and_is_idempotent(pool_dsn):
    async def work(tx):
        await tx.open_round("r1", {1: 3}, 1.0)
        opened = await tx.open_round("r2", {1: 100, 4: 100}, 1.0)
        voided = await tx.void_round("r2", 2.0, rule="MD-S3", cause="two cards face up")
        again = await tx.void_round("r2", 3.0, rule="MD-S3", cause="two cards face up")
        return opened, voided, again

    opened, voided, again = run(pool_dsn, work)
    assert voided.reversals["jumbo7"].from_current == opened.contributions["jumbo7"].to_current
    assert voided.returned == {1: {"jumbo7": 100}, 4: {"jumbo7": 100}}  # MD: stakes returned
    assert again.retried and again.pools == voided.pools
    meters = status(pool_dsn)["meters"]
    assert (meters["current"], meters["carry"], meters["voids"]) == (SEED, "3/5", 1)


AT_THE_VOID = {1: {"jumbo7": 100, "ante": 500, "play": 1000}, 4: {"jumbo7": 100, "ante": 500}}


def test_a_void_repeated_as_it_was_returns_the_recorded_result(pool_dsn):
    """A retried void, or one owed while the link was down (no stakes: it contradicts
    nothing), as the local ledger: the recorded result, applied once."""

    async def work(tx):
        await tx.open_round("r1", {1: 100, 4: 100}, 1.0)
        first = await tx.void_round(
            "r1", 2.0, rule="MD-S3", cause="two cards up", final=AT_THE_VOID
        )
        repeats = [
            await tx.void_round("r1", 3.0, rule="MD-S3", cause="two cards up", final=final)
            for final in (AT_THE_VOID, {1: {"jumbo7": 100}, 4: {"jumbo7": 100}}, None)
        ]
        return first, repeats

    first, repeats = run(pool_dsn, work)
    for again in repeats:
        assert again.retried and again.seq == first.seq
        assert (again.rule, again.cause, again.returned) == (
            first.rule,
            first.cause,
            first.returned,
        )
        assert again.reversals == first.reversals
    assert status(pool_dsn)["meters"]["voids"] == 1


@pytest.mark.parametrize(
    ("change", "error", "said"),
    [
        ({"rule": "MD-S1"}, RoundConflictError, 'other rule: rule "MD-S3" recorded, "MD-S1" asked'),
        ({"cause": "a count"}, RoundConflictError, 'other cause: cause "two cards up" recorded'),
        ({"rule": "MD-S1", "cause": "a count"}, RoundConflictError, "with other rule, cause: "),
        # the pool's stakes are the opening's (PRG-2), checked before the comparison as the
        # local ledger does; the table wagers are the table's ledger's to compare
        ({"final": {1: {"jumbo7": 200}, 4: {"jumbo7": 100}}}, BadRoundError, "PRG-2"),
        ({"final": {1: {"jumbo7": 100}}}, BadRoundError, "PRG-2"),
    ],
)
def test_a_void_repeated_otherwise_is_refused_naming_what_differs(pool_dsn, change, error, said):
    asked = {"rule": "MD-S3", "cause": "two cards up", "final": AT_THE_VOID}

    async def work(tx):
        await tx.open_round("r1", {1: 100, 4: 100}, 1.0)
        await tx.void_round("r1", 2.0, **asked)
        with pytest.raises(error) as refused:
            await tx.void_round("r1", 3.0, **{**asked, **change})
        return str(refused.value)

    message = run(pool_dsn, work)
    assert said in message and "\n" not in message
    if error is RoundConflictError:
        assert message.startswith("round r1 of table t1 was already voided with other ")
    rows = sql(pool_dsn, "SELECT state, rule, cause FROM croupier.rounds")
    assert rows == [("voided", "MD-S3", "two cards up")]  # as the first void recorded it
    assert status(pool_dsn)["meters"]["voids"] == 1


def test_a_share_round_jackpot_is_split_by_stake_with_the_remainder_rule(pool_dsn):
    """CH-9: every bettor of the hitting table's round shares by stake; the leftover cents
    of the floors go to the largest fractional parts, ties to the lowest seat."""

    async def work(tx):
        await tx.open_round("r1", {1: 100, 2: 200, 3: 100, 5: 300}, 1.0)  # +140
        return await tx.settle_round(
            "r1", 2.0, lines={3: JACKPOT, 5: "flush"}, hands={3: "SF7 ..."}, final=None
        )

    settled = run(pool_dsn, work)
    outcome = settled.outcomes["jumbo7"]
    assert outcome.pool_before == SEED + 140 and outcome.jackpot_paid == SEED + 140
    shares = {seat: a.from_pool for seat, a in outcome.awards.items()}
    # 100140 x (1, 2, 1, 3)/7 = 14305.7, 28611.4, 14305.7, 42917.1: floors + 2 cents
    assert shares == {1: 14306, 2: 28611, 3: 14306, 5: 42917}
    assert sum(shares.values()) == SEED + 140
    assert settled.paid[3] == {"jumbo7": 14306}  # the hitting seat's wager is its share
    assert settled.paid[5] == {"jumbo7": 1200, "jackpot-share": 42917}  # flush 4 x 3 units
    assert settled.pools == {"jumbo7": SEED}  # reset to seed (PRG-5)
    hits = sql(pool_dsn, "SELECT seat, line, share, from_pool FROM croupier.hits ORDER BY seat")
    assert hits == [
        (1, None, 14306, 14306),
        (2, None, 28611, 28611),
        (3, JACKPOT, 0, 14306),
        (5, "flush", 42917, 42917),
    ]


def test_a_retried_settlement_returns_the_recorded_one(pool_dsn):
    async def work(tx):
        await tx.open_round("r1", {1: 100}, 1.0)
        first = await tx.settle_round("r1", 2.0, lines={1: JACKPOT}, hands={}, final=None)
        await tx.open_round("r2", {1: 100}, 3.0)  # the pool moved on
        again = await tx.settle_round("r1", 4.0, lines={1: JACKPOT}, hands={}, final=None)
        with pytest.raises(RoundConflictError) as conflict:
            await tx.settle_round("r1", 5.0, lines={}, hands={}, final=None)
        assert str(conflict.value) == (  # what differs, both ways (not "other results")
            "round r1 of table t1 was already settled with other hits: hits"
            ' {"jumbo7":{"1":"seven-card-straight-flush"}} recorded, {"jumbo7":{}} asked'
        )
        return first, again

    first, again = run(pool_dsn, work)
    assert again.retried and again.outcomes == first.outcomes and again.paid == first.paid
    assert status(pool_dsn)["meters"]["hits"] == 1


@pytest.mark.parametrize(
    ("setup", "action", "error", "message"),
    [
        ([], "settle", RoundStateError, "no round r1"),
        ([], "void", RoundStateError, "no round r1"),
        (["open", "void"], "settle", RoundStateError, "was voided"),
        (["open", "settle"], "void", RoundStateError, "settled round cannot be voided"),
    ],
)
def test_round_events_their_state_forbids(pool_dsn, setup, action, error, message):
    steps = {
        "open": lambda tx: tx.open_round("r1", {1: 100}, 1.0),
        "void": lambda tx: tx.void_round("r1", 2.0, rule="MD-S1", cause="test"),
        "settle": lambda tx: tx.settle_round("r1", 2.0, lines={}, hands={}, final=None),
    }

    async def work(tx):
        for step in setup:
            await steps[step](tx)
        with pytest.raises(error, match=message):
            await steps[action](tx)

    run(pool_dsn, work)


def test_a_progressive_stake_cannot_change_by_settlement(pool_dsn):
    async def work(tx):
        await tx.open_round("r1", {1: 100}, 1.0)
        with pytest.raises(BadRoundError, match="PRG-2"):
            await tx.settle_round(
                "r1", 2.0, lines={}, hands={}, final={1: {"jumbo7": 100}, 2: {"jumbo7": 100}}
            )
        with pytest.raises(BadRoundError, match=re.escape("seats [2] have no stake")):
            await tx.settle_round("r1", 2.0, lines={2: "flush"}, hands={}, final=None)
        return await tx.settle_round(
            "r1", 2.0, lines={}, hands={}, final={1: {"jumbo7": 100, "ante": 500}}
        )

    assert run(pool_dsn, work).paid == {1: {"jumbo7": 0}}


def test_a_void_with_the_tables_stakes_returns_the_pools_and_keeps_prg2(pool_dsn):
    """The table's stakes at the void (MD): the pool's own stay the opening's (PRG-2), the
    table wagers are the table's ledger's; the entry says whether they were given."""

    async def work(tx):
        await tx.open_round("r1", {1: 100}, 1.0)
        await tx.open_round("r2", {1: 100}, 1.0)
        with pytest.raises(BadRoundError, match="PRG-2"):
            await tx.void_round(
                "r1", 2.0, rule="MD-S3", cause="x", final={1: {"jumbo7": 200, "ante": 500}}
            )
        given = await tx.void_round(
            "r1", 2.0, rule="MD-S3", cause="x", final={1: {"jumbo7": 100, "ante": 500}}
        )
        recovered = await tx.void_round("r2", 3.0, rule="MD-S2", cause="restart")
        return given, recovered

    given, recovered = run(pool_dsn, work)
    assert given.returned == recovered.returned == {1: {"jumbo7": 100}}
    entries = sql(
        pool_dsn, "SELECT data FROM croupier.journal WHERE kind = 'round.voided' ORDER BY seq"
    )
    first, second = (json.loads(d) for (d,) in entries)
    assert first["added"] == {} and "opening_only" not in first
    assert second["opening_only"] is True and "added" not in second
    assert status(pool_dsn)["meters"]["current"] == SEED  # both contributions taken back


def test_an_opening_in_doubt_is_voided_if_it_counted_and_blocked_if_not(pool_dsn):
    async def work(tx):
        await tx.open_round("counted", {1: 100}, 1.0)
        voided = await tx.abandon_round("counted", 2.0)
        nothing = await tx.abandon_round("never-arrived", 2.0)
        with pytest.raises(RoundStateError, match="abandoned"):
            await tx.open_round("never-arrived", {1: 100}, 3.0)
        again = await tx.void_round("never-arrived", 3.0, rule="MD-S1", cause="late")
        return voided, nothing, again

    voided, nothing, again = run(pool_dsn, work)
    assert voided.rule == store.ABANDON_RULE and voided.reversals["jumbo7"].from_current == 20
    assert nothing is None and again.retried and again.reversals == {}
    states = sql(pool_dsn, "SELECT round_id, state FROM croupier.rounds ORDER BY round_id")
    assert states == [("counted", "voided"), ("never-arrived", "abandoned")]
    assert status(pool_dsn)["meters"]["current"] == SEED


# -- verify and tampering ---------------------------------------------------------------------


def play_some(dsn):
    async def work(tx):
        for n in range(6):
            await tx.open_round(f"r{n}", {1: 100, 2: 100}, float(n))
        await tx.void_round("r1", 9.0, rule="MD-S1", cause="test")
        await tx.settle_round("r2", 9.0, lines={1: JACKPOT}, hands={1: "x"}, final=None)
        await tx.settle_round("r3", 9.0, lines={2: "straight"}, hands={}, final=None)

    run(dsn, work, table="t1")
    run(dsn, lambda tx: tx.open_round("r1", {3: 100}, 1.0), table="t2")


def test_the_journal_is_append_only_and_the_hit_history_never_pruned(pool_dsn):
    play_some(pool_dsn)
    with pytest.raises(psycopg.errors.RaiseException, match="append-only"):
        sql(pool_dsn, "UPDATE croupier.journal SET data = '{}' WHERE seq = 2")
    with pytest.raises(psycopg.errors.RaiseException, match="append-only"):
        sql(pool_dsn, "DELETE FROM croupier.journal")
    with pytest.raises(psycopg.errors.RaiseException, match="never pruned"):
        sql(pool_dsn, "TRUNCATE croupier.hits")


def tamper(dsn, statement):
    """Change the store as someone with a SQL tool and the owner's rights would."""
    sql(
        dsn,
        "ALTER TABLE croupier.journal DISABLE TRIGGER USER; " + statement + "; "
        "ALTER TABLE croupier.journal ENABLE TRIGGER USER",
    )


@pytest.mark.parametrize(
    ("statement", "finding"),
    [
        (
            "UPDATE croupier.journal SET data = replace(data, '\"to_current\":40', "
            "'\"to_current\":400') WHERE seq = 3",
            "entry 3 (round.opened) was altered",
        ),
        ("DELETE FROM croupier.journal WHERE seq = 4", "entry 4 is missing"),
        ("DELETE FROM croupier.journal WHERE seq > 9", "missing from the end"),
        (
            "UPDATE croupier.pools SET current = current + 1, contributions = contributions + 1",
            "current is",
        ),
        (
            "UPDATE croupier.tables SET contributions = 0 WHERE table_id = 't2'",
            "table t2: contributions is 0 in the tables row but 20",
        ),
        (
            "UPDATE croupier.rounds SET state = 'open' WHERE round_id = 'r1' AND table_id = 't1'",
            "open rounds differ",
        ),
        ("DROP TRIGGER hits_never_pruned ON croupier.hits", "hits_never_pruned is missing"),
    ],
)
def test_verify_finds_every_kind_of_tampering(store_dsn, statement, finding):
    create_pool(store_dsn)
    play_some(store_dsn)
    assert verify_store(store_dsn).ok
    tamper(store_dsn, statement)
    problems = verify_store(store_dsn).problems
    assert any(finding in p for p in problems), problems

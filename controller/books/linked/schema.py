"""The linked-pool store's PostgreSQL schema and its versioned migrations.

Everything lives in the PostgreSQL schema ``croupier`` of the database the DSN names, so the
store can share a database with other applications. ``croupier.meta`` holds
``schema_version``; :data:`MIGRATIONS` maps each version to the SQL that brings the previous
version to it. :func:`migrate` runs the missing ones in one transaction with the version bump,
under a transaction-scoped advisory lock, so two technicians running ``croupier pool init`` at
once cannot both migrate, and a failure mid-way keeps the old version. Migration texts are
history: never edit one that has shipped, add the next version instead.

Tables (the concepts of the local ledger, ``docs/ledger.md``, keyed by pool and table):

- ``pools``: one row per linked pool: its configuration (canonical JSON of
  :class:`~controller.engine.pools.config.PoolConfig`), every meter and carry of
  :class:`~controller.engine.pools.meters.PoolState`, and the head of the pool's journal;
- ``journal``: one hash-chained journal per pool (``pool``, ``seq``), append-only by trigger;
  every entry names the table that caused it;
- ``rounds``: one row per (pool, table, round ID): stakes, contribution, reversal or awards;
  the primary key is what makes a retried commit count once;
- ``hits``: the hit history, never pruned (trigger);
- ``tables``: the tables that joined each pool, when they were last seen, and their share of
  the meters (rounds, stakes, contributions, awards);
- ``ledger_heads`` (version 2): the witness of each table's own SQLite ledger, the last journal
  head it published (``controller.books.linked.witness``), never lowered (trigger).

Every money transaction locks the pool row first (``SELECT ... FOR UPDATE``), so transactions
on one pool are serialised by that lock, and they run at ``SERIALIZABLE`` isolation besides.
"""

from __future__ import annotations

from typing import Any

from controller.books.linked.errors import StoreVersionError
from controller.engine.pools.meters import METER_COLUMNS

SCHEMA = "croupier"
SCHEMA_VERSION = 2
MIGRATION_LOCK = 0x6372_6F75_7069_6572 & 0x7FFF_FFFF_FFFF_FFFF  # "croupier": pool init

V1 = """
CREATE SCHEMA IF NOT EXISTS croupier;

CREATE TABLE croupier.meta (key text PRIMARY KEY, value text NOT NULL);

CREATE TABLE croupier.pools (
    name text PRIMARY KEY,
    config text NOT NULL,
    cycle bigint NOT NULL,
    current bigint NOT NULL CHECK (current >= 0),
    carry text NOT NULL,
    reserve bigint NOT NULL CHECK (reserve >= 0),
    reserve_carry text NOT NULL,
    rounds bigint NOT NULL,
    stakes_in bigint NOT NULL,
    voids bigint NOT NULL,
    stakes_returned bigint NOT NULL,
    contributions bigint NOT NULL,
    reserve_contributions bigint NOT NULL,
    overflow bigint NOT NULL,
    seeded_house bigint NOT NULL,
    seeded_reserve bigint NOT NULL,
    hits bigint NOT NULL,
    won_from_pool bigint NOT NULL,
    won_fixed bigint NOT NULL,
    envy_paid bigint NOT NULL,
    corrections bigint NOT NULL,
    reserve_corrections bigint NOT NULL,
    cycle_start bigint NOT NULL,
    cycle_contributions bigint NOT NULL,
    cycle_won bigint NOT NULL,
    cycle_corrections bigint NOT NULL,
    head_seq bigint NOT NULL,
    head_hash text NOT NULL,
    updated timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE croupier.journal (
    pool text NOT NULL REFERENCES croupier.pools (name),
    seq bigint NOT NULL,
    kind text NOT NULL,
    table_id text,
    mono double precision NOT NULL,
    wall text NOT NULL,
    data text NOT NULL,
    prev_hash text NOT NULL,
    hash text NOT NULL,
    PRIMARY KEY (pool, seq)
);

CREATE TABLE croupier.tables (
    pool text NOT NULL REFERENCES croupier.pools (name),
    table_id text NOT NULL,
    first_seen timestamptz NOT NULL DEFAULT now(),
    last_seen timestamptz NOT NULL DEFAULT now(),
    client text NOT NULL DEFAULT '',
    listener_pid integer,
    rounds bigint NOT NULL DEFAULT 0,
    stakes_in bigint NOT NULL DEFAULT 0,
    contributions bigint NOT NULL DEFAULT 0,
    reserve_contributions bigint NOT NULL DEFAULT 0,
    voids bigint NOT NULL DEFAULT 0,
    hits bigint NOT NULL DEFAULT 0,
    won_from_pool bigint NOT NULL DEFAULT 0,
    won_fixed bigint NOT NULL DEFAULT 0,
    PRIMARY KEY (pool, table_id)
);

CREATE TABLE croupier.rounds (
    pool text NOT NULL REFERENCES croupier.pools (name),
    table_id text NOT NULL,
    round_id text NOT NULL,
    state text NOT NULL CHECK (state IN ('open', 'voided', 'settled', 'abandoned')),
    stakes text NOT NULL,
    staked bigint NOT NULL,
    contribution text,
    reversal text,
    outcome text,
    rule text,
    cause text,
    open_seq bigint,
    close_seq bigint,
    opened text,
    closed text,
    PRIMARY KEY (pool, table_id, round_id),
    FOREIGN KEY (pool, table_id) REFERENCES croupier.tables (pool, table_id)
);
CREATE INDEX rounds_open ON croupier.rounds (pool, table_id) WHERE state = 'open';

CREATE TABLE croupier.hits (
    pool text NOT NULL REFERENCES croupier.pools (name),
    hit_id bigint NOT NULL,
    table_id text NOT NULL,
    round_id text NOT NULL,
    seat integer NOT NULL,
    line text,
    hand text,
    stake bigint NOT NULL,
    amount bigint NOT NULL,
    from_pool bigint NOT NULL,
    share bigint NOT NULL,
    envy bigint NOT NULL,
    cycle bigint NOT NULL,
    wall text NOT NULL,
    seq bigint NOT NULL,
    PRIMARY KEY (pool, hit_id)
);

CREATE FUNCTION croupier.refuse_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION '%', TG_ARGV[0];
END $$;
CREATE TRIGGER journal_append_only BEFORE UPDATE OR DELETE ON croupier.journal
    FOR EACH ROW EXECUTE FUNCTION croupier.refuse_change('the journal is append-only');
CREATE TRIGGER journal_no_truncate BEFORE TRUNCATE ON croupier.journal
    FOR EACH STATEMENT EXECUTE FUNCTION croupier.refuse_change('the journal is append-only');
CREATE TRIGGER hits_never_pruned BEFORE UPDATE OR DELETE ON croupier.hits
    FOR EACH ROW EXECUTE FUNCTION croupier.refuse_change('the hit history is never pruned');
CREATE TRIGGER hits_no_truncate BEFORE TRUNCATE ON croupier.hits
    FOR EACH STATEMENT EXECUTE FUNCTION croupier.refuse_change('the hit history is never pruned');
"""

V2 = """
CREATE TABLE croupier.ledger_heads (
    ledger_id text PRIMARY KEY,
    table_id text NOT NULL,
    seq bigint NOT NULL CHECK (seq >= 0),
    hash text NOT NULL CHECK (hash ~ '^[0-9a-f]{64}$'),
    updated timestamptz NOT NULL DEFAULT now()
);
CREATE FUNCTION croupier.head_never_lowered() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF NEW.seq < OLD.seq THEN
        RAISE EXCEPTION 'ledger head % of % is below the head % already seen',
            NEW.seq, NEW.ledger_id, OLD.seq;
    END IF;
    RETURN NEW;
END $$;
CREATE TRIGGER ledger_head_never_lowered BEFORE UPDATE ON croupier.ledger_heads
    FOR EACH ROW EXECUTE FUNCTION croupier.head_never_lowered();
CREATE TRIGGER ledger_heads_no_delete BEFORE DELETE OR TRUNCATE ON croupier.ledger_heads
    FOR EACH STATEMENT EXECUTE FUNCTION croupier.refuse_change('a ledger head is never deleted');
"""

MIGRATIONS: dict[int, str] = {1: V1, 2: V2}

# Objects whose absence verify reports (someone dropped them to edit history).
GUARDS = ("journal_append_only", "journal_no_truncate", "hits_never_pruned", "hits_no_truncate")

# The pool row's meter columns: every field of PoolState but its name (a test checks that the
# migrations create exactly these).
POOL_METERS = tuple(column for column in METER_COLUMNS if column != "name")


async def schema_version(conn: Any) -> int:
    """The store's schema version, 0 when the store has never been initialised."""
    cur = await conn.execute("SELECT to_regclass('croupier.meta') IS NOT NULL")
    row = await cur.fetchone()
    if not row[0]:
        return 0
    cur = await conn.execute("SELECT value FROM croupier.meta WHERE key = 'schema_version'")
    row = await cur.fetchone()
    return int(row[0]) if row else 0


def check_version(version: int, where: str) -> None:
    """Refuse a store this software cannot use (StoreVersionError with what to do)."""
    if version > SCHEMA_VERSION:
        raise StoreVersionError(
            f"{where} has schema version {version}; this software knows up to "
            f"{SCHEMA_VERSION}: install a newer croupier"
        )
    if version < SCHEMA_VERSION:
        raise StoreVersionError(
            f"{where} has schema version {version}, this software needs {SCHEMA_VERSION}: "
            "run `croupier pool init --dsn ...` to create or migrate it"
        )


async def require_current(conn: Any, where: str = "the store") -> None:
    """Refuse a store this software cannot use (StoreVersionError). ``conn`` must not be in a
    transaction; the check runs in its own."""
    async with conn.transaction():
        version = await schema_version(conn)
    check_version(version, where)


async def migrate(conn: Any) -> tuple[int, int]:
    """Bring the store to :data:`SCHEMA_VERSION` in one transaction (``conn`` must not be in
    one). Returns (version before, version after)."""
    async with conn.transaction():
        await conn.execute("SELECT pg_advisory_xact_lock(%s)", (MIGRATION_LOCK,))
        before = await schema_version(conn)
        if before > SCHEMA_VERSION:
            check_version(before, "the store")
        for version in range(before + 1, SCHEMA_VERSION + 1):
            await conn.execute(MIGRATIONS[version])
            await conn.execute(
                "INSERT INTO croupier.meta (key, value) VALUES ('schema_version', %s) "
                "ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                (str(version),),
            )
    return before, SCHEMA_VERSION

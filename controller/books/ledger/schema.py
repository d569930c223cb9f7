"""The ledger's SQLite schema, its versioned migrations and which rows are sealed.

The schema version is SQLite's ``PRAGMA user_version``. :data:`MIGRATIONS` maps each version to
the SQL that brings the previous version to it; a migration runs in one transaction with the
version bump, so a crash during an upgrade leaves the old version intact. Migration texts are
history: never edit one that has shipped, add the next version instead.

*Sealed* tables (:data:`SEALED`) carry a ``checksum`` column: SHA-256 of the table name and the
listed columns in order (``controller.books.ledger.db.seal``). The ledger checks it whenever it
reads a row it is about to change, and the self-check checks them all, so a row edited or damaged
outside the ledger is caught instead of being re-sealed with a fresh checksum.

The journal is not sealed row by row: its entries are hash-chained (``journal.py``). Triggers
make it append-only, and make the hit history impossible to prune, for anyone going through
SQLite without dropping them first (verify reports a missing trigger).
"""

from __future__ import annotations

SCHEMA_VERSION = 1

_POOL_METERS = """
    cycle INTEGER NOT NULL,
    current INTEGER NOT NULL,
    carry TEXT NOT NULL,
    reserve INTEGER NOT NULL,
    reserve_carry TEXT NOT NULL,
    rounds INTEGER NOT NULL,
    stakes_in INTEGER NOT NULL,
    voids INTEGER NOT NULL,
    stakes_returned INTEGER NOT NULL,
    contributions INTEGER NOT NULL,
    reserve_contributions INTEGER NOT NULL,
    overflow INTEGER NOT NULL,
    seeded_house INTEGER NOT NULL,
    seeded_reserve INTEGER NOT NULL,
    hits INTEGER NOT NULL,
    won_from_pool INTEGER NOT NULL,
    won_fixed INTEGER NOT NULL,
    envy_paid INTEGER NOT NULL,
    corrections INTEGER NOT NULL,
    reserve_corrections INTEGER NOT NULL,
    cycle_start INTEGER NOT NULL,
    cycle_contributions INTEGER NOT NULL,
    cycle_won INTEGER NOT NULL,
    cycle_corrections INTEGER NOT NULL,
"""

V1 = f"""
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);

CREATE TABLE journal (
    seq INTEGER PRIMARY KEY,
    kind TEXT NOT NULL,
    mono REAL NOT NULL,
    wall TEXT NOT NULL,
    data TEXT NOT NULL,
    prev_hash TEXT NOT NULL,
    hash TEXT NOT NULL
);
CREATE TRIGGER journal_no_update BEFORE UPDATE ON journal
    BEGIN SELECT RAISE(ABORT, 'the journal is append-only'); END;
CREATE TRIGGER journal_no_delete BEFORE DELETE ON journal
    BEGIN SELECT RAISE(ABORT, 'the journal is append-only'); END;

CREATE TABLE pools (
    name TEXT PRIMARY KEY,
    config TEXT NOT NULL,
    {_POOL_METERS}
    seq INTEGER NOT NULL,
    checksum TEXT NOT NULL
);

CREATE TABLE rounds (
    round_id TEXT PRIMARY KEY,
    state TEXT NOT NULL CHECK (state IN ('open', 'voided', 'settled')),
    stakes TEXT NOT NULL,
    staked INTEGER NOT NULL,
    opened_mono REAL NOT NULL,
    opened_wall TEXT NOT NULL,
    open_seq INTEGER NOT NULL,
    closed_mono REAL,
    closed_wall TEXT,
    close_seq INTEGER,
    rule TEXT,
    cause TEXT,
    paid TEXT,
    paid_total INTEGER,
    checksum TEXT NOT NULL
);
CREATE INDEX rounds_open ON rounds (state) WHERE state = 'open';

CREATE TABLE round_pools (
    round_id TEXT NOT NULL,
    pool TEXT NOT NULL,
    stakes TEXT NOT NULL,
    contribution TEXT NOT NULL,
    reversal TEXT,
    outcome TEXT,
    checksum TEXT NOT NULL,
    PRIMARY KEY (round_id, pool)
) WITHOUT ROWID;

CREATE TABLE hits (
    hit_id INTEGER PRIMARY KEY,
    pool TEXT NOT NULL,
    round_id TEXT NOT NULL,
    seat INTEGER NOT NULL,
    line TEXT,
    hand TEXT,
    stake INTEGER NOT NULL,
    amount INTEGER NOT NULL,
    from_pool INTEGER NOT NULL,
    share INTEGER NOT NULL,
    envy INTEGER NOT NULL,
    cycle INTEGER NOT NULL,
    mono REAL NOT NULL,
    wall TEXT NOT NULL,
    seq INTEGER NOT NULL,
    checksum TEXT NOT NULL
);
CREATE TRIGGER hits_never_pruned BEFORE DELETE ON hits
    BEGIN SELECT RAISE(ABORT, 'the hit history is never pruned'); END;

CREATE TABLE corrections (
    correction_id INTEGER PRIMARY KEY,
    pool TEXT NOT NULL,
    meter TEXT NOT NULL,
    old INTEGER NOT NULL,
    new INTEGER NOT NULL,
    technician TEXT NOT NULL,
    reason TEXT NOT NULL,
    mono REAL NOT NULL,
    wall TEXT NOT NULL,
    seq INTEGER NOT NULL,
    checksum TEXT NOT NULL
);

CREATE TABLE selfcheck (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    state TEXT NOT NULL CHECK (state IN ('ok', 'failed')),
    failures TEXT NOT NULL,
    since_wall TEXT NOT NULL,
    seq INTEGER NOT NULL,
    checksum TEXT NOT NULL
);
"""

MIGRATIONS: dict[int, str] = {1: V1}


def _columns(names: str) -> tuple[str, ...]:
    return tuple(names.split())


# Sealed tables: primary key columns, then every other column the checksum covers, in order.
SEALED: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "pools": (
        ("name",),
        ("config", *(line.split()[0] for line in _POOL_METERS.strip().splitlines()), "seq"),
    ),
    "rounds": (
        ("round_id",),
        _columns(
            "state stakes staked opened_mono opened_wall open_seq closed_mono closed_wall "
            "close_seq rule cause paid paid_total"
        ),
    ),
    "round_pools": (("round_id", "pool"), _columns("stakes contribution reversal outcome")),
    "hits": (
        ("hit_id",),
        _columns(
            "pool round_id seat line hand stake amount from_pool share envy cycle mono wall seq"
        ),
    ),
    "corrections": (
        ("correction_id",),
        _columns("pool meter old new technician reason mono wall seq"),
    ),
    "selfcheck": (("id",), _columns("state failures since_wall seq")),
}

# Objects whose absence verify reports (someone dropped them to edit history).
GUARDS = ("journal_no_update", "journal_no_delete", "hits_never_pruned")

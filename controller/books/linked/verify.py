"""``croupier pool verify``: every invariant of a linked pool, checked from scratch.

For each pool of the store (or the one named):

1. The pool's meter identities (``controller.engine.pools.meters.identity_problems``).
2. The pool's journal: its hash chain against the head recorded in the pool row
   (``controller.books.ledger.journal.check_chain``, the local ledger's own check), and the triggers
   that keep it and the hit history append-only.
3. The replay: the journal's money entries applied in order to a fresh pool with the same pure
   functions (``controller.books.ledger.verify.Replay``, which recomputes every contribution,
   reversal and award and compares it with the entry, checks that each round is opened once
   and closed at most once and that the displayed amount only falls by a win, a void or a
   correction); with ``share_scope = "link"`` it keeps each table's open rounds and
   recomputes the shares every hit fixed for them (CH-9), what each of them received at its
   settlement and what its void gave back; the recomputed pool must equal the stored one
   meter for meter.
4. Every table's totals recomputed from the table's entries of the journal
   (``store.table_deltas``) against the ``tables`` rows, and their sum against the pool's
   meters: the pool equals seed + every table's contributions - awards.
5. Rows against entries: round rows point to the entries that opened and closed them and carry
   what the entries recorded; as many rounds as ``round.opened`` entries; open rounds as the
   replay leaves them; as many hit rows as the replay's awards make.

The journal is read with a server-side cursor (a pool's whole history never sits in memory).
This module uses psycopg's synchronous API: it is a technician's tool, never on the daemon's
event loop.
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Iterator
from typing import Any

import psycopg

from controller.books.ledger.journal import check_chain
from controller.books.ledger.rounds import round_key
from controller.books.ledger.verify import MONEY_KINDS, Replay, Report, pool_differences
from controller.books.linked.errors import LinkedStoreError
from controller.books.linked.rows import pool_row
from controller.books.linked.schema import GUARDS, POOL_METERS, check_version
from controller.books.linked.store import TABLE_TOTALS, table_deltas
from controller.engine.pools.meters import PoolState, identity_problems

ROUND_KINDS = ("round.opened", "round.voided", "round.settled")

# Rows against journal entries: (description, query counting offenders; %(pool)s).
CROSS_CHECKS = (
    (
        "round rows whose open_seq is not the round.opened entry of that round",
        "SELECT count(*) FROM croupier.rounds r LEFT JOIN croupier.journal j "
        "ON j.pool = r.pool AND j.seq = r.open_seq WHERE r.pool = %(pool)s "
        "AND r.state <> 'abandoned' AND (j.kind IS DISTINCT FROM 'round.opened' "
        "OR j.data::jsonb ->> 'round' IS DISTINCT FROM r.table_id || '/' || r.round_id "
        "OR j.data::jsonb -> 'pools' -> r.pool IS DISTINCT FROM r.contribution::jsonb)",
    ),
    (
        "closed round rows whose close_seq is not the entry that closed that round",
        "SELECT count(*) FROM croupier.rounds r LEFT JOIN croupier.journal j "
        "ON j.pool = r.pool AND j.seq = r.close_seq WHERE r.pool = %(pool)s "
        "AND r.state <> 'open' AND (j.kind IS DISTINCT FROM 'round.' || r.state "
        "OR j.data::jsonb ->> 'round' IS DISTINCT FROM r.table_id || '/' || r.round_id "
        "OR (r.state <> 'abandoned' AND j.data::jsonb -> 'pools' -> r.pool "
        "IS DISTINCT FROM coalesce(r.reversal, r.outcome)::jsonb))",
    ),
    (
        "open round rows that carry a closing entry",
        "SELECT count(*) FROM croupier.rounds WHERE pool = %(pool)s AND state = 'open' "
        "AND close_seq IS NOT NULL",
    ),
    (
        "round.opened entries without a round row (or rounds opened twice)",
        "SELECT (SELECT count(*) FROM croupier.journal WHERE pool = %(pool)s "
        "AND kind = 'round.opened') - (SELECT count(*) FROM croupier.rounds "
        "WHERE pool = %(pool)s AND state <> 'abandoned')",
    ),
    (
        "hit rows not pointing to the round.settled entry of their round",
        "SELECT count(*) FROM croupier.hits h LEFT JOIN croupier.journal j "
        "ON j.pool = h.pool AND j.seq = h.seq WHERE h.pool = %(pool)s "
        "AND (j.kind IS DISTINCT FROM 'round.settled' "
        "OR j.data::jsonb ->> 'round' IS DISTINCT FROM h.table_id || '/' || h.round_id)",
    ),
)


def verify_pool(conn: psycopg.Connection, pool: str) -> Report:
    """Every invariant of one pool (see the module docstring); ``conn`` in a transaction."""
    report = Report()
    row = conn.execute(
        f"SELECT config, {', '.join(POOL_METERS)}, head_seq, head_hash FROM croupier.pools "
        "WHERE name = %s",
        (pool,),
    ).fetchone()
    if row is None:
        report.problems.append(f"there is no linked pool {pool!r} in the store")
        return report
    try:
        config, state = pool_row(pool, row[0], row[1:-2])
    except LinkedStoreError as exc:
        report.problems.append(str(exc))
        return report
    report.problems += [f"pool {pool}: {p}" for p in identity_problems(state, config)]

    replay = Replay()
    recomputed: dict[str, dict[str, int]] = defaultdict(lambda: dict.fromkeys(TABLE_TOTALS, 0))

    def replayed(cur: psycopg.ServerCursor) -> Iterator[tuple[Any, ...]]:
        for entry in cur:
            seq, kind, data_text = entry[0], entry[1], entry[4]
            if kind in MONEY_KINDS:
                data = json.loads(data_text)
                replay.apply(seq, kind, data)
                if kind in ROUND_KINDS:
                    totals = recomputed[data["table"]]
                    for name, delta in table_deltas(kind, data, pool).items():
                        totals[name] += delta
            yield entry

    with conn.cursor(name="croupier_journal") as cur:  # streams the journal
        cur.itersize = 5000
        cur.execute(
            "SELECT seq, kind, mono, wall, data, prev_hash, hash FROM croupier.journal "
            "WHERE pool = %s ORDER BY seq",
            (pool,),
        )
        chain = check_chain(replayed(cur), (row[-2], row[-1]))
    report.problems += [f"pool {pool}: journal: {p}" for p in chain.problems]
    triggers = {
        r[0]
        for r in conn.execute(
            "SELECT tgname FROM pg_trigger WHERE tgrelid IN "
            "('croupier.journal'::regclass, 'croupier.hits'::regclass)"
        )
    }
    report.problems += [
        f"the safeguard trigger {g} is missing (removed to edit history?)"
        for g in GUARDS
        if g not in triggers
    ]
    report.stats[pool] = {"entries": chain.entries, "current": state.current}
    if not chain.walked:
        report.problems.append(f"pool {pool}: the replay was skipped: the journal is broken")
        return report

    report.problems += [f"pool {pool}: {p}" for p in replay.problems]
    report.problems += pool_differences({pool: (config, state)}, replay.pools)
    report.problems += _table_problems(conn, pool, state, recomputed)
    report.problems += _row_problems(conn, pool, replay)
    return report


def _table_problems(
    conn: psycopg.Connection,
    pool: str,
    state: PoolState,
    recomputed: dict[str, dict[str, int]],
) -> list[str]:
    problems = []
    stored = {
        r[0]: dict(zip(TABLE_TOTALS, r[1:], strict=True))
        for r in conn.execute(
            f"SELECT table_id, {', '.join(TABLE_TOTALS)} FROM croupier.tables WHERE pool = %s",
            (pool,),
        )
    }
    for table in sorted(set(stored) | set(recomputed)):
        mine = stored.get(table, dict.fromkeys(TABLE_TOTALS, 0))
        journal = recomputed.get(table, dict.fromkeys(TABLE_TOTALS, 0))
        problems += [
            f"pool {pool}: table {table}: {name} is {mine[name]} in the tables row but "
            f"{journal[name]} from its journal entries"
            for name in TABLE_TOTALS
            if mine[name] != journal[name]
        ]
    total = {name: sum(t[name] for t in recomputed.values()) for name in TABLE_TOTALS}
    meters = {
        "rounds": state.rounds,
        "stakes_in": state.stakes_in,
        "voids": state.voids,
        "contributions": state.contributions,
        "reserve_contributions": state.reserve_contributions + state.overflow,
        "hits": state.hits,
        "won_from_pool": state.won_from_pool,
        "won_fixed": state.won_fixed,
    }
    problems += [
        f"pool {pool}: {name} is {meters[name]} but the tables' journal entries add up to "
        f"{total[name]}"
        for name in TABLE_TOTALS
        if meters[name] != total[name]
    ]
    return problems


def _row_problems(conn: psycopg.Connection, pool: str, replay: Replay) -> list[str]:
    problems = []
    for what, sql in CROSS_CHECKS:
        count = conn.execute(sql, {"pool": pool}).fetchone()[0]
        if count:
            problems.append(f"pool {pool}: {abs(count)} {what}")
    open_rows = {
        round_key(t, r)
        for t, r in conn.execute(
            "SELECT table_id, round_id FROM croupier.rounds WHERE pool = %s AND state = 'open'",
            (pool,),
        )
    }
    if open_rows != set(replay.open):
        problems.append(
            f"pool {pool}: open rounds differ: rows {sorted(open_rows)[:5]}, "
            f"journal {sorted(replay.open)[:5]}"
        )
    hits = conn.execute("SELECT count(*) FROM croupier.hits WHERE pool = %s", (pool,)).fetchone()
    if hits[0] != replay.hits:
        problems.append(
            f"pool {pool}: {hits[0]} hit rows but the journal's awards make {replay.hits}"
        )
    return problems


def verify_store(dsn: str, pool: str | None = None, **params: Any) -> Report:
    """Verify every pool of the store (or one), in one REPEATABLE READ snapshot."""
    with psycopg.connect(dsn, **params) as conn:
        conn.isolation_level = psycopg.IsolationLevel.REPEATABLE_READ
        conn.read_only = True
        version = 0
        if conn.execute("SELECT to_regclass('croupier.meta')").fetchone()[0]:
            row = conn.execute(
                "SELECT value FROM croupier.meta WHERE key = 'schema_version'"
            ).fetchone()
            version = int(row[0]) if row else 0
        check_version(version, "the store")
        names = (
            [pool]
            if pool
            else [r[0] for r in conn.execute("SELECT name FROM croupier.pools ORDER BY name")]
        )
        report = Report()
        for name in names:
            one = verify_pool(conn, name)
            report.problems += one.problems
            report.stats.update(one.stats)
        return report

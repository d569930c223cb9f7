"""What a technician does to the store: create or migrate it, create or change a pool, read
its status. Used by ``croupier pool init|status`` (``controller/cli/pool_cmd.py``).

A pool's parameters (seed, contribution rate, reserve rate, cap) and its rules (the profile's
progressive section: bet, unit stake, pay table, award policy) live in the store, not in the
tables' configurations: every table of a wide-area pool contributes and is paid by the same
rules. A change applies only while no table has a round open on the pool, is journaled with
the old and new values, and never sets the cap below the amount displayed
(``controller.engine.pools.config.check_change``).
"""

from __future__ import annotations

from typing import Any

from psycopg import AsyncConnection

from controller.books.ledger.errors import RoundStateError
from controller.books.ledger.journal import GENESIS, canonical
from controller.books.linked.errors import LinkedStoreError
from controller.books.linked.rows import pool_row
from controller.books.linked.schema import POOL_METERS, SCHEMA_VERSION, require_current
from controller.books.linked.store import (
    TABLE_TOTALS,
    lock_pool,
    put_pool,
    serializable,
    write_entry,
)
from controller.engine.pools.config import PoolConfig, check_change
from controller.engine.pools.meters import identity_problems, new_pool

APPLICATION_PREFIX = "croupier "  # application_name of a table's connections


def application_name(table: str) -> str:
    return f"{APPLICATION_PREFIX}{table}"[:63]


async def configure_pool(conn: AsyncConnection, config: PoolConfig, now: float) -> str:
    """Create the pool, or change its parameters between rounds. Returns ``created``,
    ``changed`` or ``unchanged``. Raises RoundStateError while a round is open on the pool,
    ConfigError for a cap below the amount displayed or another bet."""
    await require_current(conn)
    text = canonical(config.to_json())

    async def work() -> str:
        cur = await conn.execute(
            "SELECT config FROM croupier.pools WHERE name = %s FOR UPDATE", (config.name,)
        )
        row = await cur.fetchone()
        if row is None:
            state = new_pool(config)
            values = state.to_row()
            await conn.execute(
                f"INSERT INTO croupier.pools (name, config, {', '.join(POOL_METERS)}, head_seq, "
                f"head_hash) VALUES (%(name)s, %(config)s, "
                f"{', '.join(f'%({m})s' for m in POOL_METERS)}, 0, %(genesis)s)",
                {**values, "config": text, "genesis": GENESIS},
            )
            locked = await lock_pool(conn, config.name)
            data = {"pool": config.name, "config": config.to_json()}
            await write_entry(conn, locked, "pool.created", data, now, None)
            await put_pool(conn, locked, state, {"kind": "pool.created"})
            return "created"
        if row[0] == text:
            return "unchanged"
        locked = await lock_pool(conn, config.name)
        cur = await conn.execute(
            "SELECT table_id, round_id FROM croupier.rounds WHERE pool = %s AND state = 'open' "
            "LIMIT 1",
            (config.name,),
        )
        busy = await cur.fetchone()
        if busy:
            raise RoundStateError(
                f"round {busy[1]} of table {busy[0]} is open on pool {config.name}: its "
                "parameters change between rounds only (try again)"
            )
        old = locked.config
        check_change(old, config, locked.state.current)
        before, after = old.to_json(), config.to_json()
        changed = {k: [before.get(k), after[k]] for k in after if before.get(k) != after[k]}
        data = {"pool": config.name, "config": after, "changed": changed}
        await write_entry(conn, locked, "pool.configured", data, now, None)
        await conn.execute(
            "UPDATE croupier.pools SET config = %s WHERE name = %s", (text, config.name)
        )
        locked.config = config
        await put_pool(conn, locked, locked.state, {"kind": "pool.configured"})
        return "changed"

    return await serializable(conn, work)


TABLE_COLUMNS = (
    "table_id",
    "first_seen",
    "last_seen",
    "client",
    "listener_pid",
    *TABLE_TOTALS,
)


async def pool_status(conn: AsyncConnection, pool: str | None = None) -> dict[str, Any]:
    """Every linked pool (or one): configuration, meters and identities, journal head, and
    each table that joined it: whether it is connected now, when it was last seen, its open
    rounds and its share of the meters."""
    await require_current(conn)
    async with conn.transaction():
        cur = await conn.execute(
            f"SELECT name, config, {', '.join(POOL_METERS)}, head_seq, updated "
            "FROM croupier.pools WHERE %(pool)s::text IS NULL OR name = %(pool)s ORDER BY name",
            {"pool": pool},
        )
        pool_rows = await cur.fetchall()
        cur = await conn.execute(
            f"SELECT pool, {', '.join(TABLE_COLUMNS)} FROM croupier.tables ORDER BY pool, table_id"
        )
        table_rows = await cur.fetchall()
        cur = await conn.execute(
            "SELECT pool, table_id, count(*) FROM croupier.rounds WHERE state = 'open' "
            "GROUP BY pool, table_id"
        )
        open_rounds = {(p, t): n for p, t, n in await cur.fetchall()}
        cur = await conn.execute(
            "SELECT pid, application_name FROM pg_stat_activity WHERE application_name LIKE %s",
            (APPLICATION_PREFIX + "%",),
        )
        connected = set(await cur.fetchall())
    if pool is not None and not pool_rows:
        raise LinkedStoreError(f"there is no linked pool {pool!r} in the store")
    pools = []
    for row in pool_rows:
        name, text = row[0], row[1]
        config, state = pool_row(name, text, row[2:-2])
        tables = []
        for t in table_rows:
            if t[0] != name:
                continue
            info = dict(zip(TABLE_COLUMNS, t[1:], strict=True))
            info["first_seen"] = info["first_seen"].isoformat(timespec="seconds")
            info["last_seen"] = info["last_seen"].isoformat(timespec="seconds")
            pid = info.pop("listener_pid")
            info["connected"] = (pid, application_name(info["table_id"])) in connected
            info["open_rounds"] = open_rounds.get((name, info["table_id"]), 0)
            tables.append(info)
        pools.append(
            {
                "pool": name,
                "bet": config.bet,
                "award": config.rules.award,
                "seed": config.seed,
                "contribution_rate": str(config.contribution_rate),
                "reserve_rate": str(config.reserve_rate),
                "cap": config.cap,
                "meters": state.to_row(),
                "identities": identity_problems(state, config),
                "journal_head": row[-2],
                "updated": row[-1].isoformat(timespec="seconds"),
                "tables": tables,
            }
        )
    return {"schema_version": SCHEMA_VERSION, "pools": pools}

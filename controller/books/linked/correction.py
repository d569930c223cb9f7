"""A technician's correction of a linked pool's meters, with the local ledger's discipline
(docs/regulatory.md): the displayed amount or the reserve set to a value, refused while a
round of any table is open on the pool, journaled in the pool's own hash-chained journal as
``meter.corrected`` (technician, reason, old and new value) in one serialisable transaction
with the meters, announced to every table's sign (NOTIFY). ``croupier pool verify`` replays
it with the local ledger's ``Replay``, so the correction meters keep every identity. The
command checks the technician credential before calling this.
"""

from __future__ import annotations

from psycopg import AsyncConnection

from controller.books.ledger import inputs
from controller.books.ledger.errors import RoundStateError
from controller.books.linked.errors import LinkedStoreError
from controller.books.linked.store import lock_pool, put_pool, serializable, write_entry
from controller.engine.pools.meters import CORRECTABLE, PoolArithmeticError, PoolState, correct


async def correct_linked(
    conn: AsyncConnection,
    pool: str,
    meter: str,
    value: int,
    now: float,
    *,
    technician: str,
    reason: str,
) -> PoolState:
    """Set ``meter`` (current or reserve) of a linked pool; the pool after it. Raises
    RoundStateError while a round is open on the pool, LinkedStoreError for a value the
    pool's arithmetic refuses (negative, above the cap) or an unknown pool."""
    inputs.text(technician, "the technician")
    inputs.text(reason, "the reason for the correction")
    inputs.money(value, f"the new {meter}")
    if meter not in CORRECTABLE:
        raise LinkedStoreError(f"only {' and '.join(CORRECTABLE)} can be corrected")

    async def work() -> PoolState:
        locked = await lock_pool(conn, pool)
        cur = await conn.execute(
            "SELECT table_id, round_id FROM croupier.rounds WHERE pool = %s AND state = 'open' "
            "LIMIT 1",
            (pool,),
        )
        busy = await cur.fetchone()
        if busy is not None:
            raise RoundStateError(
                f"round {busy[1]} of table {busy[0]} is open on pool {pool}: "
                "correct its meters between rounds"
            )
        old = getattr(locked.state, meter)
        try:
            after = correct(locked.state, locked.config, meter, value)
        except PoolArithmeticError as exc:
            raise LinkedStoreError(f"correcting {pool} {meter}: {exc}") from None
        data = {
            "pool": pool,
            "meter": meter,
            "old": old,
            "new": value,
            "technician": technician,
            "reason": reason,
        }
        await write_entry(conn, locked, "meter.corrected", data, now, None)
        await put_pool(conn, locked, after, {"kind": "meter.corrected"})
        return after

    return await serializable(conn, work)

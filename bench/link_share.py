"""CH-9 across the link: what fixing the shares costs the store, beside the same settlement
with ``share_scope = "table"`` measured in the same run on the same server.

For each count K of other tables' rounds in play (4 Jumbo 7 stakes each), on a fresh pool of
each scope:

1. a hit: one table's round settles the 100% line while the K rounds are open; with "link"
   the store reads them and splits the jackpot over 4 + 4K stakes (``link_shares`` in the
   entry), with "table" over the hitting round's 4;
2. the K rounds then settle without a line of their own; with "link" each reads the shares
   fixed for it from the entries since it opened and pays them (``received``).

Each figure is the median (and p90) settlement time, ``--repeat`` times per K.

    .venv/bin/python bench/link_share.py [--others 0,4,16,64] [--repeat 20] [--dsn DSN]
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import statistics
import sys
import time

from round import percentile  # bench/round.py

from controller.books.linked import admin, schema, store
from controller.engine.pools.config import pool_config
from controller.engine.profiles import load_profile
from controller.rig.pgserver import private_server

LINK = load_profile("ch-bg").progressive  # ships share_scope = "link"
SCOPES = {"table": dataclasses.replace(LINK, share_scope="table"), "link": LINK}
SEATS = {1: 100, 2: 100, 3: 200, 4: 300}
JACKPOT = "seven-card-straight-flush"


async def one_scope(dsn: str, scope: str, others: int, repeat: int) -> tuple[list, list]:
    """(hit settlement times, other rounds' settlement times) in seconds."""
    pool = f"bench-{scope}-{others}"
    conn = await store.connect(dsn)
    await schema.migrate(conn)
    await admin.configure_pool(conn, pool_config(pool, SCOPES[scope], seed=100_000), 0.0)
    tables = []
    for n in range(others + 1):
        tx = store.PoolTransactions(conn, pool, f"T{n:03d}")
        await tx.join("bench")
        tables.append(tx)
    hits, pays = [], []
    for r in range(repeat):
        rid = f"R{r:05d}"
        for tx in tables:
            await tx.open_round(rid, SEATS, 0.0)
        t0 = time.perf_counter()
        await tables[0].settle_round(rid, 0.0, lines={1: JACKPOT}, hands={}, final=None)
        hits.append(time.perf_counter() - t0)
        for tx in tables[1:]:
            t0 = time.perf_counter()
            await tx.settle_round(rid, 0.0, lines={}, hands={}, final=None)
            pays.append(time.perf_counter() - t0)
    await conn.close()
    return hits, pays


def figure(values: list[float]) -> str:
    if not values:
        return "-"
    return f"{statistics.median(values) * 1000:6.2f} ms (p90 {percentile(values, 0.9) * 1000:.2f})"


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dsn", help="an existing server (default: a private cluster)")
    parser.add_argument("--others", default="0,4,16,64", help="other rounds in play at the hit")
    parser.add_argument("--repeat", type=int, default=20, help="hits per count")
    args = parser.parse_args(argv)
    server = None if args.dsn else private_server(tcp=True, durable=True)
    dsn = args.dsn or server.dsn
    try:
        print(f"server: {'private cluster, fsync on, TCP 127.0.0.1' if server else dsn}")
        print("others  scope  hit settlement (baseline: table)   each other round's settlement")
        for others in (int(x) for x in args.others.split(",")):
            for scope in SCOPES:
                hits, pays = asyncio.run(one_scope(dsn, scope, others, args.repeat))
                print(f"{others:>6}  {scope:<5}  {figure(hits):<33}  {figure(pays)}")
    finally:
        if server is not None:
            server.destroy()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

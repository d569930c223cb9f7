"""Linked-pool benchmark: contributions per second from N tables against one PostgreSQL
server, and the latency from a contribution's commit to every sign seeing it, beside a bare
PostgreSQL round trip and a bare one-row commit measured in the same run.

1. Baselines: ``SELECT 1`` round trips, and commits of a one-row UPDATE (durable: fsync on),
   over TCP on 127.0.0.1, one connection.
2. Throughput: N table processes, each a ``LinkedPool`` playing rounds as fast as it can
   (``open_round`` with 4 Jumbo 7 stakes, then ``settle_round``; two serialisable
   transactions per round on the one pool row every table contends for), for ``--seconds``.
   The figure is rounds opened (contributions) per second, all tables together.
3. Sign latency: one table opens rounds one at a time while ``--signs`` subscribers (each a
   ``LinkedPool`` in another process, as every table's sign is) wait for the amount. For each
   round: the time from calling ``open_round`` to its commit being acknowledged, and to the
   last sign seeing the new amount (CLOCK_MONOTONIC is shared by every process).

By default the server is a private cluster this script starts (fsync on, TCP on
127.0.0.1); ``--dsn`` measures an existing server instead (its database must allow creating
the ``croupier`` schema; the pool ``bench-jumbo7`` is created or reused).

    .venv/bin/python bench/linked.py [--tables 1,2,4,8] [--seconds 5] [--signs 8] [--dsn DSN]
"""

from __future__ import annotations

import argparse
import asyncio
import multiprocessing
import statistics
import sys
import tempfile
import time
from pathlib import Path

import psycopg

from controller.books.linked import admin, schema, store
from controller.books.linked.client import LinkedPool
from controller.books.linked.devserver import DevServer
from controller.books.linked.link import AmountChanged
from controller.books.linked.settings import LinkedSettings
from controller.engine.pools.config import pool_config
from controller.engine.profiles import load_profile

RULES = load_profile("ch-bg").progressive
POOL = "bench-jumbo7"
STAKES = {s: {"jumbo7": 100} for s in (1, 2, 3, 4)}


def settings(dsn: str) -> LinkedSettings:
    return LinkedSettings(name=POOL, dsn=dsn, pool=POOL, operation_timeout=30.0)


def percentile(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(p * len(ordered)))]


def ms(seconds: float) -> str:
    return f"{seconds * 1000:.2f} ms"


# -- baselines -------------------------------------------------------------------------------


def baselines(dsn: str, count: int = 2000) -> tuple[list[float], list[float]]:
    with psycopg.connect(dsn, autocommit=True) as conn:
        conn.execute("CREATE TABLE IF NOT EXISTS bench_row (id int PRIMARY KEY, n bigint)")
        conn.execute("INSERT INTO bench_row VALUES (1, 0) ON CONFLICT DO NOTHING")
        trips, commits = [], []
        for _ in range(count):
            t = time.perf_counter()
            conn.execute("SELECT 1").fetchone()
            trips.append(time.perf_counter() - t)
        for _ in range(count // 2):
            t = time.perf_counter()
            conn.execute("UPDATE bench_row SET n = n + 1 WHERE id = 1")
            commits.append(time.perf_counter() - t)
    return trips, commits


# -- throughput ------------------------------------------------------------------------------


def table_process(dsn: str, table: str, start_at: float, seconds: float, out) -> None:
    async def play() -> None:
        async with LinkedPool(settings(dsn), table, RULES) as linked:
            await linked.wait_up(60)
            await asyncio.sleep(max(0.0, start_at - time.monotonic()))
            n, end = 0, start_at + seconds
            while time.monotonic() < end:
                n += 1
                rid = f"{table}-{n}"
                await linked.open_round(rid, STAKES, time.monotonic())
                await linked.settle_round(rid, time.monotonic(), hits={POOL: {}})
            out.put((table, n, time.monotonic() - start_at))

    asyncio.run(play())


def throughput(dsn: str, tables: int, seconds: float, run: int) -> float:
    out: multiprocessing.Queue = multiprocessing.Queue()
    start_at = time.monotonic() + 3.0  # every table connected and joined by then
    procs = [
        multiprocessing.Process(
            target=table_process, args=(dsn, f"t{run}-{i}", start_at, seconds, out)
        )
        for i in range(tables)
    ]
    for p in procs:
        p.start()
    results = [out.get(timeout=seconds + 120) for _ in procs]
    for p in procs:
        p.join()
    elapsed = max(r[2] for r in results)
    return sum(r[1] for r in results) / elapsed


# -- sign latency ----------------------------------------------------------------------------


def signs_process(dsn: str, count: int, expected: int, ready, out) -> None:
    async def watch() -> None:
        pools = [LinkedPool(settings(dsn), f"sign-{i}", RULES) for i in range(count)]
        seen: dict[int, list[float]] = {}

        async def follow(linked: LinkedPool) -> None:
            async for event in linked.events():
                if isinstance(event, AmountChanged) and event.kind == "round.opened":
                    seen.setdefault(event.seq, []).append(time.monotonic())

        for linked in pools:
            await linked.start()
        for linked in pools:
            await linked.wait_up(60)
        tasks = [asyncio.create_task(follow(p)) for p in pools]
        ready.set()
        deadline = time.monotonic() + 120
        while sum(len(v) == count for v in seen.values()) < expected:
            await asyncio.sleep(0.05)
            if time.monotonic() > deadline:
                break
        out.put({seq: max(times) for seq, times in seen.items() if len(times) == count})
        for t in tasks:
            t.cancel()
        for linked in pools:
            await linked.close()

    asyncio.run(watch())


def sign_latency(dsn: str, signs: int, rounds: int) -> tuple[list[float], list[float]]:
    ready, out = multiprocessing.Event(), multiprocessing.Queue()
    proc = multiprocessing.Process(target=signs_process, args=(dsn, signs, rounds, ready, out))
    proc.start()
    ready.wait(120)

    async def write() -> list[tuple[int, float, float]]:
        sent = []
        async with LinkedPool(settings(dsn), "writer", RULES) as linked:
            await linked.wait_up(60)
            for n in range(rounds):
                t0 = time.monotonic()
                opened = await linked.open_round(f"w-{n}", STAKES, t0)
                sent.append((opened.seq, t0, time.monotonic()))
                await linked.void_round(f"w-{n}", t0, rule="MD-S1", cause="bench")
                await asyncio.sleep(0.005)
        return sent

    sent = asyncio.run(write())
    seen = out.get(timeout=180)
    proc.join()
    commits = [t1 - t0 for _, t0, t1 in sent]
    every_sign = [seen[seq] - t0 for seq, t0, _ in sent if seq in seen]
    return commits, every_sign


# -- main ------------------------------------------------------------------------------------


def prepare(dsn: str) -> None:
    async def work() -> None:
        conn = await store.connect(dsn)
        try:
            await schema.migrate(conn)
            await admin.configure_pool(conn, pool_config(POOL, RULES, seed=100_000), 0.0)
        finally:
            await conn.close()

    asyncio.run(work())


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dsn", help="an existing server (default: a private cluster)")
    parser.add_argument("--tables", default="1,2,4,8", help="table counts to measure")
    parser.add_argument("--seconds", type=float, default=5.0, help="per table count")
    parser.add_argument("--signs", type=int, default=8)
    parser.add_argument("--rounds", type=int, default=300, help="rounds for the sign latency")
    args = parser.parse_args(argv)
    server = None
    dsn = args.dsn
    if dsn is None:
        server = DevServer(
            Path(tempfile.mkdtemp(prefix="croupier-bench-pg-")), tcp=True, durable=True
        )
        server.start()
        dsn = server.dsn
    try:
        prepare(dsn)
        trips, commits = baselines(dsn)
        print(f"server: {'private cluster, fsync on, TCP 127.0.0.1' if server else dsn}")
        print(
            f"baseline  bare round trip (SELECT 1)      median {ms(statistics.median(trips))}"
            f"  p99 {ms(percentile(trips, 0.99))}"
        )
        print(
            f"baseline  bare commit (one-row UPDATE)    median {ms(statistics.median(commits))}"
            f"  p99 {ms(percentile(commits, 0.99))}  = {1 / statistics.median(commits):,.0f}/s"
            " on one connection"
        )
        for run, n in enumerate(int(x) for x in args.tables.split(",")):
            rate = throughput(dsn, n, args.seconds, run)
            print(
                f"throughput {n:>2} table(s): {rate:,.0f} contributions/s "
                f"(rounds opened and settled: 2 transactions each)"
            )
        commit, every = sign_latency(dsn, args.signs, args.rounds)
        print(
            f"latency   open_round commit acknowledged  median {ms(statistics.median(commit))}"
            f"  p99 {ms(percentile(commit, 0.99))}"
        )
        print(
            f"latency   every one of {args.signs} signs sees it    median "
            f"{ms(statistics.median(every))}  p99 {ms(percentile(every, 0.99))}  "
            f"({len(every)}/{args.rounds} rounds seen by all)"
        )
    finally:
        if server is not None:
            server.destroy()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

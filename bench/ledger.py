"""Ledger benchmark: durable money events per second, and verify time on a big ledger.

1. Durable money events per second: rounds locked and settled as the daemon does them (six
   seats with a progressive stake and Ante/Blind, one WAL + synchronous=FULL commit per event),
   beside a bare SQLite WAL + FULL commit of one row in the same directory, measured in
   alternating blocks so both see the same disk. Target: at least 50% of the bare rate.
2. Verify time of a ledger of 1,000,000 rounds (``--rounds``): the ledger is generated
   without a commit per event by the same pure functions the ledger uses
   (``controller.books.ledger.rounds``, the journal's hash chain), so every row and entry is
   what the ledger would have written; the full ``meters verify`` must find it sound. Also
   timed: the journal's chain alone (``events verify``) and the power-up quick check.

    .venv/bin/python bench/ledger.py [--dir DIR] [--rounds N] [--keep PATH]
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import sqlite3
import statistics
import sys
import tempfile
import time
from pathlib import Path

from controller.books.ledger import rounds
from controller.books.ledger.db import seal
from controller.books.ledger.journal import (
    INSERT_ENTRY,
    UPSERT_HEAD,
    canonical,
    chained,
    verify_chain,
    wall_text,
)
from controller.books.ledger.reader import LedgerReader
from controller.books.ledger.schema import SEALED
from controller.books.ledger.selfcheck import check_ledger
from controller.books.ledger.store import Ledger
from controller.books.ledger.verify import verify_ledger
from controller.engine.pools.config import pool_config
from controller.engine.pools.meters import Contribution
from controller.engine.profiles import load_profile

RULES = load_profile("uth-gr").progressive
# per-seat chances of each progressive line (roughly a 7-card deal's)
LINES = (
    ("royal-flush", 1 / 30_000),
    ("community-royal", 1 / 650_000),
    ("straight-flush", 1 / 3_600),
    ("four-of-a-kind", 1 / 600),
    ("full-house", 1 / 40),
)


def random_round(rng: random.Random) -> tuple[dict, dict, dict]:
    """Stakes, hits and payouts of one round at a six-seat UTH table."""
    seats = rng.sample(range(1, 7), rng.randint(1, 6))
    stakes, hits, paid = {}, {}, {}
    for s in seats:
        ante = rng.choice([500, 1000, 2500])
        stakes[s] = {"ante": ante, "blind": ante}
        paid[s] = {"ante": rng.choice([0, ante, 2 * ante]), "blind": rng.choice([0, ante])}
        if rng.random() < 0.8:
            stakes[s]["progressive"] = 100
            roll = rng.random()
            for line, chance in LINES:
                if roll < chance:
                    hits[s] = line
                    break
                roll -= chance
    return stakes, hits, paid


def bare_commits(path: Path, count: int) -> float:
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute("PRAGMA journal_mode = WAL")
    conn.execute("PRAGMA synchronous = FULL")
    conn.execute("CREATE TABLE IF NOT EXISTS t (id INTEGER PRIMARY KEY, v TEXT)")
    started = time.perf_counter()
    for n in range(count):
        conn.execute("BEGIN IMMEDIATE")
        conn.execute("INSERT INTO t (v) VALUES (?)", (f"event {n}",))
        conn.execute("COMMIT")
    elapsed = time.perf_counter() - started
    conn.close()
    return count / elapsed


def ledger_events(ledger: Ledger, count: int, rng: random.Random, first: int) -> float:
    plays = [random_round(rng) for _ in range(count // 2)]
    started = time.perf_counter()
    for n, (stakes, hits, paid) in enumerate(plays, first):
        rid = f"bench-{n}"
        ledger.open_round(rid, stakes, time.monotonic())
        ledger.settle_round(rid, time.monotonic(), hits={"uth": hits}, payouts=paid)
    return 2 * len(plays) / (time.perf_counter() - started)


def measure_events(directory: Path, blocks: int, per_block: int) -> None:
    rng = random.Random(7)
    bare_rates, ledger_rates = [], []
    with Ledger.open(directory / "events.sqlite3", now=0.0) as ledger:
        ledger.configure_pool(pool_config("uth", RULES, seed=500_000), 0.0)
        for block in range(blocks):
            bare_rates.append(bare_commits(directory / "bare.sqlite3", per_block))
            ledger_rates.append(ledger_events(ledger, per_block, rng, block * per_block))
    bare, ours = statistics.median(bare_rates), statistics.median(ledger_rates)
    print(f"durable money events (lock + settle, 6 seats): {ours:8.0f} /s  (median of {blocks})")
    print(f"bare SQLite WAL+FULL one-row commits:          {bare:8.0f} /s")
    verdict = "meets" if ours >= bare / 2 else "MISSES"
    print(f"ratio: {ours / bare:.0%} of the bare rate ({verdict} the 50% target)")


def generate(path: Path, count: int, seed: int = 1) -> None:
    """A ledger of ``count`` rounds, ~5% voided, written in large transactions."""
    with Ledger.open(path, now=0.0) as ledger:
        ledger.configure_pool(pool_config("uth", RULES, seed=500_000, reserve_rate="1%"), 0.0)
        (config, state) = ledger.pools()["uth"]
        db = ledger.db
        last = ledger.journal.head()
        db.execute("PRAGMA synchronous = OFF")
        rng = random.Random(seed)
        sql = {t: _insert(t) for t in ("rounds", "round_pools", "hits")}
        batch: dict[str, list] = {"journal": [], "rounds": [], "round_pools": [], "hits": []}
        hit_id, wall0 = 1, 1_800_000_000.0

        def journal(kind: str, data: dict, mono: float):
            nonlocal last
            text = canonical(data)
            entry = chained(last, kind, data, text, mono, wall_text(wall0 + mono))
            batch["journal"].append(entry.row(text))
            last = (entry.seq, entry.hash)
            return entry

        db.execute("BEGIN")
        for n in range(count):
            rid, mono = f"r{n:07d}", 30.0 * n
            stakes, hits, paid = random_round(rng)
            fed = rounds.contributions(stakes, [(config, state)])
            data = rounds.opened_data(rid, stakes, fed)
            opened = journal("round.opened", data, mono)
            round_row, pool_rows = rounds.opened_rows(rid, stakes, fed, data, opened)
            state = fed["uth"].after if fed else state
            if rng.random() < 0.05:
                moved = rounds.reversals(
                    [(config, state, Contribution.from_json(data["pools"]["uth"]))] if fed else []
                )
                data = rounds.voided_data(rid, "MD-S1", "wrong count", stakes, moved)
                closed = journal("round.voided", data, mono + 20)
                round_row = rounds.closed_round_row(
                    round_row, rounds.RoundState.VOIDED, closed, stakes, "MD-S1", "wrong count"
                )
                column = "reversal"
            else:
                lines = {"uth": hits} if fed else {}
                moved = rounds.awards(
                    rid, lines, [(config, state, fed["uth"].seats)] if fed else []
                )
                request = rounds.settle_request(lines, {}, paid, {})
                data = rounds.settled_data(rid, request, moved)
                closed = journal("round.settled", data, mono + 20)
                all_paid = rounds.payouts(rid, stakes, paid, moved)
                round_row = rounds.closed_round_row(
                    round_row, rounds.RoundState.SETTLED, closed, all_paid
                )
                column = "outcome"
                for move in moved.values():
                    for row in rounds.hit_rows(hit_id, rid, move, {}, closed):
                        batch["hits"].append(_sealed("hits", row))
                        hit_id += 1
            if moved:
                state = moved["uth"].after
                for row in pool_rows:
                    row[column] = canonical(data["pools"][row["pool"]])
            batch["rounds"].append(_sealed("rounds", round_row))
            batch["round_pools"].extend(_sealed("round_pools", r) for r in pool_rows)
            if len(batch["rounds"]) >= 20_000 or n == count - 1:
                db.conn.executemany(INSERT_ENTRY, batch.pop("journal"))
                for table, query in sql.items():
                    db.conn.executemany(query, batch.pop(table))
                batch = {"journal": [], "rounds": [], "round_pools": [], "hits": []}
                ledger._put_pool(config, state, last[0])
                db.execute(UPSERT_HEAD, (f"{last[0]} {last[1]}",))
                db.execute("COMMIT")  # a batch: the WAL stays small
                db.execute("BEGIN")
        db.execute("COMMIT")
        db.execute("PRAGMA wal_checkpoint(TRUNCATE)")


def _insert(table: str) -> str:
    keys, cols = SEALED[table]
    names = (*keys, *cols, "checksum")
    return f"INSERT INTO {table} ({', '.join(names)}) VALUES ({', '.join('?' * len(names))})"


def _sealed(table: str, row: dict) -> tuple:
    keys, cols = SEALED[table]
    values = [row[n] for n in (*keys, *cols)]
    return (*values, seal(table, values))


def measure_verify(directory: Path, count: int, keep: Path | None) -> None:
    path = keep or directory / "big.sqlite3"
    if not path.exists():
        started = time.perf_counter()
        generate(path, count)
        print(
            f"generated a ledger of {count:,} rounds in {time.perf_counter() - started:.0f} s "
            f"({path.stat().st_size / 1e6:.0f} MB)"
        )
    with LedgerReader.open(path) as reader:
        for label, check in (
            ("power-up quick check", lambda: check_ledger(reader)),
            ("events verify (hash chain)", lambda: verify_chain(reader.journal).problems),
            ("meters verify (everything)", lambda: verify_ledger(reader).problems),
        ):
            started = time.perf_counter()
            problems = check()
            elapsed = time.perf_counter() - started
            state = "sound" if not problems else f"{len(problems)} PROBLEMS: {problems[:3]}"
            print(f"{label:<28} {elapsed:7.2f} s  ({state})")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dir", type=Path, help="where the databases go (default: a temp dir)")
    parser.add_argument("--rounds", type=int, default=1_000_000)
    parser.add_argument("--blocks", type=int, default=5)
    parser.add_argument("--events", type=int, default=600, help="events per block")
    parser.add_argument("--keep", type=Path, help="keep (or reuse) the big ledger at this path")
    args = parser.parse_args()
    directory = Path(tempfile.mkdtemp(prefix="croupier-bench-", dir=args.dir))
    try:
        print(
            f"python {sys.version.split()[0]}, SQLite {sqlite3.sqlite_version}, {os.cpu_count()} "
            f"CPUs, databases in {directory}"
        )
        measure_events(directory, args.blocks, args.events)
        measure_verify(directory, args.rounds, args.keep)
    finally:
        shutil.rmtree(directory, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())

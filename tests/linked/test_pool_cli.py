"""``croupier pool init|status|verify`` against a real server, and their one-line errors."""

import asyncio
import json

import psycopg
import pytest

from controller.books.linked import store
from controller.books.linked.schema import SCHEMA_VERSION
from controller.cli.main import main


def cli(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_init_creates_the_store_then_the_pool(capsys, store_dsn):
    code, out, _ = cli(capsys, "pool", "init", "--dsn", store_dsn)
    assert code == 0 and f"store schema: version {SCHEMA_VERSION} (was not initialised)" in out
    args = (
        "pool",
        "init",
        "--dsn",
        store_dsn,
        "--pool",
        "jumbo7-bg",
        "--profile",
        "ch-bg",
        "--seed",
        "100000",
        "--contribution-rate",
        "15%",
    )
    code, out, _ = cli(capsys, *args)
    assert code == 0 and "pool jumbo7-bg: created (journaled)" in out
    code, out, _ = cli(capsys, *args, "--json")
    assert json.loads(out) == {
        "schema_before": SCHEMA_VERSION,
        "schema": SCHEMA_VERSION,
        "pool": "jumbo7-bg",
        "result": "unchanged",
    }


def test_status_shows_each_pool_and_its_tables(capsys, pool_dsn):
    async def play():
        conn = await store.connect(pool_dsn)
        tx = store.PoolTransactions(conn, "jumbo7", "sofia-07")
        await tx.join("test")
        await tx.open_round("r1", {1: 100, 2: 100}, 1.0)
        await conn.close()

    asyncio.run(play())
    code, out, _ = cli(capsys, "pool", "status", "--dsn", pool_dsn)
    assert code == 0
    assert "pool jumbo7 (bet jumbo7, award share-round, seed EUR 1,000.00" in out
    assert "EUR 1,000.40" in out and "sofia-07" in out and "open 1" in out
    code, out, _ = cli(capsys, "pool", "status", "--dsn", pool_dsn, "--json")
    pool = json.loads(out)["pools"][0]
    assert pool["meters"]["current"] == 100_040
    assert [(t["table_id"], t["open_rounds"], t["connected"]) for t in pool["tables"]] == [
        ("sofia-07", 1, False)
    ]


def test_verify_passes_then_names_the_problem(capsys, store_dsn):
    cli(
        capsys,
        "pool",
        "init",
        "--dsn",
        store_dsn,
        "--pool",
        "jumbo7",
        "--profile",
        "ch-bg",
        "--seed",
        "100000",
    )
    code, out, _ = cli(capsys, "pool", "verify", "--dsn", store_dsn)
    assert code == 0 and "pool jumbo7: 1 journal entries" in out and "verify: OK" in out
    with psycopg.connect(store_dsn, autocommit=True) as conn:
        conn.execute("UPDATE croupier.pools SET current = 1")
    code, out, _ = cli(capsys, "pool", "verify", "--dsn", store_dsn, "--json")
    report = json.loads(out)
    assert code == 1 and not report["ok"]
    assert any("current is 1 in the pools table but 100000" in p for p in report["problems"])


def test_errors_are_one_line_for_the_technician(capsys, store_dsn, monkeypatch):
    monkeypatch.delenv("CROUPIER_POOL_DSN", raising=False)
    code, _, err = cli(capsys, "pool", "status")
    assert code == 2 and err == "croupier pool: give the store with --dsn or $CROUPIER_POOL_DSN\n"
    code, _, err = cli(capsys, "pool", "status", "--dsn", store_dsn)
    assert code == 1 and "croupier pool init" in err and err.count("\n") == 1
    code, _, err = cli(capsys, "pool", "status", "--dsn", "host=/nonexistent port=1")
    assert code == 1 and err.startswith("croupier pool: cannot use the store:")
    assert err.count("\n") == 1
    with pytest.raises(SystemExit) as usage:  # checked by argparse, before any work
        cli(
            capsys,
            "pool",
            "init",
            "--dsn",
            store_dsn,
            "--pool",
            "p",
            "--profile",
            "ch-bg",
            "--seed",
            "-5",
        )
    err = capsys.readouterr().err
    assert usage.value.code == 2 and "argument --seed: -5 is below 0" in err

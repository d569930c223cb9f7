"""A linked pool's meter correction (issue 18 point 5): credentialed, journaled in the
pool's store, refused while a round is open or beyond the pool's arithmetic, replayed by
``croupier pool verify`` (the fixture verifies the store after each test)."""

import asyncio
import json
from pathlib import Path

import psycopg
import pytest
import tomli_w

from controller.books.ledger.errors import BadRoundError, RoundStateError
from controller.books.linked import store
from controller.books.linked.correction import correct_linked
from controller.books.linked.errors import LinkedStoreError
from controller.cli.main import main
from controller.validation import read_toml

SIM = Path(__file__).resolve().parents[2] / "config" / "sim.toml"


def run(dsn, work):
    async def go():
        conn = await store.connect(dsn)
        try:
            return await work(conn)
        finally:
            await conn.close()

    return asyncio.run(go())


def test_a_correction_is_journaled_and_replayed(pool_dsn):
    def work(conn):
        return correct_linked(
            conn, "jumbo7", "current", 123_456, 1.0, technician="K. P.", reason="ticket 9"
        )

    after = run(pool_dsn, work)
    assert after.current == 123_456 and after.corrections == 123_456 - 100_000
    with psycopg.connect(pool_dsn) as conn:
        kind, data = conn.execute(
            "SELECT kind, data FROM croupier.journal WHERE pool = 'jumbo7' ORDER BY seq DESC "
            "LIMIT 1"
        ).fetchone()
    assert kind == "meter.corrected"
    assert json.loads(data) == {
        "pool": "jumbo7",
        "meter": "current",
        "old": 100_000,
        "new": 123_456,
        "technician": "K. P.",
        "reason": "ticket 9",
    }


def test_refused_while_a_round_is_open_and_for_bad_values(pool_dsn):
    async def open_then_correct(conn):
        tx = store.PoolTransactions(conn, "jumbo7", "sofia-07")
        await tx.join("test")
        await tx.open_round("r1", {1: 100}, 1.0)
        try:
            await correct_linked(conn, "jumbo7", "current", 1, 2.0, technician="t", reason="r")
        finally:
            await tx.void_round("r1", 3.0, rule="MD-S2", cause="test")

    with pytest.raises(RoundStateError, match="round r1 of table sofia-07 is open"):
        run(pool_dsn, open_then_correct)
    with pytest.raises(BadRoundError, match="not a non-negative amount"):
        run(
            pool_dsn,
            lambda c: correct_linked(c, "jumbo7", "reserve", -1, 1.0, technician="t", reason="r"),
        )
    with pytest.raises(BadRoundError, match="above 1,000,000,000,000 minor units"):
        run(
            pool_dsn,
            lambda c: correct_linked(
                c, "jumbo7", "reserve", 2**63 - 1, 1.0, technician="t", reason="r"
            ),
        )
    with pytest.raises(LinkedStoreError, match="no linked pool 'nope'"):
        run(
            pool_dsn,
            lambda c: correct_linked(c, "nope", "current", 1, 1.0, technician="t", reason="r"),
        )


def test_the_command_needs_the_technician_credential(pool_dsn, tmp_path, monkeypatch, capsys):
    config = tmp_path / "table.toml"
    config.write_text(tomli_w.dumps(read_toml(SIM)))  # the sim's credential: "1234"
    args = [
        "pool",
        "correct",
        "jumbo7",
        "current",
        "150000",
        "--dsn",
        pool_dsn,
        "--config",
        str(config),
        "--technician",
        "K. P.",
        "--reason",
        "display fault",
    ]
    monkeypatch.setenv("CROUPIER_CREDENTIAL", "0000")
    assert main(args) == 1  # a failure (no credential), not a usage error
    assert "wrong technician credential" in capsys.readouterr().err
    monkeypatch.setenv("CROUPIER_CREDENTIAL", "1234")
    assert main(args) == 0
    assert "linked pool jumbo7: current set to EUR 1,500.00 (journaled)" in capsys.readouterr().out

"""The linked-pool store as the witness of a table's own ledger (issue 13, point 5): a table
that puts back an older copy of its SQLite ledger stays closed, and the store never lowers or
forgets a head it saw."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import psycopg
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "ledger"))  # ledger_fixtures

from ledger_fixtures import FakeWall, uth_pool

from controller.books.ledger.keys import create_keyring
from controller.books.ledger.powerup import Safeguards, open_ledger


def play(ledger, first, count):
    for n in range(first, first + count):
        ledger.open_round(f"r{n}", {1: {"progressive": 100}}, n)
        ledger.settle_round(f"r{n}", n, hits={"uth": {}})


def test_a_rolled_back_ledger_is_caught_by_the_linked_store(tmp_path, pool_dsn):
    keyring = create_keyring(tmp_path / "table.key")
    path = tmp_path / "ledger.sqlite3"
    guards = Safeguards(
        simulated=True,
        table_id="T1",
        key_path=keyring.path,
        witness_dsn=pool_dsn,
        manifest=tmp_path / "none.json",
    )
    opened = open_ledger(path, 0.0, FakeWall(), guards)
    with opened.ledger as ledger:
        assert opened.conditions == []
        ledger.configure_pool(uth_pool(), 0.0)
        play(ledger, 0, 2)
    shutil.copy(path, tmp_path / "backup.sqlite3")
    opened = open_ledger(path, 10.0, FakeWall(), guards)
    with opened.ledger as ledger:
        assert opened.conditions == []
        play(ledger, 2, 2)
        head = ledger.journal.head()
    with psycopg.connect(pool_dsn) as conn:
        seen = conn.execute("SELECT seq, hash, table_id FROM croupier.ledger_heads").fetchall()
    assert seen == [(head[0], head[1], "T1")]  # published after the last commit
    for suffix in ("-wal", "-shm"):
        Path(f"{path}{suffix}").unlink(missing_ok=True)
    shutil.copy(tmp_path / "backup.sqlite3", path)
    opened = open_ledger(path, 20.0, FakeWall(), guards)
    with opened.ledger:
        assert [n for n, _ in opened.conditions] == ["selfcheck", "ledger-rollback"]
        assert not opened.status.table_may_open


def test_the_store_never_lowers_nor_forgets_a_head(pool_dsn):
    with psycopg.connect(pool_dsn, autocommit=True) as conn:
        conn.execute(
            "INSERT INTO croupier.ledger_heads (ledger_id, table_id, seq, hash) "
            "VALUES ('L', 'T1', 40, %s)",
            ("a" * 64,),
        )
        with pytest.raises(psycopg.errors.RaiseException, match="below the head"):
            conn.execute("UPDATE croupier.ledger_heads SET seq = 12")
        with pytest.raises(psycopg.errors.RaiseException, match="never deleted"):
            conn.execute("DELETE FROM croupier.ledger_heads")

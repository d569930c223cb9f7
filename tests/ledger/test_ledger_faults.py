"""Faults: disk full, a second writer, read-only media, failures mid-transaction, versions."""

import contextlib
import os
import signal
import sqlite3
import subprocess
import sys
import textwrap
import uuid

import pytest
from ledger_fixtures import FakeWall, uth_pool

from controller.books.ledger.db import Database, migrate, open_writer
from controller.books.ledger.errors import (
    LedgerError,
    LedgerFullError,
    LedgerLockedError,
    LedgerVersionError,
)
from controller.books.ledger.reader import LedgerReader
from controller.books.ledger.store import Ledger
from controller.books.ledger.verify import verify_ledger

SIX = {seat: {"progressive": 100, "ante": 500} for seat in range(1, 7)}


def fill_until_full(ledger, first=0):
    """Play rounds until the disk is full; return the round that failed and the error."""
    for n in range(first, first + 100_000):
        rid = f"round-{n}-{'x' * 40}"
        head = ledger.journal.head()
        try:
            ledger.open_round(rid, SIX, float(n))
            ledger.settle_round(
                rid, float(n), hits={"uth": {}}, payouts={s: {"ante": 0} for s in SIX}
            )
        except LedgerFullError as exc:
            return rid, head, exc
    raise AssertionError("the disk never filled up")


def assert_full_left_nothing_half_written(ledger, rid, head):
    record = ledger.round(rid)
    # the failed event is absent: either the round never opened, or it is still open
    # exactly as its (committed) opening left it, with nothing of the settlement
    assert record is None or record.state == "open"
    if record is None:
        assert ledger.journal.head() == head
    assert verify_ledger(ledger).problems == []


def test_disk_full_at_the_ledger_size_limit_fails_cleanly(ledger):
    pages = ledger.db.execute("PRAGMA page_count").fetchone()[0]
    ledger.db.execute(f"PRAGMA max_page_count = {pages + 8}")
    rid, head, exc = fill_until_full(ledger)
    assert "the disk is full" in str(exc) and isinstance(exc, OSError)
    assert_full_left_nothing_half_written(ledger, rid, head)
    with pytest.raises(LedgerFullError):
        ledger.journal.append("table.state", {"pad": "y" * 20_000}, 1.0)
    ledger.db.execute(f"PRAGMA max_page_count = {pages + 1000}")  # space freed
    ledger.recover(2.0)
    ledger.open_round("after", SIX, 3.0)
    assert ledger.round("after").state == "open"


@contextlib.contextmanager
def mounted(path, *options):
    path.mkdir(exist_ok=True)
    try:
        result = subprocess.run(["mount", *options, str(path)], capture_output=True, text=True)
    except FileNotFoundError:
        pytest.skip("no mount command here")
    if result.returncode != 0:
        pytest.skip(f"cannot mount here ({result.stderr.strip() or 'not root'})")
    try:
        yield path
    finally:
        subprocess.run(["umount", "-l", str(path)], check=False)


def test_a_real_full_filesystem_fails_cleanly(tmp_path):
    with mounted(tmp_path / "small", "-t", "tmpfs", "-o", "size=384k", "tmpfs") as mnt:
        with Ledger.open(mnt / "ledger.sqlite3", now=0.0, wall_clock=FakeWall()) as ledger:
            ledger.configure_pool(uth_pool(), 0.0)
            rid, head, _ = fill_until_full(ledger)
            assert_full_left_nothing_half_written(ledger, rid, head)
        with LedgerReader.open(mnt / "ledger.sqlite3") as reader:
            assert verify_ledger(reader).problems == []


HOLDER = textwrap.dedent(
    """
    import os, sys
    from controller.books.ledger.store import Ledger
    ledger = Ledger.open(sys.argv[1], now=0.0)
    if sys.argv[2] == "crash":
        ledger.db.execute("PRAGMA wal_autocheckpoint = 0")
        from controller.engine.pools.config import pool_config
        from controller.engine.profiles import load_profile
        ledger.configure_pool(pool_config("uth", load_profile("uth-gr").progressive,
                                          seed=500_000), 0.0)
        ledger.open_round("r1", {1: {"progressive": 100}}, 1.0)
        ledger.settle_round("r1", 2.0, hits={"uth": {1: "full-house"}})
        os.kill(os.getpid(), 9)
    print("ready", flush=True)
    sys.stdin.readline()
    """
)


def hold(db_path, mode="hold"):
    return subprocess.Popen(
        [sys.executable, "-c", HOLDER, str(db_path), mode],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )


def test_a_second_process_is_refused_and_a_dead_one_leaves_no_stale_lock(db_path):
    holder = hold(db_path)
    try:
        assert holder.stdout.readline() == "ready\n"
        with pytest.raises(LedgerLockedError, match=f"pid {holder.pid}"):
            Ledger.open(db_path, now=0.0)
        with LedgerReader.open(db_path) as reader:  # reading never needs the lock
            assert reader.journal.head()[0] == 1
    finally:
        holder.send_signal(signal.SIGKILL)
        holder.wait()
    with Ledger.open(db_path, now=0.0) as ledger:  # the kernel released the dead one's lock
        with pytest.raises(LedgerLockedError):
            Ledger.open(db_path, now=0.0)  # the same process twice is refused too
        assert ledger.journal.head()[0] == 1


def test_a_dead_controllers_card_reads_on_read_only_media(tmp_path):
    card = tmp_path / "card"
    card.mkdir()
    db_path = card / "ledger.sqlite3"
    assert hold(db_path, "crash").wait() == -signal.SIGKILL
    assert (card / "ledger.sqlite3-wal").stat().st_size > 0  # the rounds are in the WAL only
    with mounted(tmp_path / "ro", "--bind", "-o", "ro", str(card)) as ro:
        subprocess.run(["mount", "-o", "remount,ro,bind", str(ro)], check=True)
        with LedgerReader.open(ro / "ledger.sqlite3") as reader:  # -wal and -shm present
            assert reader.round("r1").state == "settled"
    (card / "ledger.sqlite3-shm").unlink()  # only the -wal survived: a private copy is read
    with mounted(tmp_path / "ro2", "--bind", "-o", "ro", str(card)) as ro:
        subprocess.run(["mount", "-o", "remount,ro,bind", str(ro)], check=True)
        with LedgerReader.open(ro / "ledger.sqlite3") as reader:
            assert reader.round("r1").state == "settled" and len(reader.hits()) == 1
            assert verify_ledger(reader).problems == []
        assert "ledger.sqlite3-shm" not in os.listdir(ro)  # nothing was written to the card


def test_a_failure_mid_transaction_writes_nothing(ledger, monkeypatch):
    ledger.open_round("r0", SIX, 0.0)
    head = ledger.journal.head()
    real_put = Database.put

    def failing_put(self, table, row):
        if table == "pools":  # after the journal entry and the round rows were written
            raise OSError(5, "Input/output error")
        real_put(self, table, row)

    monkeypatch.setattr(Database, "put", failing_put)
    with pytest.raises(OSError):
        ledger.settle_round(
            "r0", 1.0, hits={"uth": {1: "royal-flush"}}, payouts={s: {"ante": 0} for s in SIX}
        )
    monkeypatch.undo()
    assert ledger.journal.head() == head
    assert ledger.round("r0").state == "open" and ledger.hits() == []


def test_a_newer_schema_is_refused_by_writer_and_reader(db_path):
    conn = sqlite3.connect(db_path)
    conn.execute("PRAGMA user_version = 99")
    conn.close()
    with pytest.raises(LedgerVersionError, match="newer than this software"):
        Ledger.open(db_path, now=0.0)
    with pytest.raises(LedgerVersionError, match="version 99"):
        LedgerReader.open(db_path)


def test_the_reader_never_migrates(db_path):
    sqlite3.connect(db_path).close()
    with pytest.raises(LedgerVersionError, match="not a croupier ledger"):
        LedgerReader.open(db_path)  # an empty file: the reader does not create a schema
    assert db_path.stat().st_size == 0
    with pytest.raises(LedgerError, match="no ledger at"):
        LedgerReader.open(db_path.with_name("missing.sqlite3"))


def test_a_failing_migration_leaves_the_previous_version(db_path):
    db = open_writer(db_path)
    table = f"t_{uuid.uuid4().hex[:8]}"
    steps = {1: "CREATE TABLE meta (key TEXT);", 2: f"CREATE TABLE {table} (x); SELECT nosuch();"}
    try:
        with pytest.raises(LedgerError, match="migrating the schema to version 2"):
            migrate(db, steps)
        assert db.execute("PRAGMA user_version").fetchone()[0] == 1
        names = {r[0] for r in db.execute("SELECT name FROM sqlite_master")}
        assert table not in names
    finally:
        db.close()

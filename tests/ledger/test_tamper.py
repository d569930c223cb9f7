"""Edits made behind the ledger's back with a SQL tool: verify and the self-check catch them.

The edits go through the ``sqlite3`` command-line tool when it is installed (as someone with a
shell on the controller would do it), through Python's sqlite3 module otherwise.
"""

import shutil
import sqlite3
import subprocess

import pytest
from ledger_fixtures import FakeWall, uth_pool

from controller.books.ledger.journal import entry_hash, verify_chain
from controller.books.ledger.reader import LedgerReader
from controller.books.ledger.store import Ledger
from controller.books.ledger.verify import verify_ledger
from controller.cli.main import main

SQLITE3 = shutil.which("sqlite3")
UNLOCK = "DROP TRIGGER journal_no_update; DROP TRIGGER journal_no_delete;"
RELOCK = "".join(
    f"CREATE TRIGGER journal_no_{what} BEFORE {what.upper()} ON journal "
    "BEGIN SELECT RAISE(ABORT, 'the journal is append-only'); END;"
    for what in ("update", "delete")
)


def sql(path, script):
    if SQLITE3:
        subprocess.run([SQLITE3, str(path)], input=script, text=True, check=True)
    else:
        conn = sqlite3.connect(path)
        conn.executescript(script)
        conn.close()


@pytest.fixture
def ledger_file(db_path):
    """A closed ledger of 12 rounds: entries 1-2 create it, 3..26 open and close rounds."""
    with Ledger.open(db_path, now=0.0, wall_clock=FakeWall()) as ledger:
        ledger.configure_pool(uth_pool(), 0.0)
        for n in range(12):
            ledger.open_round(f"r{n}", {1: {"progressive": 100}, 2: {"progressive": 100}}, n)
            if n % 3:
                ledger.settle_round(f"r{n}", n, hits={"uth": {1: "full-house"}})
            else:
                ledger.void_round(f"r{n}", n, rule="MD-S1", cause="wrong count")
    return db_path


def chain(path):
    with LedgerReader.open(path) as reader:
        return verify_chain(reader.journal)


def test_an_untouched_ledger_verifies(ledger_file, capsys):
    assert chain(ledger_file).ok and chain(ledger_file).entries == 26
    assert main(["events", "verify", "--db", str(ledger_file)]) == 0
    assert main(["meters", "verify", "--db", str(ledger_file)]) == 0
    assert "verify: OK" in capsys.readouterr().out


def test_the_journal_refuses_updates_and_deletes_while_its_triggers_stand(ledger_file):
    conn = sqlite3.connect(ledger_file)
    with pytest.raises(sqlite3.IntegrityError, match="append-only"):
        conn.execute("UPDATE journal SET data = '{}' WHERE seq = 5")
    with pytest.raises(sqlite3.IntegrityError, match="append-only"):
        conn.execute("DELETE FROM journal WHERE seq = 5")
    conn.close()


@pytest.mark.parametrize(
    "script, first_bad, words",
    [
        (
            UNLOCK + "UPDATE journal SET data = replace(data, '100', '900') WHERE seq = 7;",
            7,
            "entry 7 (round.opened) was altered",
        ),
        (UNLOCK + "DELETE FROM journal WHERE seq = 9;", 9, "entry 9 is missing"),
        (UNLOCK + "DELETE FROM journal WHERE seq > 24;", 25, "25..26 are missing from the end"),
        (
            UNLOCK + "UPDATE journal SET seq = -seq WHERE seq >= 11;"
            "UPDATE journal SET seq = 1 - seq WHERE seq < 0;"
            "INSERT INTO journal SELECT 11, kind, mono, wall, data, prev_hash, hash "
            "FROM journal WHERE seq = 4;",
            11,
            "entry 11 (round.voided) was altered",
        ),
        (
            UNLOCK + "UPDATE journal SET seq = -1 WHERE seq = 13;"
            "UPDATE journal SET seq = 13 WHERE seq = 14;"
            "UPDATE journal SET seq = 14 WHERE seq = -1;",
            13,
            "entry 13",
        ),
        ("DROP TRIGGER journal_no_delete;", None, "trigger journal_no_delete is missing"),
    ],
    ids=["edit", "delete", "cut-the-end", "insert", "reorder", "drop-trigger"],
)
def test_events_verify_names_the_first_bad_entry(ledger_file, capsys, script, first_bad, words):
    sql(ledger_file, script)
    report = chain(ledger_file)
    assert not report.ok and report.first_bad == first_bad
    assert words in report.problems[0]
    assert main(["events", "verify", "--db", str(ledger_file)]) == 1
    out = capsys.readouterr().out
    assert words in out and f"first bad entry: {first_bad}" in out
    assert main(["meters", "verify", "--db", str(ledger_file)]) == 1


def test_a_rewrite_with_a_recomputed_hash_is_caught_at_the_next_link(ledger_file):
    conn = sqlite3.connect(ledger_file)
    seq, kind, mono, wall, data, prev = conn.execute(
        "SELECT seq, kind, mono, wall, data, prev_hash FROM journal WHERE seq = 8"
    ).fetchone()
    forged = data.replace('"current":500', '"current":900')
    conn.executescript(UNLOCK)
    conn.execute(
        "UPDATE journal SET data = ?, hash = ? WHERE seq = 8",
        (forged, entry_hash(prev, seq, kind, mono, wall, forged)),
    )
    conn.commit()
    conn.close()
    report = chain(ledger_file)
    assert report.first_bad == 8
    assert "entry 9 does not link to entry 8" in report.problems[0]


def test_a_meter_edited_with_sql_is_caught_by_verify(ledger_file):
    sql(ledger_file, "UPDATE pools SET current = current + 100000;")
    with LedgerReader.open(ledger_file) as reader:
        problems = verify_ledger(reader).problems
    assert "pools row uth does not match its checksum" in problems
    assert any("current" in p and "seeds" in p for p in problems)  # the identity
    assert any("in the pools table but" in p for p in problems)  # the replay


def test_a_round_row_edited_with_sql_is_caught_by_verify(ledger_file):
    sql(ledger_file, "UPDATE rounds SET staked = 1 WHERE round_id = 'r4';")
    with LedgerReader.open(ledger_file) as reader:
        assert verify_ledger(reader).problems == [
            "rounds row r4 does not match its checksum",
            "round r4: staked is 1 in the rounds table but 200 from the journal",
        ]


def test_a_resealed_forgery_of_a_round_is_caught_against_the_journal(ledger_file):
    """Even with a correct checksum, a round pool row must match its journal entry."""
    from controller.books.ledger.db import open_writer

    db = open_writer(ledger_file)
    row = db.get("round_pools", ("r4", "uth"))
    db.put("round_pools", {**row, "contribution": row["contribution"].replace("30", "31")})
    db.close()
    with LedgerReader.open(ledger_file) as reader:
        problems = verify_ledger(reader).problems
    assert problems == ["1 round pool rows whose contribution differs from the journal"]


def test_a_rewritten_and_rechained_journal_still_fails_the_replay(ledger_file):
    """Someone who recomputes every hash after raising a recorded amount passes the chain
    check, but the replay recomputes the amounts from the stakes and finds the lie."""
    conn = sqlite3.connect(ledger_file)
    conn.executescript(UNLOCK)
    rows = conn.execute(
        "SELECT seq, kind, mono, wall, data, prev_hash FROM journal ORDER BY seq"
    ).fetchall()
    prev = rows[0][5]
    for seq, kind, mono, wall, data, _ in rows:
        if seq == 7:  # round r2 opened: claim it contributed 10 more
            data = data.replace('"to_current":30', '"to_current":40')
        digest = entry_hash(prev, seq, kind, mono, wall, data)
        conn.execute(
            "UPDATE journal SET data = ?, prev_hash = ?, hash = ? WHERE seq = ?",
            (data, prev, digest, seq),
        )
        prev = digest
    conn.execute("UPDATE meta SET value = ? WHERE key = 'journal_head'", (f"{rows[-1][0]} {prev}",))
    conn.commit()
    conn.executescript(RELOCK)
    conn.close()
    assert chain(ledger_file).ok
    with LedgerReader.open(ledger_file) as reader:
        problems = verify_ledger(reader).problems
    assert "round r2 pool uth contribution recorded" in " ".join(problems)
    assert "1 round pool rows whose contribution differs from the journal" in problems

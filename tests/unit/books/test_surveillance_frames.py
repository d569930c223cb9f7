"""The surveillance store keeps each closed round's deal frames and every deck check, sealed
like its rounds, and a store from before them gains the tables when the daemon opens it
(docs/evidence.md)."""

from __future__ import annotations

import sqlite3

import pytest

from controller.books.ledger.keys import create_keyring
from controller.books.surveillance import RoundReusedError, SurveillanceError, SurveillanceStore

# the store as the version before frames made it (with seals, without the frames tables)
OLD_SCHEMA = """
CREATE TABLE rounds (round_id TEXT PRIMARY KEY, seq INTEGER NOT NULL, profile TEXT NOT NULL,
    record TEXT NOT NULL, result TEXT NOT NULL, wall REAL NOT NULL, seal TEXT);
CREATE TABLE reused (round_id TEXT NOT NULL, profile TEXT NOT NULL, record TEXT NOT NULL,
    result TEXT NOT NULL, wall REAL NOT NULL);
CREATE TABLE audit (positions INTEGER NOT NULL, stats TEXT NOT NULL);
INSERT INTO rounds VALUES ('T-1', 1, 'uth-gr', '{"dealer": ["2d", "3d"]}', '{}', 5.0, NULL);
"""
SHUFFLER = {"model": "M", "serial": "S", "firmware": "1", "firmware_sha256": "ab" * 32}


def exchange(wall: float, payload: str = "00") -> dict:
    return {"kind": "deal", "wall": wall, "payload": payload, "frames": [{"raw": "a5"}]}


def old_store(path):
    db = sqlite3.connect(path)
    db.executescript(OLD_SCHEMA)
    db.close()
    return path


def test_an_old_store_opened_by_the_daemon_gets_the_frames_tables(tmp_path):
    path = old_store(tmp_path / "surveillance.sqlite3")
    store = SurveillanceStore(path)
    assert store.round("T-1")["record"] == {"dealer": ["2d", "3d"]}  # its rounds kept
    assert store.deal_frames("T-1") is None  # closed before frames were kept
    store.add_deal_frames("T-2", SHUFFLER, [exchange(10.0)], 0, 11.0)
    kept = store.deal_frames("T-2")
    assert kept == {"shuffler": SHUFFLER, "exchanges": [exchange(10.0)], "dropped": 0, "wall": 11.0}
    store.close()


def test_an_old_store_read_only_answers_no_frames(tmp_path):
    path = old_store(tmp_path / "surveillance.sqlite3")
    store = SurveillanceStore(path, read_only=True)
    assert store.deal_frames("T-1") is None
    assert store.deck_checks_around(0.0, 1e12) == ([], [])
    assert store.problems() == []
    store.close()


def test_frames_are_never_replaced(tmp_path):
    store = SurveillanceStore(tmp_path / "s.sqlite3")
    store.add_deal_frames("T-1", None, [exchange(1.0)], 0, 2.0)
    with pytest.raises(RoundReusedError, match="T-1 has its deal frames"):
        store.add_deal_frames("T-1", None, [exchange(1.0, "ff")], 0, 3.0)
    assert store.deal_frames("T-1")["exchanges"] == [exchange(1.0)]


def test_the_deck_checks_around_a_round(tmp_path):
    store = SurveillanceStore(tmp_path / "s.sqlite3")
    for wall in (1.0, 2.0, 9.0, 12.0):
        store.add_deck_check({"text": f"at {wall}"}, wall)
    before, after = store.deck_checks_around(5.0, 8.0)
    assert before == [{"text": "at 2.0"}] and after == [{"text": "at 9.0"}]
    assert store.deck_checks_around(0.5, 20.0) == ([], [])


def frames_of(store):
    return store.deal_frames("T-1")


def checks_around(store):
    return store.deck_checks_around(5.0, 5.0)


@pytest.mark.parametrize(
    ("change", "read"),
    [
        ("UPDATE deal_frames SET exchanges = replace(exchanges, '\"00\"', '\"01\"')", frames_of),
        ("UPDATE deal_frames SET shuffler = 'null'", frames_of),
        ("UPDATE deal_frames SET dropped = 3", frames_of),
        ("UPDATE deck_checks SET exchange = replace(exchange, '52', '51')", checks_around),
    ],
)
def test_a_row_changed_outside_the_table_is_refused_and_listed(tmp_path, change, read):
    keyring = create_keyring(tmp_path / "table.key")
    store = SurveillanceStore(tmp_path / "s.sqlite3", keyring=keyring)
    store.add_deal_frames("T-1", SHUFFLER, [exchange(5.0)], 0, 6.0)
    store.add_deck_check({"text": "52 of 52 cards"}, 1.0)
    assert read(store) and store.problems() == []
    with store.db:
        store.db.execute(change)
    assert len(store.problems()) == 1
    with pytest.raises(SurveillanceError, match="does not match its seal"):
        read(store)

"""The surveillance store writes a settled round and the shuffle audit's counts in ONE
transaction (one commit, one fsync, on the settle path: docs/daemon.md, "Fast on a slow
CPU"), and a reused round ID still keeps the audit."""

from __future__ import annotations

from pathlib import Path

import pytest

from controller.books.audit.shuffle_audit import ShuffleStats
from controller.books.surveillance import RoundReusedError, SurveillanceStore


def counted_commits(store: SurveillanceStore) -> list[str]:
    statements: list[str] = []
    store.db.set_trace_callback(statements.append)
    return statements


def audit_after(cards: list[int]) -> ShuffleStats:
    stats = ShuffleStats(3)
    assert stats.add_shuffle(cards)
    return stats


def test_round_and_audit_share_one_commit(tmp_path: Path) -> None:
    store = SurveillanceStore(tmp_path / "s.sqlite3")
    statements = counted_commits(store)
    stats = audit_after([5, 9, 51])
    store.add_round("T1-000001", "uth-gr", {"seats": [1]}, {"paid": 10}, 1.0, audit=stats)
    assert [s for s in statements if s.upper().startswith("COMMIT")] == ["COMMIT"]
    store.close()
    again = SurveillanceStore(tmp_path / "s.sqlite3", read_only=True)
    assert again.load_audit(3) == stats
    assert again.round("T1-000001")["result"] == {"paid": 10}


def test_without_audit_the_stored_audit_is_left_alone(tmp_path: Path) -> None:
    store = SurveillanceStore(tmp_path / "s.sqlite3")
    stats = audit_after([1, 2, 3])
    store.add_round("T1-000001", "uth-gr", {}, {}, 1.0, audit=stats)
    store.add_round("T1-000002", "uth-gr", {}, {}, 2.0)
    assert store.load_audit(3) == stats


def test_a_reused_round_keeps_the_audit(tmp_path: Path) -> None:
    store = SurveillanceStore(tmp_path / "s.sqlite3")
    store.add_round("T1-000001", "uth-gr", {"seats": [1]}, {"paid": 10}, 1.0)
    stats = audit_after([7, 8, 9])
    with pytest.raises(RoundReusedError):
        store.add_round("T1-000001", "uth-gr", {"seats": [2]}, {"paid": 99}, 2.0, audit=stats)
    assert store.load_audit(3) == stats
    assert store.round("T1-000001")["result"] == {"paid": 10}

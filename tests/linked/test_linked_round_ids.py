"""A table killed between the linked store's commit of a round's opening and its own ledger's
(the store holds the round, the table's ledger does not): at restart the store voids that round
(MD-S2), and the table must not number its next round with the same ID, however many times it
restarts before playing again."""

import psycopg
import pytest
from linked_tables import ch_overrides, linked_up, play_round
from pg import run_on_pool

from controller.books.ledger.errors import RoundConflictError
from controller.books.linked.errors import LinkedStoreError

pytestmark = pytest.mark.integration


def in_store(dsn, table, work):
    """``work(tx)`` with the table's transactions on the Jumbo 7 pool."""
    return run_on_pool(dsn, work, table)


def open_in_store(dsn: str, table: str, round_id: str) -> None:
    """What the killed run left: the round opened in the store only."""
    in_store(dsn, table, lambda tx: tx.open_round(round_id, {1: 100}, 0.0))


def test_the_store_names_the_latest_round_and_refuses_a_closed_one_opened_again(pool_dsn):
    assert in_store(pool_dsn, "CH-1", lambda tx: tx.latest_round_id()) is None
    open_in_store(pool_dsn, "CH-1", "CH-1-000009")
    open_in_store(pool_dsn, "CH-2", "CH-2-000012")
    open_in_store(pool_dsn, "CH-1", "CH-1-000010")
    assert in_store(pool_dsn, "CH-1", lambda tx: tx.latest_round_id()) == "CH-1-000010"
    # an opening the store never saw, abandoned (no open_seq): counted, whatever its place
    in_store(pool_dsn, "CH-1", lambda tx: tx.abandon_round("CH-1-000003", 1.0))
    assert in_store(pool_dsn, "CH-1", lambda tx: tx.latest_round_id()) == "CH-1-000010"
    in_store(pool_dsn, "CH-1", lambda tx: tx.abandon_round("CH-1-000011", 1.0))
    assert in_store(pool_dsn, "CH-1", lambda tx: tx.latest_round_id()) == "CH-1-000011"
    in_store(pool_dsn, "CH-1", lambda tx: tx.abandon_round("CH-1-1000000", 1.0))
    assert in_store(pool_dsn, "CH-1", lambda tx: tx.latest_round_id()) == "CH-1-1000000"
    open_in_store(pool_dsn, "CH-1", "CH-1-000010")  # the same opening asked again: the same
    in_store(
        pool_dsn, "CH-1", lambda tx: tx.void_round("CH-1-000010", 1.0, rule="MD-S2", cause="test")
    )
    with pytest.raises(RoundConflictError, match="already voided in the store"):
        open_in_store(pool_dsn, "CH-1", "CH-1-000010")


def test_an_edited_round_id_in_the_store_is_a_one_line_error(pool_dsn):
    open_in_store(pool_dsn, "CH-1", "CH-1-000001")
    with psycopg.connect(pool_dsn, autocommit=True) as conn:
        conn.execute("UPDATE croupier.rounds SET round_id = %s", ("x' OR 1=1; --" * 9,))
    with pytest.raises(LinkedStoreError, match="is not a round ID"):
        in_store(pool_dsn, "CH-1", lambda tx: tx.latest_round_id())
    with psycopg.connect(pool_dsn, autocommit=True) as conn:  # the fixture verifies the store
        conn.execute("UPDATE croupier.rounds SET round_id = 'CH-1-000001'")


def test_a_round_opened_in_the_store_only_is_not_numbered_again(make_sim_table, pool_dsn):
    open_in_store(pool_dsn, "CH-1", "CH-1-000001")
    open_in_store(pool_dsn, "CH-1", "CH-1-000002")
    t = make_sim_table(ch_overrides("CH-1", pool_dsn))
    t.wait_until(lambda: linked_up(t), "the linked pool joined")
    recovered = t.wait_until(lambda: t.journal("linked.recovered"), "the store's rounds voided")
    assert [r["rounds"] for r in recovered] == [["CH-1-000001", "CH-1-000002"]]
    t.stop()  # and again, before any round: the store's rounds are voided, not open, now
    t.start()
    t.wait_until(lambda: linked_up(t), "the linked pool joined again")
    play_round(t, [1])
    settled = t.journal("round.settled")
    assert [e["round"] for e in settled] == ["CH-1-000003"]

"""A pool row edited in the database is read back checked (controller/books/linked/rows.py):
a current amount past MONEY_MAX was paid as a jackpot into the table's ledger, a malformed
carry or configuration raised ValueError, ZeroDivisionError or JSONDecodeError into the
daemon. Now each is one LinkedStoreError naming the pool and the column, nothing is paid,
and ``pool status`` and ``pool verify`` say the same instead of a traceback."""

import asyncio
import json

import pytest
from pg import create_pool, jumbo7
from pg import run_on_pool as run
from test_linked_store import JACKPOT, sql

from controller.books.linked import admin, store
from controller.books.linked.errors import LinkedStoreError
from controller.books.linked.verify import verify_store
from controller.validation import MONEY_MAX


def edited(**changes):
    """An UPDATE giving the pool's config these ``changes``."""
    text = json.dumps({**jumbo7().to_json(), **changes}).replace("'", "''").replace("%", "%%")
    return f"UPDATE croupier.pools SET config = '{text}'"


@pytest.mark.parametrize(
    ("statement", "column"),
    [
        (f"UPDATE croupier.pools SET current = {MONEY_MAX * 1000}", "current"),
        ("UPDATE croupier.pools SET reserve = 9223372036854775000", "reserve"),
        ("UPDATE croupier.pools SET carry = 'x'", "carry"),
        ("UPDATE croupier.pools SET carry = '5/0'", "carry"),
        ("UPDATE croupier.pools SET reserve_carry = '-1/3'", "reserve_carry"),
        ("UPDATE croupier.pools SET config = 'nonsense'", "config"),
        ("""UPDATE croupier.pools SET config = '{"seed": 5}'""", "config"),
        # JSON too deep for the decoder (RecursionError), a band of no bounds (IndexError)
        ("UPDATE croupier.pools SET config = repeat('[', 100000)", "config"),
        (edited(contribution_band=[]), "config"),
        # each read back as a PoolConfig without a word: a seed that is not money, a rate
        # above the whole stake, a reset seed past MONEY_MAX, a rule of no profile, another
        # pool's name, and a rate whose Fraction() is unbounded work ("1e9999999": 25 s)
        (edited(seed="x"), "config"),
        (edited(contribution_rate="3"), "config"),
        (edited(seed=MONEY_MAX * 10, cap=None), "config"),
        (edited(envy_to_winner="yes"), "config"),
        (edited(multiple_hits=None), "config"),
        (edited(name="other"), "config"),
        (edited(reserve_rate="1e99999"), "config"),
    ],
)
def test_an_edited_pool_row_pays_nothing_and_says_which_column(store_dsn, statement, column):
    create_pool(store_dsn)

    async def opened(tx):
        await tx.open_round("r1", {1: 100}, 1.0)

    run(store_dsn, opened)
    sql(store_dsn, statement)

    async def settle(tx):
        return await tx.settle_round("r1", 2.0, lines={1: JACKPOT}, hands={}, final=None)

    with pytest.raises(LinkedStoreError) as caught:
        run(store_dsn, settle)
    message = str(caught.value)
    assert f"pool jumbo7 in the store: {column}" in message and "\n" not in message
    assert sql(store_dsn, "SELECT count(*) FROM croupier.hits") == [(0,)]  # nothing paid

    async def status():
        conn = await store.connect(store_dsn)
        try:
            return await admin.pool_status(conn)
        finally:
            await conn.close()

    with pytest.raises(LinkedStoreError, match=f"in the store: {column}"):
        asyncio.run(status())
    assert any(f"in the store: {column}" in p for p in verify_store(store_dsn).problems)

"""A PostgreSQL server for the linked-pool tests, or the reason there is none.

``CROUPIER_TEST_DSN`` names an existing server (tests that stop the server then skip); else
each use starts a private throwaway cluster (``controller.books.linked.devserver``) from the
distribution's binaries. Without a server the tests skip with the reason, unless
``CROUPIER_REQUIRE_POSTGRES=1`` (set by ``.ci/run``) turns the skip into a failure.
"""

import asyncio
import os

import pytest

from controller.books.linked import store
from controller.books.linked.devserver import DevServerError
from controller.engine.pools.config import pool_config
from controller.engine.profiles import load_profile
from controller.rig import pgserver
from controller.rig.pgserver import drop_database, dsn_with, fresh_database

__all__ = ["create_pool", "drop_database", "dsn_with", "fresh_database", "jumbo7", "start_server"]

RULES = load_profile("ch-bg").progressive
SEED = 100_000


def unavailable(reason):
    """Skip (or fail, where the server is required) for want of a server."""
    message = f"no PostgreSQL server for the linked-pool tests: {reason}"
    if os.environ.get("CROUPIER_REQUIRE_POSTGRES") == "1":
        pytest.fail(message + " (CROUPIER_REQUIRE_POSTGRES=1)")
    pytest.skip(message)


def start_server(**options):
    """A private server, started (``controller.rig.pgserver.private_server``), or a skip."""
    try:
        return pgserver.private_server(**options)
    except DevServerError as exc:
        unavailable(str(exc))


def jumbo7(name="jumbo7", **settings):
    return pool_config(name, RULES, seed=settings.pop("seed", SEED), **settings)


def create_pool(dsn, config=None):
    """Migrate the store and create the pool (ch-bg's Jumbo 7 by default)."""
    return pgserver.create_pool(dsn, config or jumbo7())


def run_on_pool(dsn, work, table="t1"):
    """``work(tx)`` with the table's transactions on the Jumbo 7 pool; its result."""

    async def main():
        conn = await store.connect(dsn)
        try:
            tx = store.PoolTransactions(conn, "jumbo7", table)
            await tx.join("test")
            return await work(tx)
        finally:
            await conn.close()

    return asyncio.run(main())

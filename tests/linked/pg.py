"""A PostgreSQL server for the linked-pool tests, or the reason there is none.

``CROUPIER_TEST_DSN`` names an existing server (tests that stop the server then skip); else
each use starts a private throwaway cluster (``controller.books.linked.devserver``) from the
distribution's binaries. Without a server the tests skip with the reason, unless
``CROUPIER_REQUIRE_POSTGRES=1`` (set by ``.ci/run``) turns the skip into a failure.
"""

import asyncio
import os
import shutil
import tempfile
import uuid
from pathlib import Path

import psycopg
import pytest

from controller.books.linked import admin, schema, store
from controller.books.linked.devserver import DevServer, DevServerError
from controller.engine.pools.config import pool_config
from controller.engine.profiles import load_profile

RULES = load_profile("ch-bg").progressive
SEED = 100_000


def unavailable(reason):
    """Skip (or fail, where the server is required) for want of a server."""
    message = f"no PostgreSQL server for the linked-pool tests: {reason}"
    if os.environ.get("CROUPIER_REQUIRE_POSTGRES") == "1":
        pytest.fail(message + " (CROUPIER_REQUIRE_POSTGRES=1)")
    pytest.skip(message)


def start_server(**options):
    """A private server, started (in a directory of its own under /tmp: pytest's temporary
    directories are closed to the postgres user when the tests run as root)."""
    root = Path(tempfile.mkdtemp(prefix="croupier-pg-"))
    try:
        server = DevServer(root, **options)
        server.start()
    except DevServerError as exc:
        shutil.rmtree(root, ignore_errors=True)
        unavailable(str(exc))
    return server


def fresh_database(admin_dsn):
    """Create an empty database; returns its name."""
    name = "t_" + uuid.uuid4().hex[:12]
    with psycopg.connect(admin_dsn, autocommit=True) as conn:
        conn.execute(f"CREATE DATABASE {name}")
    return name


def drop_database(admin_dsn, name):
    with psycopg.connect(admin_dsn, autocommit=True) as conn:
        conn.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")


def dsn_with(dsn, dbname):
    parts = [p for p in dsn.split() if not p.startswith("dbname=")]
    return " ".join([*parts, f"dbname={dbname}"])


def jumbo7(name="jumbo7", **settings):
    return pool_config(name, RULES, seed=settings.pop("seed", SEED), **settings)


def create_pool(dsn, config=None):
    """Migrate the store and create the pool (ch-bg's Jumbo 7 by default)."""

    async def work():
        conn = await store.connect(dsn)
        try:
            await schema.migrate(conn)
            return await admin.configure_pool(conn, config or jumbo7(), 0.0)
        finally:
            await conn.close()

    return asyncio.run(work())

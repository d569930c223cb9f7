"""Fixtures of the linked-pool tests: one PostgreSQL server per session, a fresh database per
test (see pg.py for where the server comes from and what happens without one)."""

import os

import pytest
from pg import create_pool, drop_database, dsn_with, fresh_database, start_server

from controller.books.linked.verify import verify_store


@pytest.fixture(scope="session")
def pg_admin_dsn():
    """The DSN of a database to create others from."""
    if os.environ.get("CROUPIER_TEST_DSN"):
        yield os.environ["CROUPIER_TEST_DSN"]
        return
    server = start_server()
    yield server.dsn
    server.destroy()


@pytest.fixture
def store_dsn(pg_admin_dsn):
    """An empty database of its own for one test."""
    name = fresh_database(pg_admin_dsn)
    yield dsn_with(pg_admin_dsn, name)
    drop_database(pg_admin_dsn, name)


@pytest.fixture
def pool_dsn(store_dsn):
    """A store with the Jumbo 7 pool (ch-bg, seed 100000); verified in full after the test."""
    create_pool(store_dsn)
    yield store_dsn
    assert verify_store(store_dsn).problems == []

"""A private PostgreSQL store for the rig (the linked-pool soak) and the linked-pool tests.

:func:`private_server` starts a throwaway cluster
(:class:`~controller.books.linked.devserver.DevServer`: the distribution's binaries from
``/usr/lib/postgresql/*/bin``, a Unix socket in its own directory) under ``/tmp`` (pytest's
temporary directories are closed to the ``postgres`` user when the rig runs as root);
:func:`fresh_database` makes an empty database on it and :func:`create_pool` migrates the
store and creates a pool, as ``croupier pool create`` does. Raises
:class:`~controller.books.linked.devserver.DevServerError` when no server can be started
(the message says what to install).
"""

from __future__ import annotations

import asyncio
import shutil
import tempfile
import uuid
from pathlib import Path

import psycopg

from controller.books.linked import admin, schema, store
from controller.books.linked.devserver import DevServer, DevServerError
from controller.engine.pools.config import PoolConfig


def private_server(**options: object) -> DevServer:
    """A private server, started, in a directory of its own under /tmp (``destroy()`` removes
    it)."""
    root = Path(tempfile.mkdtemp(prefix="croupier-pg-"))
    try:
        server = DevServer(root, **options)  # type: ignore[arg-type]
        server.start()
    except DevServerError:
        shutil.rmtree(root, ignore_errors=True)
        raise
    return server


def fresh_database(admin_dsn: str) -> str:
    """Create an empty database; returns its name."""
    name = "t_" + uuid.uuid4().hex[:12]
    with psycopg.connect(admin_dsn, autocommit=True) as conn:
        conn.execute(f"CREATE DATABASE {name}")
    return name


def drop_database(admin_dsn: str, name: str) -> None:
    with psycopg.connect(admin_dsn, autocommit=True) as conn:
        conn.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")


def dsn_with(dsn: str, dbname: str) -> str:
    """``dsn`` naming the database ``dbname``."""
    parts = [p for p in dsn.split() if not p.startswith("dbname=")]
    return " ".join([*parts, f"dbname={dbname}"])


def create_pool(dsn: str, config: PoolConfig) -> str:
    """Migrate the store at ``dsn`` and create the pool ``config``."""

    async def work() -> str:
        conn = await store.connect(dsn)
        try:
            await schema.migrate(conn)
            return await admin.configure_pool(conn, config, 0.0)
        finally:
            await conn.close()

    return asyncio.run(work())

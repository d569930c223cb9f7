"""CH-9 share_scope with a real PostgreSQL store: the store fixes shares over the hitting
table's round only (share_scope = "table"), so a pool that asks for shares across the link
(share_scope = "link") keeps the table's link down with that reason instead of sharing by
the wrong rule."""

from __future__ import annotations

import asyncio
import dataclasses

import pytest
from pg import RULES, SEED, create_pool, drop_database, dsn_with, fresh_database, start_server

from controller.books.linked.client import LinkedPool
from controller.books.linked.link import LinkChanged
from controller.books.linked.settings import LinkedSettings
from controller.engine.pools.config import pool_config


@pytest.fixture(scope="module")
def server():
    server = start_server()
    yield server
    server.destroy()


def test_a_link_scope_pool_keeps_the_link_down_naming_ch9(server):
    name = fresh_database(server.dsn)
    dsn = dsn_with(server.dsn, name)
    rules = dataclasses.replace(RULES, share_scope="link")
    create_pool(dsn, pool_config("jumbo7", rules, seed=SEED))
    settings = LinkedSettings(
        name="j7", dsn=dsn, pool="jumbo7", heartbeat=1.0, operation_timeout=2.0,
        reconnect_min=0.05, reconnect_max=0.5,
    )  # fmt: skip

    async def main():
        async with LinkedPool(settings, "A", rules) as table:
            events = table.events()
            async for event in events:
                if isinstance(event, LinkChanged) and not event.up and "CH-9" in event.reason:
                    break
            await events.aclose()
            return table.link_up, table.link_reason

    up, reason = asyncio.run(asyncio.wait_for(main(), 30))
    drop_database(server.dsn, name)
    assert not up and "share_scope = 'table'" in reason

"""A ch-bg table restarted while its linked store (the witness of its ledger) is down: it keeps
the ``witness`` condition only until the store answers again, then opens by itself; the real
croupierd on a private PostgreSQL that is stopped and started (docs/ledger.md, "The witness")."""

from __future__ import annotations

from pg import start_server

from controller.engine.pools.config import pool_config
from controller.engine.profiles import load_profile
from controller.rig import pgserver
from controller.rig.soak_linked import CH_CONFIG, POOL, SEED, link_overrides
from controller.rig.table import SimTable


def test_a_table_restarted_while_the_store_is_down_opens_once_it_answers(tmp_path):
    server = start_server()
    try:
        dsn = pgserver.dsn_with(server.dsn, pgserver.fresh_database(server.dsn))
        pgserver.create_pool(dsn, pool_config(POOL, load_profile("ch-bg").progressive, seed=SEED))
        with SimTable(CH_CONFIG, overrides=link_overrides("T-WIT", dsn)) as table:
            table.wait_for_state("open", timeout=30)
            server.stop()
            table.kill()
            table.start()
            table.wait_until(
                lambda: "witness" in table.status()["conditions"],
                "the witness condition",
                timeout=30,
            )
            assert table.status()["state"] == "closed"
            server.start()
            opened = table.wait_for_state("open", timeout=60)
            assert "witness" not in opened["conditions"]
            events = table.call("events.tail", n=200)
    finally:
        server.destroy()
    cleared = [
        e
        for e in events
        if e["kind"] == "condition" and e["data"]["name"] == "witness" and not e["data"]["blocking"]
    ]
    assert cleared, "the witness condition was never cleared in the journal"

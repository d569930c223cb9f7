"""Two real croupierd tables on one Jumbo 7 pool in PostgreSQL (issue 9): concurrent rounds,
both signs following the shared amount, the server stopped mid-session (no linked stake taken
while down, the table plays on) and back (the tables rejoin)."""

import threading

import pytest
from linked_tables import ch_overrides, lifted, linked_up, play_round
from pg import RULES, SEED, create_pool, start_server

from controller.books.linked.verify import verify_store

pytestmark = pytest.mark.integration


def test_two_tables_share_one_pool_and_survive_the_server_going_away(make_sim_table):
    server = start_server()
    try:
        create_pool(server.dsn)
        tables = [make_sim_table(ch_overrides(name, server.dsn)) for name in ("CH-1", "CH-2")]
        for t in tables:
            t.wait_until(lambda t=t: linked_up(t), "the linked pool joined")
        threads = [
            threading.Thread(target=play_round, args=(t, seats))
            for t, seats in zip(tables, ([1, 2], [3]), strict=True)
        ]
        for th in threads:
            th.start()
        for th in threads:
            th.join(120)
        rate = RULES.contribution_rate  # 3 stakes of 100 feed the shared meter
        expected = SEED + int(3 * 100 * rate)
        for t in tables:  # every sign follows the shared amount (LISTEN/NOTIFY)
            t.wait_until(lambda t=t: t.status()["pools"].get("jumbo7") == expected, "shared amount")
        server.stop()
        for t in tables:
            t.wait_until(lambda t=t: not linked_up(t), "link down")
            assert t.status()["state"] == "open"  # the table plays its other bets
        t = tables[0]
        t.io.place_stake(1)
        t.wait_until(lambda: t.status()["seats"]["1"]["stake"], "stake sensed")
        t.call("round.lock")
        t.wait_for_state("verified")
        locked = [e for e in t.journal("transition") if e.get("to") == "locked"][-1]
        assert locked["progressive"] == {} and "progressive_closed" in locked
        t.io.lift_stake(1)
        lifted(t, [1])
        t.call("round.confirm")
        t.wait_for_state("settled")
        t.call("round.confirm")
        server.start()
        for t in tables:
            t.wait_until(lambda t=t: linked_up(t), "rejoined", timeout=60)
        play_round(tables[1], [1])
        expected += int(100 * rate)
        for t in tables:
            t.wait_until(lambda t=t: t.status()["pools"].get("jumbo7") == expected, "shared amount")
        for t in tables:
            t.close()
        assert verify_store(server.dsn).problems == []
    finally:
        server.destroy()

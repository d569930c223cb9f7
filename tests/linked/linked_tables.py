"""Helpers of the tests that run real croupierd tables on a linked pool: a ch-bg table on the
Jumbo 7 pool only, and a round played through its control socket and rig."""


def ch_overrides(table_id, dsn):
    """sim.toml as a ch-bg table on the linked Jumbo 7 pool only (its own pool removed)."""
    return {
        "table": {"id": table_id, "profile": "ch-bg"},
        "pools": {
            "main": None,
            "jumbo7": {
                "dsn": dsn,
                "pool": "jumbo7",
                "heartbeat": 1,
                "operation_timeout": 2,
                "reconnect_max": 1,
            },
        },
    }


def linked_up(t):
    return "progressive-link" not in t.status()["conditions"]


def lifted(t, seats):
    """Wait until the table has sensed the stakes leave: a stake still sensed at the round's
    end is a stake left across the boundary, and the seat is excluded as stuck (a CONFIRM sent
    right after the lift, before its debounce settled, failed this test once in CI)."""
    t.wait_until(
        lambda: not any(t.status()["seats"][str(s)]["stake"] for s in seats), "stakes lifted"
    )


def play_round(t, seats):
    # as the dealer does: LOCK once the table is open. Just after a start the link conditions
    # may not be raised yet (linked_up reads true) and a LOCK then is ignored (lock-ignored):
    # the round never came and this failed once in `make test`
    t.wait_for_state("open")
    for seat in seats:
        t.io.place_stake(seat)
    t.wait_until(lambda: all(t.status()["seats"][str(s)]["stake"] for s in seats), "stakes sensed")
    t.call("round.lock")
    t.wait_for_state("verified")
    # the dealer collects the progressive stakes before the showdown (PRG-2), as the rig's
    # robot dealer does: a stake left on its sensor across the round is a stuck sensor
    for seat in seats:
        t.io.lift_stake(seat)
    lifted(t, seats)
    t.call("round.confirm")
    t.wait_until(lambda: t.status()["state"] in ("settled", "jackpot"), "settled")
    if t.status()["state"] == "jackpot":
        t.call("jackpot.ack", privileged=True, technician="test")
    else:
        t.call("round.confirm")
    t.wait_for_state("open")

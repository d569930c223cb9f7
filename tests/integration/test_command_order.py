"""A control command that hands the table an event answers once the table has taken it
(controller/table/runner.py, TableRunner.take): the caller's next request sees the event's
effect, however the daemon's event loop happens to order its callbacks. A dealer's tablet or a
rig script that sends ``round.confirm`` and then ``status`` must not read the state before it.
"""

from __future__ import annotations

import pytest

from controller.rig.table import SimTable

pytestmark = pytest.mark.integration

ROUNDS = 15


def test_the_request_after_a_dealer_command_sees_its_effect(sim_table: SimTable) -> None:
    t = sim_table
    seen: list[tuple[str, str]] = []
    for _ in range(ROUNDS):
        t.wait_for_state("open")
        t.call("round.seats", seats=[1, 2, 3, 4, 5, 6])
        declared = t.status()["seats"]
        seen.append(("seats", ",".join(s for s in declared if declared[s].get("in_play"))))
        t.call("round.lock")
        seen.append(("lock", t.status()["state"]))
        t.wait_for_state("verified")
        t.call("round.confirm")
        seen.append(("confirm", t.status()["state"]))
        t.wait_for_state("settled", "jackpot")
        if t.status()["state"] == "jackpot":
            t.call("jackpot.ack", privileged=True, technician="tech")
        else:
            t.call("round.confirm")
        seen.append(("next", t.status()["state"]))
    late = [
        (command, state)
        for command, state in seen
        if (command == "seats" and state != "1,2,3,4,5,6")
        or (command == "lock" and state == "open")
        or (command == "confirm" and state == "verified")
        or (command == "next" and state in ("settled", "jackpot"))
    ]
    assert not late, f"a reply came before the table took its event: {late}"

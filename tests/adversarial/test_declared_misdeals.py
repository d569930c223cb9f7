"""An insider dealer voiding rounds at will (rules audit, MD): ``round.misdeal`` takes only a
rule of the round's deal mode, and the initial deal's rules only before any player acted; a
refusal is one line to the dealer (``refused``: exit 1) and journaled (``misdeal-refused``),
an ID that is no misdeal rule a bad request (exit 2). Over the real control socket, commands,
machine and ledger (in process), on a table dealt by hand (uth-sk)."""

from __future__ import annotations

import pytest
from table_fixture import InProcessTable


@pytest.fixture
def table(tmp_path):
    t = InProcessTable(tmp_path).start()
    yield t
    t.close()


def misdeal(table, rule):
    return table.request("round.misdeal", rule=rule, reason="declared in a test")


def test_a_dealer_cannot_void_a_round_by_a_rule_that_does_not_apply(table):
    assert table.request("round.stake", seat=1, stakes={"ante": 100, "blind": 100})["ok"]
    assert table.request("round.lock")["ok"] and table.request("round.confirm")["ok"]
    machine = table.runner.machine
    assert machine.state.value == "verified"

    reply = misdeal(table, "MD-X1")
    assert reply["code"] == "bad-request"
    assert "MD-S1..MD-S3 or MD-M1..MD-M7" in reply["error"]

    reply = misdeal(table, "MD-S3")  # a shuffler rule at a table dealt by hand
    assert reply["code"] == "refused"
    assert reply["error"] == (
        "MD-S3 is a shuffler rule; by hand a card exposed during the deal is MD-M2"
    )

    assert table.request("round.decide", seat=1, action="4x")["ok"]  # the player acted
    reply = misdeal(table, "MD-M6")
    assert reply["code"] == "refused" and "\n" not in reply["error"]
    assert "MD-X1, not a misdeal" in reply["error"]
    assert machine.state.value == "verified"

    entries = table.request("events.tail", n=50)["result"]
    refused = [e["data"]["rule"] for e in entries if e["kind"] == "misdeal-refused"]
    assert refused == ["MD-S3", "MD-M6"]

    assert misdeal(table, "MD-M3")["ok"]  # a hand that cannot be corrected: any time
    table.wait_for(lambda: machine.state.value == "void", "the void")

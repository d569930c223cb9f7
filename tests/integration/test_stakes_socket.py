"""Stakes over the control socket of a real daemon: a wager the profile does not offer and a
stake under the minimum are refused naming the rule; a stake over the table maximum plays at
the maximum, its excess is recorded as returned, and the recorded round settles again the
same (BJ-1, UTH-2, the table's [limits])."""

from __future__ import annotations

import pytest

from controller.table.control.wire import ControlError

pytestmark = pytest.mark.integration

LIMITS = {"ante": {"min": 500, "max": 5000}, "trips": {"min": 100, "max": 1000}}


@pytest.fixture
def table(make_sim_table):
    return make_sim_table({"limits": LIMITS})


def test_unoffered_and_under_minimum_stakes_are_refused_with_the_rule(table):
    # a wager this game does not have is a malformed request (exit 2), with a suggestion
    with pytest.raises(ControlError, match=r"unknown wager 'jumbo7'.*\(UTH-2\)") as caught:
        table.call("round.stake", seat=1, stakes={"ante": 1000, "blind": 1000, "jumbo7": 100})
    assert caught.value.code == "bad-request"
    with pytest.raises(ControlError, match=r"'antee'.*did you mean ante\?") as caught:
        table.call("round.stake", seat=1, stakes={"antee": 1000})
    assert caught.value.code == "bad-request"
    with pytest.raises(ControlError, match="a wager name is at most 32 characters"):
        table.call("round.stake", seat=1, stakes={"x" * 33: 1000})
    with pytest.raises(ControlError, match=r"ante 400 is below the table minimum 500 \(UTH-2\)"):
        table.call("round.stake", seat=1, stakes={"ante": 400, "blind": 400})
    assert table.journal("wagers") == []  # nothing was entered


def test_an_over_maximum_ante_plays_at_the_maximum_and_the_excess_is_returned(table):
    table.call("round.stake", seat=2, stakes={"ante": 8000, "blind": 8000}, decision="fold")
    table.tap("lock")
    table.wait_for_state("verified")
    table.tap("confirm")
    table.wait_until(lambda: table.status()["state"] == "settled", "settled")
    last = table.call("round.last")
    ante = last["seats"][0]["wagers"]["ante"]
    assert (ante["stake"], ante["returned"], ante["paid"]) == (5000, 3000, 0)  # UTH-4 fold
    shown = table.call("round.show", privileged=True)
    assert shown["record"]["limits"] == LIMITS
    assert table.call("round.settle", privileged=True)["matches"] is True

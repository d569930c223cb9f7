"""The rig's dealer at LOCK (controller/rig/dealer.py ``Dealer.lock``): a table that closed on a
lost shuffler link just before LOCK (the cable pulled in the round before, noticed late on a
loaded machine: CI's soak saw it) took nothing, so the dealer waits for it to open and stakes
and locks again; any other answer is the round's. Through the tablet, a LOCK the table refuses
(status 1 since the table answers its refusals) is the table's status, as after a pin press."""

from __future__ import annotations

from typing import Any

from controller.rig.dealer import LOCK_ATTEMPTS, Dealer
from controller.rig.target import TableUnderTest
from controller.table.control.wire import ControlError

LINK_LOST = {"link": "shuffler.pty lost"}


def status(state: str, round_id: str | None = None, **conditions: str) -> dict[str, Any]:
    return {"state": state, "round": round_id, "conditions": conditions, "seats": {}}


class ScriptedTable(TableUnderTest):
    """What the table answers to LOCK, in turn; open between presses (the dealer's ready)."""

    def __init__(self, locks: list[dict[str, Any] | ControlError]) -> None:
        super().__init__()
        self.locks = locks
        self.now = status("open")
        self.pressed = 0

    def status(self) -> dict[str, Any]:
        return self.now

    def call(self, cmd: str, *, privileged: bool = False, **args: Any) -> Any:
        assert cmd == "round.lock"
        self.pressed += 1
        answer = self.locks.pop(0)
        if isinstance(answer, ControlError):
            raise answer
        self.now = answer
        return "pressed"

    def reopen(self) -> None:
        self.now = status("open")


def dealer_for(table: ScriptedTable) -> Dealer:
    dealer = Dealer(table, tablet=True, timeout=2.0)
    dealer.ready = table.reopen  # type: ignore[method-assign]
    return dealer


def test_a_table_closed_on_a_lost_link_at_lock_is_locked_again_once_open():
    table = ScriptedTable([status("closed", **LINK_LOST), status("locked", "T-000007")])
    dealer, staked = dealer_for(table), []
    assert dealer.lock(lambda: staked.append("stakes")) == status("locked", "T-000007")
    assert table.pressed == 2 and staked == ["stakes", "stakes"]


def test_the_dealer_gives_up_after_its_attempts_with_the_last_status():
    table = ScriptedTable([status("closed", **LINK_LOST)] * LOCK_ATTEMPTS)
    dealer, staked = dealer_for(table), []
    assert dealer.lock(lambda: staked.append("stakes"))["state"] == "closed"
    assert table.pressed == LOCK_ATTEMPTS


def test_a_table_closed_for_another_reason_is_the_rounds_answer():
    table = ScriptedTable([status("closed", ledger="disk full")])
    dealer = dealer_for(table)
    assert dealer.lock(lambda: None)["conditions"] == {"ledger": "disk full"}
    assert table.pressed == 1


def test_a_lock_refused_through_the_tablet_is_the_tables_status():
    table = ScriptedTable([ControlError("no seat in play", "refused")])
    dealer = dealer_for(table)
    assert dealer.lock(lambda: None) == status("open")

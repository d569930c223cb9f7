"""``round withdraw SEAT``: the stakes entered for a seat are taken back. Before, an entry could
only be replaced: stakes entered on the wrong seat, or by a robot dealer stopped before LOCK,
were played in the next round."""

from __future__ import annotations

from test_table_machine import BJ, Table, deal

from controller.table.events import (
    Button,
    Condition,
    ConditionChanged,
    DealerPressed,
    EnterWagers,
    LedgerAction,
    LedgerResult,
    StakeSensed,
    WithdrawWagers,
)
from controller.table.machine import TableState


def refusal(t: Table, event: WithdrawWagers) -> str:
    refused = t.send(event)[-1]
    assert refused.kind == "wagers-refused", refused
    return refused.reason


def test_an_entry_withdrawn_before_lock_is_not_played():
    t = Table()
    t.open()
    t.send(StakeSensed(1, True))
    t.send(EnterWagers(1, {"ante": 1000, "blind": 1000}))
    t.send(EnterWagers(3, {"ante": 500, "blind": 500}))
    t.send(WithdrawWagers(3))
    assert t.journal("wagers-withdrawn") == [{"seat": 3}]
    assert t.m.seat_stakes(3) == ({}, None)
    assert refusal(t, WithdrawWagers(3)) == "seat 3 has no stakes entered"
    t.send(DealerPressed(Button.LOCK))
    assert set(t.m.round.wagers) == {1}  # seat 3's entry never reached the round


def test_a_holdem_seats_table_wagers_go_until_the_showdown_its_progressive_stays():
    t = Table()
    t.open()
    t.send(StakeSensed(2, True))
    t.send(EnterWagers(2, {"ante": 1000, "blind": 1000}))
    t.lock_and_open_ledger()
    t.send(WithdrawWagers(2))
    assert t.m.seat_stakes(2) == ({"progressive": 100}, None)  # PRG-2: LOCK took it
    assert refusal(t, WithdrawWagers(5)).startswith("seat 5 is not in this round")
    deal(t, [("community", "2c 7d 9h Js Qs"), ("seat:2", "Kd Tc"), ("dealer", "Jd 3c")])
    out = t.send(DealerPressed(Button.CONFIRM))
    (seat,) = out[-1].result.seats
    assert set(seat.wagers) == {"progressive"}  # settled on what is entered: nothing else
    assert t.m.state == TableState.SHOWDOWN
    assert refusal(t, WithdrawWagers(2)) == "seat 2: stakes are closed: the round is over"


def test_a_blackjack_rounds_bets_stay_once_lock_took_them_bj_1():
    t = Table(BJ)
    t.send(ConditionChanged(Condition.STARTUP, False))
    t.send(EnterWagers(1, {"main": 1000}))
    t.send(EnterWagers(2, {"main": 1000}))
    t.send(WithdrawWagers(2))  # before LOCK: gone
    t.lock_and_open_ledger()
    reason = refusal(t, WithdrawWagers(1))
    assert "cannot be withdrawn (BJ-1)" in reason
    assert t.m.seat_stakes(1) == ({"main": 1000}, None)
    assert set(t.m.round.wagers) == {1}


def test_a_seat_whose_player_acted_is_not_withdrawn():
    """Its decision says a player acted, which the round's misdeal rules follow (MD-M2..M7
    only before, MD-X1 after): withdrawing it would undo that (found by review)."""
    t = Table()
    t.open()
    t.send(StakeSensed(2, True))
    t.send(EnterWagers(2, {"ante": 1000, "blind": 1000}, "4x"))
    t.lock_and_open_ledger()
    assert refusal(t, WithdrawWagers(2)).startswith("seat 2: its decision is entered")
    assert t.m.round.player_acted


def test_a_withdrawal_stays_withdrawn_when_the_round_fails_to_open():
    """LOCK pressed, the ledger's opening still under way: a failed opening gives the
    round's entries back for the next LOCK, but not one withdrawn meanwhile."""
    t = Table()
    t.open()
    t.send(StakeSensed(2, True))
    t.send(EnterWagers(2, {"ante": 1000, "blind": 1000}))
    t.send(EnterWagers(3, {"ante": 500, "blind": 500}))
    t.send(DealerPressed(Button.LOCK))
    assert t.m.state == TableState.LOCKED
    t.send(WithdrawWagers(3))
    t.send(LedgerResult(t.m.round.round_id, LedgerAction.OPEN, False, "disk full"))
    assert t.m.round is None and set(t.m.entered) == {2}

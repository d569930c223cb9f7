"""A blackjack shoe is shuffled again at its cut card (controller.table.shoe): before, nothing
shuffled it but an identify, and a table with no fault ran it dry in about 30 rounds, every
round after voided MD-S2 (the trilux-gr soak with faults 0: 22 of 60)."""

from __future__ import annotations

import pytest
from test_table_machine import BJ, GR, Table, shoe

from controller.table.events import (
    Button,
    Condition,
    ConditionChanged,
    DealerPressed,
    EnterWagers,
    LedgerAction,
    LedgerResult,
    SeatDecision,
    ShoeShuffled,
    ShuffleDeck,
)
from controller.table.machine import MachineSettings, TableMachine, TableState
from controller.table.shoe import ShoeCount

PLAYED = ("Ts", "9h", "7c", "8d", "5s", "2c", "Kd")  # seat 1 stands on 18, seat 2 hits to 16


def open_shoe_table(cards: int) -> Table:
    t = Table(BJ)
    t.send(ConditionChanged(Condition.STARTUP, False))
    t.send(ShoeShuffled(cards))
    assert t.m.state == TableState.OPEN
    return t


def start_round(t: Table) -> str:
    t.send(EnterWagers(1, {"main": 1000}))
    t.send(EnterWagers(2, {"main": 1000}))
    t.lock_and_open_ledger()
    return t.m.round.round_id


def play_round_out(t: Table) -> None:
    """Seven cards from the shoe; the round settled, then the dealer's CONFIRM."""
    rid = start_round(t)
    for card in PLAYED[:5]:
        t.send(shoe(card))
    t.send(SeatDecision(1, "stand"))
    t.send(SeatDecision(2, "hit"))
    t.send(shoe(PLAYED[5]))
    t.send(SeatDecision(2, "stand"))
    t.send(shoe(PLAYED[6]))
    t.send(LedgerResult(rid, LedgerAction.SETTLE, True))
    assert t.m.state == TableState.SETTLED
    t.send(DealerPressed(Button.CONFIRM))


def test_a_round_that_ends_past_the_cut_card_closes_the_table_until_the_shoe_is_shuffled():
    t = open_shoe_table(12)  # cut card at 75%: 3 cards left
    play_round_out(t)
    assert t.m.state == TableState.OPEN and not t.of(ShuffleDeck)
    assert t.m.view()["shoe"] == {"left": 5, "size": 12, "cut": 3}
    rid = start_round(t)
    for card in ("Ts", "9h", "7c", "8d", "5s", "4c"):  # the sixth when none is due: MD-S1
        t.send(shoe(card))
    assert t.m.state == TableState.VOID
    t.send(LedgerResult(rid, LedgerAction.VOID, True))
    t.send(ConditionChanged(Condition.DECK, False))  # the deck counted again after MD-S1
    t.send(DealerPressed(Button.CONFIRM))
    assert t.m.state == TableState.CLOSED
    assert len(t.of(ShuffleDeck)) == 1  # the cards of a voided round left the shoe too
    assert t.m.conditions[Condition.SHOE] == (
        "the cut card came (0 of 12 cards left): shuffling the shoe"
    )
    refused = t.send(DealerPressed(Button.LOCK))
    assert t.m.round is None and refused[-1].kind == "lock-ignored"
    t.send(ShoeShuffled(12))
    assert t.m.state == TableState.OPEN and Condition.SHOE not in t.m.conditions
    assert t.m.view()["shoe"] == {"left": 12, "size": 12, "cut": 3}
    assert [j["cards"] for j in t.journal("shoe-shuffled")] == [12, 12]


def test_a_round_that_ends_before_the_cut_card_asks_no_shuffle():
    t = open_shoe_table(312)
    for _ in range(33):  # 231 cards: 81 left, the cut at 78
        play_round_out(t)
    assert t.m.state == TableState.OPEN and not t.of(ShuffleDeck)
    play_round_out(t)  # 74 left
    assert t.of(ShuffleDeck) == [ShuffleDeck()] and t.m.state == TableState.CLOSED


@pytest.mark.parametrize(("penetration", "rounds_before_cut"), [(50, 2), (90, 5)])
def test_the_penetration_is_the_tables(penetration, rounds_before_cut):
    t = Table(BJ)
    settings = MachineSettings("T1", packet_timeout=5, shoe_penetration=penetration)
    t.m = TableMachine(BJ, settings)
    t.send(ConditionChanged(Condition.STARTUP, False))
    t.send(ShoeShuffled(40))  # seven cards a round
    for _ in range(rounds_before_cut):
        play_round_out(t)
        assert not t.of(ShuffleDeck)
    play_round_out(t)
    assert len(t.of(ShuffleDeck)) == 1


def test_a_shoe_never_shuffled_asks_nothing_and_a_holdem_table_has_no_shoe():
    t = Table(BJ)
    t.send(ConditionChanged(Condition.STARTUP, False))
    assert t.m.view()["shoe"] is None
    play_round_out(t)
    assert not t.of(ShuffleDeck) and t.m.state == TableState.OPEN
    holdem = Table(GR)
    holdem.open()
    holdem.send(ShoeShuffled(52))
    assert "shoe" not in holdem.m.view() and Condition.SHOE not in holdem.m.conditions
    assert holdem.journal("shoe-shuffled") == [{"cards": 52, "ignored": "no shoe"}]


def test_the_count_never_goes_below_zero_and_knows_nothing_before_a_shuffle():
    count = ShoeCount(75)
    count.dealt(5)
    assert count.left is None and not count.past_cut() and count.to_json() is None
    count.shuffled(8)
    count.dealt(20)
    assert count.left == 0 and count.past_cut()

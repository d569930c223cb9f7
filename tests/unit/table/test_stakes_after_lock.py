"""What the dealer's tablet may still enter once LOCK has taken the round's stakes (the table
machine decides, the control socket answers with its refusal):

- a progressive (pool) stake is placed before the round starts (PRG-2; Jumbo 7, CH-2/CH-8):
  the round's pool stakes are exactly those LOCK took and the ledger opened with. One entered
  after LOCK that LOCK did not take, or that changes the one it took (the ledger never lets a
  pool stake taken at the opening change, where a table wager may be raised), is refused;
- a blackjack bet cannot be placed or raised after the first card, except double and split
  (BJ-1, TRX-1): the shoe round took its bets at LOCK; an insurance comes with the dealer's ace
  (BJ-8, ``round decide SEAT insurance``), never as a stake entry;
- a seat that is not in the round (not dealt) takes no stake and no decision;
- at the showdown the round is being settled: nothing more is entered.

Hold'em table wagers (Ante, Blind, Trips, Play...) may still be entered until the showdown by
design: the settlement records them. Each refusal is journaled (``wagers-refused``) and the
machine says so (:class:`Refused`) for whoever handed the event in; nothing of it reaches the
round record or the settlement."""

from __future__ import annotations

import pytest

from controller.engine import games
from controller.engine.cards import parse_cards
from controller.engine.deal.validator import Packet
from controller.engine.profiles import load_profile
from controller.table.events import (
    AppendJournal,
    Button,
    Condition,
    ConditionChanged,
    DealerPressed,
    EnterWagers,
    LedgerAction,
    LedgerResult,
    OpenRound,
    PacketDelivered,
    PoolAmount,
    Refused,
    SeatDecision,
    SettleRound,
    StakeSensed,
)
from controller.table.machine import MachineSettings, TableMachine, TableState

GR = load_profile("uth-gr")
CH = load_profile("ch-bg")
BJ = load_profile("trilux-gr")


class Table:
    def __init__(self, profile=GR):
        settings = MachineSettings("T1", packet_timeout=5, settled_display=10)
        self.m = TableMachine(profile, settings)
        self.now = 0.0
        self.effects = []
        self.send(ConditionChanged(Condition.STARTUP, False))
        if profile.progressive:
            self.send(PoolAmount(profile.progressive.bet, 1_000_000, 500_000))

    def send(self, event):
        self.now += 0.1
        out = self.m.handle(event, self.now)
        self.effects += out
        return out

    def journal(self, kind):
        return [e.data for e in self.effects if isinstance(e, AppendJournal) and e.kind == kind]

    def lock(self):
        out = self.send(DealerPressed(Button.LOCK))
        opened = [e for e in out if isinstance(e, OpenRound)]
        self.send(LedgerResult(self.m.round.round_id, LedgerAction.OPEN, True))
        assert self.m.state == TableState.DEALING
        return opened[0]

    def deal(self, packets):
        for dest, cards in packets:
            cs = tuple(parse_cards(cards, unique=False))
            self.send(PacketDelivered(Packet(dest, cs, (False,) * len(cs))))

    def confirm(self):
        out = self.send(DealerPressed(Button.CONFIRM))
        (settle,) = [e for e in out if isinstance(e, SettleRound)]
        return settle.result


UTH_DEAL = [("community", "2c 7d 9h Js Qs"), ("seat:1", "Kd Tc"), ("dealer", "Jd 3c")]


def refused(out):
    """The machine's refusal among its effects (None: taken)."""
    found = [e for e in out if isinstance(e, Refused)]
    return found[0] if found else None


def test_a_progressive_entered_after_lock_that_lock_did_not_take_is_refused_prg_2():
    t = Table()
    t.send(EnterWagers(1, {"ante": 1000}))
    opened = t.lock()
    assert opened.stakes == {}  # no progressive stake sensed at LOCK
    out = t.send(EnterWagers(1, {"ante": 1000, "blind": 1000, "trips": 500, "progressive": 100}))
    why = refused(out)
    assert why is not None and why.rule == "PRG-2" and "PRG-2" in why.reason
    assert "seat 1" in why.reason
    assert t.journal("wagers-refused")[-1]["rule"] == "PRG-2"
    assert not t.journal("wagers")[1:]  # only the entry before LOCK was taken
    assert t.m.round.wagers[1] == ({"ante": 1000}, None)  # the whole entry refused
    # the table wagers may still be entered without it (hold'em, by design)
    out = t.send(EnterWagers(1, {"ante": 1000, "blind": 1000, "trips": 500}, "4x"))
    assert refused(out) is None
    t.deal(UTH_DEAL)
    result = t.confirm()
    (seat,) = result.seats
    assert "progressive" not in seat.wagers
    assert "progressive" not in t.m.round.record["seats"][0]["stakes"]
    assert sum(w.stake for w in seat.wagers.values()) == 1000 + 1000 + 500 + 4000


def test_a_progressive_taken_at_lock_is_restated_but_never_changed_prg_2():
    t = Table()
    t.send(StakeSensed(1, True))
    t.send(EnterWagers(1, {"ante": 1000, "blind": 1000}))
    assert t.lock().stakes == {1: 100}
    for changed in (200, 0):  # raised, or taken back: neither (PRG-2)
        out = t.send(EnterWagers(1, {"ante": 1000, "blind": 1000, "progressive": changed}))
        why = refused(out)
        assert why is not None and why.rule == "PRG-2", changed
        assert "100" in why.reason
    # the stake LOCK took, restated with the others, is no change
    out = t.send(EnterWagers(1, {"ante": 1000, "blind": 1000, "progressive": 100}, "4x"))
    assert refused(out) is None
    t.deal(UTH_DEAL)
    seat = t.confirm().seats[0]
    assert seat.wagers["progressive"].stake == 100 and seat.wagers["play"].stake == 4000


def test_a_progressive_entered_before_lock_that_lock_does_not_take_stays_out_of_the_round():
    """The sensors say which seats have a progressive stake at LOCK; an entered one LOCK does
    not take is journaled (stake-not-taken, PRG-2) and is never settled."""
    t = Table()
    t.send(EnterWagers(1, {"ante": 1000, "blind": 1000, "progressive": 100}, "4x"))
    assert t.lock().stakes == {}
    (note,) = t.journal("stake-not-taken")
    assert note == {
        "seat": 1,
        "wager": "progressive",
        "entered": 100,
        "taken": 0,
        "rule": "PRG-2",
    }
    # and the dealer who pressed LOCK is told, as money, why (issue 17: round lock said only
    # "pressed")
    assert t.m.lock_notes() == [
        "seat 1: progressive EUR 1.00 not taken (no stake on the seat's sensor at LOCK: the"
        " sensor places it) (PRG-2)"
    ]
    t.deal(UTH_DEAL)
    seat = t.confirm().seats[0]
    assert "progressive" not in seat.wagers


def test_a_jumbo7_entered_after_lock_is_refused_prg_2():
    t = Table(CH)
    t.send(StakeSensed(1, True))
    t.send(EnterWagers(1, {"ante": 1000}))
    t.send(EnterWagers(2, {"ante": 1000}))
    assert t.lock().stakes == {1: 100}
    for seat in (1, 2):  # raised; never taken
        why = refused(t.send(EnterWagers(seat, {"ante": 1000, "jumbo7": 300})))
        assert why is not None and why.rule == "PRG-2", seat
    assert refused(t.send(EnterWagers(2, {"ante": 1000, "bonus": 500}, "play"))) is None


@pytest.mark.parametrize(
    ("stakes", "rule"),
    [
        ({"main": 2000}, "BJ-1"),  # raised
        ({"main": 1000, "trilux": 100}, "TRX-1"),  # a Trilux placed after the deal
    ],
)
def test_a_blackjack_bet_cannot_be_placed_or_raised_after_lock(stakes, rule):
    t = Table(BJ)
    t.send(EnterWagers(1, {"main": 1000}))
    t.lock()
    why = refused(t.send(EnterWagers(1, stakes)))
    assert why is not None and why.rule == rule and rule in why.reason
    assert "double" in why.reason  # what is still allowed, and how
    assert t.m.round.wagers[1] == ({"main": 1000}, None)
    assert refused(t.send(EnterWagers(1, {"main": 1000}))) is None  # restated: no change


def test_a_blackjack_insurance_is_never_a_stake_entry_bj_8():
    t = Table(BJ)
    why = refused(t.send(EnterWagers(1, {"main": 1000, "insurance": 500})))
    assert why is not None and why.rule == "BJ-8" and "round decide" in why.reason
    assert 1 not in t.m.entered


def test_a_seat_not_in_the_round_takes_no_stake_and_no_decision():
    t = Table()
    t.send(EnterWagers(1, {"ante": 1000, "blind": 1000}, "4x"))
    t.lock()
    for event in (
        EnterWagers(2, {"ante": 1000, "blind": 1000, "progressive": 100}),
        EnterWagers(2, {}, "4x"),  # round decide 2 4x
    ):
        why = refused(t.send(event))
        assert why is not None and "seat 2 is not in this round" in why.reason
    assert set(t.m.round.wagers) == {1}
    assert [e["seat"] for e in t.journal("wagers")] == [1]
    t.deal(UTH_DEAL)
    assert [s.seat for s in t.confirm().seats] == [1]


def test_a_blackjack_seat_not_in_the_round_cannot_decide():
    t = Table(BJ)
    t.send(EnterWagers(1, {"main": 1000}))
    t.lock()
    for card in ("Ts", "7c", "8d"):  # BJ-2: seat 1, dealer, seat 1
        t.send(PacketDelivered(Packet("shoe", tuple(parse_cards([card])), (True,))))
    assert t.m.state == TableState.VERIFIED
    why = refused(t.send(SeatDecision(3, "stand")))
    assert why is not None and "seat 3 is not in this round" in why.reason
    why = refused(t.send(EnterWagers(3, {"main": 1000})))
    assert why is not None and "seat 3 is not in this round" in why.reason


def test_nothing_is_entered_once_the_round_is_being_settled():
    t = Table()
    t.send(EnterWagers(1, {"ante": 1000, "blind": 1000}, "4x"))
    t.lock()
    t.deal(UTH_DEAL)
    settled = t.confirm()
    assert t.m.state == TableState.SHOWDOWN
    why = refused(t.send(EnterWagers(1, {"ante": 1000, "blind": 1000, "trips": 500})))
    assert why is not None and "showdown" in why.reason
    assert games.settle(GR, t.m.round.record) == settled  # the record is still the settled one


def test_entries_before_lock_and_table_wagers_after_it_are_taken():
    t = Table()
    assert refused(t.send(EnterWagers(1, {"ante": 1000, "blind": 1000}))) is None
    t.lock()
    assert refused(t.send(EnterWagers(1, {"ante": 1000, "blind": 1000, "trips": 500}))) is None
    assert refused(t.send(EnterWagers(1, {}, "4x"))) is None
    assert t.m.round.wagers[1] == ({"ante": 1000, "blind": 1000, "trips": 500}, "4x")


def test_the_core_hands_the_refusal_to_the_shell_with_its_journal_entry():
    """TableLogic: the refusal is an output of its own (the control socket answers with it),
    after the transaction that journals it; nothing goes to the shuffler."""
    import tomllib
    from pathlib import Path

    from controller.table.core import TableLogic
    from controller.table.events import LedgerWrite, LedgerWritten, ToShuffler
    from controller.table.tableconfig import parse_table_config

    root = Path(__file__).resolve().parents[3]
    sim = tomllib.loads((root / "config" / "sim.toml").read_text())
    logic = TableLogic(parse_table_config(sim, "sim.toml"))
    logic.handle(ConditionChanged(Condition.STARTUP, False), 1.0)
    logic.handle(EnterWagers(1, {"ante": 1000, "blind": 1000}), 1.1)
    out = logic.handle(DealerPressed(Button.LOCK), 1.2)
    (opening,) = [o for o in out if isinstance(o, LedgerWrite)]
    logic.handle(LedgerWritten(opening.money, True), 1.3)
    out = logic.handle(EnterWagers(2, {"ante": 1000, "blind": 1000}), 1.4)
    assert [type(o) for o in out] == [LedgerWrite, Refused]
    assert [e.kind for e in out[0].items] == ["wagers-refused"]
    assert out[1].text() == (
        "seat 2 is not in this round (seats 1): a seat joins before LOCK (UTH-2)"
    )
    assert not [o for o in out if isinstance(o, ToShuffler)]

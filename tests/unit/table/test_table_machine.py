"""The round state machine, scripted on a fake clock: every path of a hold'em round."""

from dataclasses import replace

import pytest

from controller.engine import games
from controller.engine.cards import card_name, parse_cards
from controller.engine.deal.validator import Packet
from controller.engine.profiles import load_profile
from controller.engine.wagers import Limit
from controller.errors import RoundError
from controller.table.events import (
    AppendJournal,
    Button,
    CardsExposed,
    CheckDeck,
    Condition,
    ConditionChanged,
    DealerPressed,
    DeclareMisdeal,
    DeclareSeats,
    EnterCards,
    EnterWagers,
    JackpotAck,
    LedgerAction,
    LedgerResult,
    OpenRound,
    PacketDelivered,
    PoolAmount,
    Refused,
    ReinsertCards,
    RequestPacket,
    RoundsRecorded,
    SeatDecision,
    SeatHealth,
    SettleRound,
    ShuffleDeck,
    ShufflerFault,
    StakeSensed,
    Tick,
    VoidRound,
)
from controller.table.machine import MachineSettings, TableMachine, TableState

GR = load_profile("uth-gr")


def packet(dest, cards, up=()):
    cs = tuple(parse_cards(cards, unique=False))
    flags = tuple(i in up for i in range(len(cs)))
    return PacketDelivered(Packet(dest, cs, flags))


class Table:
    """A machine plus a record of everything it asked for."""

    def __init__(self, profile=GR, *, linked=False):
        settings = MachineSettings("T1", packet_timeout=5, settled_display=10)
        self.m = TableMachine(profile, settings, linked=linked)
        self.now = 0.0
        self.effects = []

    def send(self, event, dt=0.1):
        self.now += dt
        out = self.m.handle(event, self.now)
        self.effects += out
        return out

    def of(self, kind):
        return [e for e in self.effects if isinstance(e, kind)]

    def journal(self, kind):
        return [e.data for e in self.of(AppendJournal) if e.kind == kind]

    def open(self, pool=1_000_000):
        self.send(PoolAmount("progressive", pool, 500_000))
        self.send(ConditionChanged(Condition.STARTUP, False))
        assert self.m.state == TableState.OPEN

    def first_round_id(self):
        """Open the table, stake seat 1 and press LOCK: the round ID the machine chose."""
        self.open()
        self.send(StakeSensed(1, True))
        self.send(DealerPressed(Button.LOCK))
        return self.m.round.round_id

    def lock_and_open_ledger(self):
        self.send(DealerPressed(Button.LOCK))
        rid = self.m.round.round_id
        return self.send(LedgerResult(rid, LedgerAction.OPEN, True))


ROYAL_DEAL = [
    ("community", "As Ks Qs Js 4c"),
    ("seat:1", "Ts 5h"),
    ("seat:3", "9c 9d"),
    ("dealer", "2d 3d"),
]


def deal(t, packets=ROYAL_DEAL):
    verdicts = []
    for dest, cards in packets:
        verdicts.append(t.send(packet(dest, cards)))
    return verdicts


def test_starts_closed_and_opens_when_conditions_clear():
    t = Table()
    assert t.m.state == TableState.CLOSED
    t.send(ConditionChanged(Condition.LINK, True, "no shuffler"))
    t.send(ConditionChanged(Condition.STARTUP, False))
    assert t.m.state == TableState.CLOSED
    t.send(ConditionChanged(Condition.LINK, False))
    assert t.m.state == TableState.OPEN


def test_full_round_with_royal_jackpot_and_envy():
    t = Table()
    t.open()
    t.send(StakeSensed(1, True))
    t.send(StakeSensed(3, True))
    out = t.send(DealerPressed(Button.LOCK))
    assert t.m.state == TableState.LOCKED
    assert out[-1] == OpenRound("T1-000001", "progressive", {1: 100, 3: 100})  # PRG-1
    out = t.send(LedgerResult("T1-000001", LedgerAction.OPEN, True))
    assert t.m.state == TableState.DEALING
    assert out[-2:] == [ShuffleDeck(), RequestPacket("community", 5)]  # UTH-11: community first
    requests = []
    for dest, cards in ROYAL_DEAL:
        requests += [e for e in t.send(packet(dest, cards)) if isinstance(e, RequestPacket)]
    assert requests == [
        RequestPacket("seat:1", 2),
        RequestPacket("seat:3", 2),
        RequestPacket("dealer", 2),
    ]
    assert t.m.state == TableState.VERIFIED  # green lamp
    out = t.send(DealerPressed(Button.CONFIRM))
    assert t.m.state == TableState.SHOWDOWN
    settle = out[-1]
    assert isinstance(settle, SettleRound)
    seats = {s.seat: s for s in settle.result.seats}
    assert seats[1].wagers["progressive"].paid == 1_000_000  # PRG-3 100% of the pool
    # the recorded round settles again to the same result (surveillance, docs/settle.md)
    assert games.settle(GR, t.m.round.record) == settle.result
    assert seats[3].wagers["envy"].paid == 10_000  # PRG-4
    t.send(LedgerResult("T1-000001", LedgerAction.SETTLE, True))
    assert t.m.state == TableState.JACKPOT  # locked until a technician acknowledges
    t.send(DealerPressed(Button.CONFIRM))
    assert t.m.state == TableState.JACKPOT
    t.send(JackpotAck("tech-7"))
    assert t.m.state == TableState.OPEN
    assert t.journal("jackpot-acknowledged") == [{"technician": "tech-7"}]


def test_a_live_pool_below_its_seed_is_settled_as_it_stands():
    # `croupier meters correct POOL current V` may set the pool below its seed (so may a seed
    # raised by configuration, or a void after another table's reset of a linked pool): the
    # table settles its live pool as the books hold it, never refusing its own round (a round
    # file with that pool is refused, PRG-5, docs/settle.md)
    t = Table()
    t.open(pool=400_000)  # seed 500,000
    t.send(StakeSensed(1, True))
    t.send(StakeSensed(3, True))
    t.lock_and_open_ledger()
    deal(t)
    out = t.send(DealerPressed(Button.CONFIRM))
    assert t.m.state == TableState.SHOWDOWN and not t.of(Refused)
    settle = out[-1]
    seats = {s.seat: s for s in settle.result.seats}
    assert seats[1].wagers["progressive"].paid == 400_000  # PRG-3 100% of the pool
    assert settle.result.pools["progressive"]["after"] == 500_000  # PRG-5
    record = t.m.round.record
    assert games.settle(GR, record, table_record=True) == settle.result
    with pytest.raises(RoundError) as info:
        games.settle(GR, record)  # the same pool in a round file from outside
    assert info.value.rule == "PRG-5"


def test_round_without_jackpot_reopens_on_confirm_or_after_display_time():
    t = Table()
    t.open()
    t.send(StakeSensed(2, True))
    t.lock_and_open_ledger()
    deal(t, [("community", "2c 7d 9h Js Qs"), ("seat:2", "Kd Tc"), ("dealer", "Jd 3c")])
    t.send(DealerPressed(Button.CONFIRM))
    t.send(LedgerResult("T1-000001", LedgerAction.SETTLE, True))
    assert t.m.state == TableState.SETTLED
    assert t.m.next_deadline() == pytest.approx(t.now + 10)
    t.send(Tick(), dt=9.9)
    assert t.m.state == TableState.SETTLED
    t.send(Tick(), dt=0.2)
    assert t.m.state == TableState.OPEN


def test_wrong_count_voids_md_s1_and_takes_the_deck_out_of_play():
    t = Table()
    t.open()
    t.send(StakeSensed(1, True))
    t.lock_and_open_ledger()
    out = deal(t, [("community", "2c 7d 9h Js Qs"), ("seat:1", "Kd Tc 5s")])
    voids = t.of(VoidRound)
    assert voids == [
        VoidRound(
            "T1-000001",
            "MD-S1",
            "seat:1 received 3 card(s), expected 2",
            {1: {"progressive": 100}},  # every stake of the round is returned (MD)
        )
    ]
    assert t.m.state == TableState.VOID
    assert "deck" in t.m.conditions
    assert not any(isinstance(e, RequestPacket) for e in out[-1])
    t.send(LedgerResult("T1-000001", LedgerAction.VOID, True))
    out = t.send(DealerPressed(Button.CONFIRM))  # the dealer confirms a replacement deck
    assert CheckDeck() in out
    assert t.m.state == TableState.CLOSED  # until the shuffler has counted the new deck
    t.send(ConditionChanged(Condition.DECK, False))
    assert t.m.state == TableState.OPEN
    assert t.journal("deck-replaced")


def test_two_exposed_cards_void_md_s3():
    t = Table()
    t.open()
    t.send(DeclareSeats((1,)))
    t.lock_and_open_ledger()
    t.send(packet("community", "2c 7d 9h Js Qs", up=(0,)))
    t.send(packet("seat:1", "Kd Tc", up=(1,)))
    assert t.of(VoidRound)[0].rule == "MD-S3"
    assert t.journal("exposure")  # the first exposed card was journaled


@pytest.mark.parametrize("how", ["fault", "link", "timeout"])
def test_shuffler_malfunction_voids_md_s2(how):
    t = Table()
    t.open()
    t.send(StakeSensed(1, True))
    t.lock_and_open_ledger()
    t.send(packet("community", "2c 7d 9h Js Qs"))
    if how == "fault":
        t.send(ShufflerFault("jam at the gripper"))
    elif how == "link":
        t.send(ConditionChanged(Condition.LINK, True, "serial port vanished"))
    else:
        t.send(Tick(), dt=4.9)
        assert t.m.state == TableState.DEALING
        t.send(Tick(), dt=0.2)
    assert t.m.state == TableState.VOID
    assert t.of(VoidRound)[0].rule == "MD-S2"
    if how == "link":  # after the void the table stays closed until the link is back
        t.send(LedgerResult("T1-000001", LedgerAction.VOID, True))
        t.send(DealerPressed(Button.CONFIRM))
        assert t.m.state == TableState.CLOSED


def test_lock_twice_and_deal_without_lock():
    t = Table()
    t.open()
    t.send(packet("community", "2c 7d 9h Js Qs"))
    assert t.journal("packet-unexpected")[0]["rule"] == "MD-S1"
    assert t.m.state == TableState.OPEN
    t.send(DealerPressed(Button.LOCK))
    assert t.journal("lock-ignored")[0]["reason"].startswith("no seat in play")
    assert t.of(Refused)[0].text().startswith("no seat in play")
    t.send(StakeSensed(1, True))
    t.send(DealerPressed(Button.LOCK))
    t.send(DealerPressed(Button.LOCK))
    assert len(t.of(OpenRound)) == 1
    assert t.journal("lock-ignored")[1]["state"] == "locked"


def test_ledger_failure_at_lock_takes_nothing_and_closes():
    t = Table()
    t.open()
    t.send(StakeSensed(1, True))
    t.send(DealerPressed(Button.LOCK))
    t.send(LedgerResult("T1-000001", LedgerAction.OPEN, False, "database or disk is full"))
    assert t.m.state == TableState.CLOSED and t.m.round is None
    assert t.m.conditions["ledger"] == "database or disk is full"
    t.send(ConditionChanged(Condition.LEDGER, False))
    assert t.m.state == TableState.OPEN


def test_failed_settlement_is_retried_when_the_ledger_is_back():
    t = Table()
    t.open()
    t.send(StakeSensed(1, True))
    t.lock_and_open_ledger()
    deal(t, [("community", "2c 7d 9h Js Qs"), ("seat:1", "Kd Tc"), ("dealer", "Jd 3c")])
    t.send(DealerPressed(Button.CONFIRM))
    t.send(LedgerResult("T1-000001", LedgerAction.SETTLE, False, "disk I/O error"))
    assert t.m.state == TableState.SHOWDOWN
    out = t.send(ConditionChanged(Condition.LEDGER, False))
    assert any(isinstance(e, SettleRound) for e in out)


def test_excluded_seat_takes_no_progressive_stake():
    t = Table()
    t.open()
    t.send(StakeSensed(1, True))
    t.send(StakeSensed(2, True))
    t.send(SeatHealth(2, True, "sensor chatter"))
    out = t.send(DealerPressed(Button.LOCK))
    assert out[-1].stakes == {1: 100}
    assert t.m.round.seats == (1, 2)  # seat 2 still plays, without the progressive


def test_stake_change_after_lock_is_journaled_and_ignored():
    t = Table()
    t.open()
    t.send(StakeSensed(1, True))
    t.lock_and_open_ledger()
    t.send(StakeSensed(1, False))
    assert "frozen" in t.journal("stake")[-1]["note"]
    assert t.m.round.progressive == {1: 100}


def test_full_settlement_with_entered_wagers():
    t = Table()
    t.open()
    t.send(StakeSensed(2, True))
    t.send(EnterWagers(2, {"ante": 1000, "blind": 1000}, "4x"))
    t.lock_and_open_ledger()
    deal(t, [("community", "2c 7d 9h Js Qs"), ("seat:2", "Kd Tc"), ("dealer", "Jd 3c")])
    out = t.send(DealerPressed(Button.CONFIRM))
    seat = out[-1].result.seats[0]
    assert seat.wagers["play"].paid == 8000  # UTH-6
    assert seat.wagers["blind"].paid == 2000  # UTH-8 straight
    assert "progressive" in seat.wagers


def test_unrecognised_cards_wait_at_showdown():
    t = Table()
    t.open()
    t.send(DeclareSeats((1,)))
    t.lock_and_open_ledger()
    for dest, n in [("community", 5), ("seat:1", 2), ("dealer", 2)]:
        t.send(PacketDelivered(Packet(dest, (None,) * n, (False,) * n)))
    assert t.m.state == TableState.VERIFIED
    t.send(DealerPressed(Button.CONFIRM))
    assert t.m.state == TableState.VERIFIED
    assert t.journal("showdown-waiting")


def test_view_carries_no_card_identities():
    t = Table()
    t.open()
    t.send(StakeSensed(1, True))
    t.lock_and_open_ledger()
    deal(t, [("community", "2c 7d 9h Js Qs"), ("seat:1", "Kd Kd")])  # deck error
    view = t.m.view()
    assert view["verdict"]["rule"] == "MD-S2"
    text = repr(view)
    assert "Kd" not in text and "Js" not in text


# --- blackjack with a shoe (card by card) ----------------------------------------------------

BJ = load_profile("trilux-gr")


def shoe(card):
    return packet("shoe", card, up=(0,))


def blackjack_table():
    t = locked_blackjack_table(seat_1={"main": 1000, "trilux": 100})
    t.send(LedgerResult(t.m.round.round_id, LedgerAction.OPEN, True))
    assert t.m.state == TableState.DEALING
    assert not t.of(RequestPacket)  # the shoe reports cards; nobody requests them
    return t


def locked_blackjack_table(seat_1=None):
    """Seats 1 (``seat_1``'s bets, else a main bet) and 2 in, LOCK pressed; the ledger has
    not answered yet."""
    t = Table(BJ)
    t.send(ConditionChanged(Condition.STARTUP, False))
    t.send(EnterWagers(1, seat_1 or {"main": 1000}))
    t.send(EnterWagers(2, {"main": 1000}))
    t.send(DealerPressed(Button.LOCK))
    assert t.m.state == TableState.LOCKED
    return t


def test_a_card_drawn_before_the_ledger_answered_lock_is_the_rounds_first():
    """The audit's D6: the card was journaled MD-S1 and dropped, so every later card went to
    the hand after its own (the engine's seat 1 held seat 2's cards) and play went on with
    hands that were not the table's."""
    t = locked_blackjack_table()
    t.send(shoe("Ts"))  # seat 1's first card, drawn while the opening is committed
    assert t.journal("packet-held") == [
        {"destination": "shoe", "count": 1, "round": "T1-000001", "until": "the round opens"}
    ]
    t.send(LedgerResult(t.m.round.round_id, LedgerAction.OPEN, True))
    for card in ("9h", "7c", "8d", "5s"):  # seat 2, dealer, seat 1, seat 2
        t.send(shoe(card))
    assert t.m.state == TableState.VERIFIED and not t.of(VoidRound)
    hands = {s.seat: [card_name(c) for c in s.hands[0].cards] for s in t.m.round.deal.game.seats}
    assert hands == {1: ["Ts", "8d"], 2: ["9h", "5s"]}
    t.send(SeatDecision(1, "stand"))  # 18: refused before, as it was the engine's 14
    assert not t.journal("decision-refused")


def test_held_cards_after_one_that_ended_the_round_are_journaled_md_s1():
    t = locked_blackjack_table()
    for card in ("Ts", "9h", "7c", "8d", "5s", "2c", "3c"):  # two more than the deal's five
        t.send(shoe(card))
    t.send(LedgerResult(t.m.round.round_id, LedgerAction.OPEN, True))
    assert t.of(VoidRound)[0].rule == "MD-S1"  # the 6th: a card when none is due
    (left,) = t.journal("packet-unexpected")  # the 7th, which no round took
    assert left == {
        "round": "T1-000001",
        "state": "void",
        "count": 1,
        "rule": "MD-S1",
        "why": "held for a round that ended",
    }


def test_a_shoe_fault_after_a_held_card_voids_the_round_once_it_opens_md_s2():
    """The review: a misfeed while the opening was pending, after the round's first card
    left the shoe, was only journaled and the round played on; in DEALING it is MD-S2."""
    t = locked_blackjack_table()
    t.send(shoe("Ts"))
    t.send(ShufflerFault("misfeed"))
    assert t.m.state == TableState.LOCKED and not t.of(VoidRound)
    t.send(LedgerResult(t.m.round.round_id, LedgerAction.OPEN, True))
    (void,) = t.of(VoidRound)
    assert void.rule == "MD-S2" and "misfeed" in t.m.round.verdict.reason


def test_a_shoe_fault_before_any_card_left_it_is_journaled_only():
    t = locked_blackjack_table()
    t.send(ShufflerFault("misfeed"))
    t.send(LedgerResult(t.m.round.round_id, LedgerAction.OPEN, True))
    assert t.m.state == TableState.DEALING and not t.of(VoidRound)


def test_cards_held_for_a_round_that_never_opened_are_journaled_md_s1():
    t = locked_blackjack_table()
    t.send(shoe("Ts"))
    t.send(LedgerResult(t.m.round.round_id, LedgerAction.OPEN, False, "disk full"))
    assert t.m.round is None
    (dropped,) = t.journal("packet-unexpected")
    assert dropped["count"] == 1 and dropped["rule"] == "MD-S1"
    assert dropped["why"] == "drawn for a round that never opened"


def test_blackjack_round_from_the_shoe():
    t = blackjack_table()
    for card in ("Ts", "9h", "7c", "8d"):  # BJ-2: seat 1, seat 2, dealer, seat 1 ...
        t.send(shoe(card))
        assert t.m.state == TableState.DEALING
    t.send(shoe("5s"))  # ... seat 2: the initial deal is complete
    assert t.m.state == TableState.VERIFIED
    t.send(SeatDecision(2, "stand"))
    assert t.journal("decision-refused")[0]["reason"].startswith("seat 2 cannot act now")
    t.send(SeatDecision(1, "stand"))
    t.send(SeatDecision(2, "hit"))
    t.send(shoe("2c"))  # seat 2: 16
    t.send(SeatDecision(2, "stand"))
    assert t.m.state == TableState.VERIFIED
    out = t.send(shoe("Kd"))  # dealer 7 + K = 17 stands (BJ-4): every hand is played out
    assert t.m.state == TableState.SHOWDOWN
    result = out[-1].result
    assert games.settle(BJ, t.m.round.record) == result  # replayable record
    seats = {s.seat: s for s in result.seats}
    assert seats[1].wagers["main"].result == "win" and seats[1].wagers["main"].paid == 2000
    assert seats[2].wagers["main"].result == "lose"
    assert seats[1].wagers["trilux"].result == "lose"  # Ts 8d 7c: no class (TRX-2)
    t.send(LedgerResult("T1-000001", LedgerAction.SETTLE, True))
    assert t.m.state == TableState.SETTLED


def test_a_blackjack_void_returns_the_double_with_the_opening_bets():
    t = blackjack_table()
    for card in ("5s", "9h", "7c", "4d", "5h"):  # seat 1: 9
        t.send(shoe(card))
    t.send(SeatDecision(1, "double"))  # BJ-6: a second bet equal to the first
    t.send(ShufflerFault("jam"))
    (void,) = t.of(VoidRound)
    assert void.rule == "MD-S2"
    assert void.stakes == {1: {"main": 2000, "trilux": 100}, 2: {"main": 1000}}


def test_blackjack_card_when_none_is_due_is_md_s1():
    t = blackjack_table()
    for card in ("Ts", "9h", "7c", "8d", "5s"):
        t.send(shoe(card))
    t.send(shoe("4c"))  # seat 1 has not decided yet
    assert t.m.state == TableState.VOID
    assert t.of(VoidRound)[0].rule == "MD-S1"


def test_blackjack_shoe_fault_mid_round_voids_md_s2():
    t = blackjack_table()
    for card in ("Ts", "9h", "7c", "8d", "5s"):
        t.send(shoe(card))
    t.send(SeatDecision(1, "hit"))
    t.send(Tick(), dt=5.1)  # a card was due and never came
    assert t.of(VoidRound)[0].rule == "MD-S2"


def test_blackjack_lock_needs_a_main_bet():
    t = Table(BJ)
    t.send(ConditionChanged(Condition.STARTUP, False))
    t.send(EnterWagers(1, {"trilux": 100}))
    t.send(DealerPressed(Button.LOCK))
    assert t.m.state == TableState.OPEN
    assert t.journal("lock-ignored")[0]["rule"] == "BJ-1"


def test_blackjack_lock_over_the_maximum_caps_or_refuses_by_the_profile_bj_1():
    """BJ-1 [interpretation] ``[rules] over_maximum``: a bet entered over the maximum (the
    socket checks entries; the machine must not take one it was handed either) is capped at
    LOCK under "cap", the ledger opening with the capped bet; under "refuse" the LOCK is
    refused naming BJ-1 and nothing is opened."""
    import tomllib

    from controller.engine.profiles import find_profile, parse_profile

    t = Table(BJ)
    t.send(ConditionChanged(Condition.STARTUP, False))
    t.send(EnterWagers(1, {"main": 150_000, "trilux": 6000}))
    t.send(DealerPressed(Button.LOCK))
    (opened,) = t.of(OpenRound)
    assert opened.wagers == {1: {"main": 100_000, "trilux": 5000}}  # profile max 1,000 / 50
    data = tomllib.loads(find_profile("trilux-gr").read_text())
    data["rules"]["over_maximum"] = "refuse"  # a house variant's: seed 001 caps (BJ-1)
    data["profile"].update(name="trilux-house", source="a house variant")
    t = Table(parse_profile(data, "trilux-refuse.toml"))
    t.send(ConditionChanged(Condition.STARTUP, False))
    t.send(EnterWagers(1, {"main": 150_000}))
    t.send(DealerPressed(Button.LOCK))
    assert t.m.state == TableState.OPEN and not t.of(OpenRound)
    (ignored,) = t.journal("lock-ignored")
    assert ignored["rule"] == "BJ-1"
    assert "main 150000 is above the table maximum 100000: refused" in ignored["reason"]
    # the journal keeps minor units; the dealer who pressed LOCK reads money (issue 17)
    (told,) = [r for r in t.of(Refused) if r.kind == "lock-ignored"]
    assert "main EUR 1,500.00 is above the table maximum EUR 1,000.00: refused" in told.text()
    # a BJ-8 insurance above half the bet (round decide SEAT insurance): refused, nothing taken
    t.send(EnterWagers(1, {"main": 1000}))
    t.lock_and_open_ledger()
    for card in ("Th", "Ac", "7d"):  # BJ-2: seat 1, the dealer's ace, seat 1
        t.send(shoe(card))
    t.send(SeatDecision(1, "insurance", 800))
    (refused,) = t.journal("decision-refused")
    assert (
        refused["rule"] == "BJ-1" and "insurance 800 is above the maximum 500" in refused["reason"]
    )
    told = [r for r in t.of(Refused) if r.kind == "decision-refused"][-1]
    assert "insurance EUR 8.00 is above the maximum EUR 5.00 (half the bet" in told.text()
    assert t.m.round.deal.insurance == {}
    t.send(SeatDecision(1, "insurance", 500))
    assert t.m.round.deal.insurance == {1: 500}


# --- manual deal (uth-sk) and declared misdeals -----------------------------------------------

SK = load_profile("uth-sk")


def test_manual_deal_confirmed_by_the_dealer_then_cards_entered():
    t = Table(SK)
    t.send(ConditionChanged(Condition.STARTUP, False))
    t.send(EnterWagers(1, {"ante": 1000, "blind": 1000}, "4x"))
    t.lock_and_open_ledger()
    assert t.m.state == TableState.DEALING and not t.of(RequestPacket)
    t.send(DealerPressed(Button.CONFIRM))  # the initial deal is out
    assert t.m.state == TableState.VERIFIED
    out = t.send(DealerPressed(Button.CONFIRM))
    assert t.journal("showdown-waiting")  # the cards are not entered yet
    # a table dealt by hand has no shuffler to blame: the dealer is told what to do
    assert [e.text() for e in out if isinstance(e, Refused)] == [
        "cards still to be entered (croupier round cards)"
    ]
    for dest, cards in [("community", "2c 7d 9h Js Qs"), ("seat:1", "Kd Tc"), ("dealer", "Jd 3c")]:
        t.send(EnterCards(dest, tuple(parse_cards(cards))))
    t.send(EnterCards("seat:1", tuple(parse_cards("Kd Jd"))))  # Jd is the dealer's
    assert t.journal("cards-refused")[-1]["rule"] == "POK-1"
    out = t.send(DealerPressed(Button.CONFIRM))
    seat = out[-1].result.seats[0]
    assert seat.wagers["play"].paid == 8000  # straight beats jacks (UTH-6)


def manual_round():
    t = Table(SK)
    t.send(ConditionChanged(Condition.STARTUP, False))
    t.send(DeclareSeats((1, 2)))
    t.lock_and_open_ledger()
    return t


def refusals(out):
    return [e.text() for e in out if isinstance(e, Refused)]


def test_declared_misdeal_voids_with_its_rule():
    t = manual_round()
    t.send(DeclareMisdeal("MD-X1", "not a misdeal rule"))
    assert t.m.state == TableState.DEALING
    t.send(DeclareMisdeal("MD-M2", "a card exposed face up during the deal"))
    assert t.m.state == TableState.VOID
    assert t.of(VoidRound)[0].rule == "MD-M2"


def test_a_manual_deal_rule_is_refused_on_a_shuffler_round_md_s3():
    """MD-S3: with a shuffler one exposed card is no misdeal; MD-M2 is no way round it."""
    t = Table()
    t.open()
    t.send(StakeSensed(1, True))
    t.lock_and_open_ledger()
    deal(t, [("community", "2c 7d 9h Js Qs"), ("seat:1", "Kd Tc"), ("dealer", "Jd 3c")])
    out = t.send(DeclareMisdeal("MD-M2", "one card face up"))
    assert t.m.state == TableState.VERIFIED and not t.of(VoidRound)
    assert refusals(out) == [
        "MD-M2 is a manual-deal rule; with a shuffler two or more exposed cards are MD-S3"
        " (one is not a misdeal)"
    ]
    assert t.journal("misdeal-refused")[-1]["rule"] == "MD-M2"
    t.send(DeclareMisdeal("MD-S3", "two cards face up"))
    assert t.of(VoidRound)[0].rule == "MD-S3"


def test_a_shoe_round_takes_shuffler_rules_only():
    t = blackjack_table()
    out = t.send(DeclareMisdeal("MD-M6", "dealer card exposed"))
    assert "manual-deal rule" in refusals(out)[0] and not t.of(VoidRound)
    out = t.send(DeclareMisdeal("MD-S3", "two cards face up"))  # every card is (BJ-2)
    assert "blackjack deals every card face up (BJ-2)" in refusals(out)[0]
    assert not t.of(VoidRound)
    t.send(DeclareMisdeal("MD-S2", "the shoe jammed"))
    assert t.of(VoidRound)[0].rule == "MD-S2"


def test_a_holdem_void_returns_every_wager_entered_and_the_play_decided():
    """MD: every wager of the round is returned: the progressive LOCK took, the table wagers
    within the limits (BJ-1: the Ante capped, the Blind with it) and the Play its decision
    placed on the accepted Ante (UTH-4), as the settlement would have recorded them."""
    t = Table()
    t.m.settings = replace(t.m.settings, limits={"ante": Limit(100, 800, "UTH-2")})
    t.open()
    t.send(StakeSensed(1, True))
    t.send(EnterWagers(1, {"ante": 1000, "blind": 1000, "trips": 500}))
    t.send(EnterWagers(3, {"ante": 500, "blind": 500}))
    t.lock_and_open_ledger()
    deal(t, [("community", "2c 7d 9h Js Qs"), ("seat:1", "Kd Tc"), ("seat:3", "4h 4s")])
    t.send(EnterWagers(1, {}, "4x"))
    t.send(DeclareMisdeal("MD-S2", "the shuffler jammed"))  # MD-S3 is the initial deal's
    (void,) = t.of(VoidRound)
    assert void.stakes == {
        1: {"progressive": 100, "ante": 800, "blind": 800, "trips": 500, "play": 3200},
        3: {"ante": 500, "blind": 500},
    }


def test_a_blackjack_decision_is_a_player_action():
    t = blackjack_table()
    for card in ("Ts", "9h", "7c", "8d", "5s"):
        t.send(shoe(card))
    assert not t.m.round.player_acted
    t.send(SeatDecision(1, "stand"))
    assert t.m.round.player_acted


def test_a_shuffler_rule_is_refused_on_a_round_dealt_by_hand():
    t = manual_round()
    out = t.send(DeclareMisdeal("MD-S3", "two cards face up"))
    assert refusals(out) == [
        "MD-S3 is a shuffler rule; by hand a card exposed during the deal is MD-M2"
    ]
    assert t.m.state == TableState.DEALING


def test_md_m6_once_a_player_acted_is_refused_md_x1():
    t = manual_round()
    t.send(DealerPressed(Button.CONFIRM))  # the initial deal is out
    t.send(EnterWagers(1, {"ante": 1000, "blind": 1000}, "4x"))  # seat 1 acted
    out = t.send(DeclareMisdeal("MD-M6", "the dealer turned his cards"))
    assert t.m.state == TableState.VERIFIED and not t.of(VoidRound)
    assert "MD-X1, not a misdeal" in refusals(out)[0]
    assert t.journal("misdeal-refused")[-1]["rule"] == "MD-M6"
    out = t.send(DeclareMisdeal("MD-M2", "a card face up"))
    assert "a player has acted" in refusals(out)[0]
    t.send(DeclareMisdeal("MD-M3", "seat 2 holds three cards"))  # no moment in its text
    assert t.of(VoidRound)[0].rule == "MD-M3"


def test_md_m6_before_any_player_acted_voids():
    t = manual_round()
    t.send(DealerPressed(Button.CONFIRM))
    t.send(EnterWagers(1, {"ante": 1000, "blind": 1000}))  # stakes, no decision
    t.send(DeclareMisdeal("MD-M6", "the dealer turned his cards"))
    assert t.of(VoidRound)[0].rule == "MD-M6"


def test_linked_pool_down_closes_the_progressive_not_the_table():
    t = Table()
    t.open()
    t.send(StakeSensed(1, True))
    t.send(ConditionChanged(Condition.PROGRESSIVE_LINK, True, "pool server unreachable"))
    assert t.m.state == TableState.OPEN  # the other bets still play
    out = t.send(DealerPressed(Button.LOCK))
    assert out[-1].stakes == {}  # nothing taken while the link is down
    assert out[0].data["progressive_closed"] == "pool server unreachable"
    t.send(ConditionChanged(Condition.PROGRESSIVE_LINK, False))
    assert t.m.state == TableState.LOCKED


def test_linked_pool_failing_at_lock_reopens_bets_without_closing():
    t = Table()
    t.open()
    t.send(StakeSensed(1, True))
    t.send(DealerPressed(Button.LOCK))
    t.send(
        LedgerResult(
            "T1-000001", LedgerAction.OPEN, False, "link lost", condition="progressive-link"
        )
    )
    assert t.m.state == TableState.OPEN and t.m.round is None
    out = t.send(DealerPressed(Button.LOCK))  # LOCK again: the linked stakes are not taken
    assert out[-1].stakes == {} and out[-1].round_id == "T1-000002"


def test_linked_settlement_waits_for_the_link():
    t = Table()
    t.open()
    t.send(StakeSensed(1, True))
    t.lock_and_open_ledger()
    deal(t, [("community", "2c 7d 9h Js Qs"), ("seat:1", "Kd Tc"), ("dealer", "Jd 3c")])
    t.send(DealerPressed(Button.CONFIRM))
    t.send(
        LedgerResult(
            "T1-000001", LedgerAction.SETTLE, False, "link lost", condition="progressive-link"
        )
    )
    assert t.m.state == TableState.SHOWDOWN
    out = t.send(ConditionChanged(Condition.PROGRESSIVE_LINK, False))
    assert any(isinstance(e, SettleRound) for e in out)


# --- MD-X3: exposed dealer cards go back into the shuffler (Italian profile) ---------------

IT = load_profile("uth-it")
IT_DEAL = [("community", "As Ks Qs 7c 4c"), ("seat:2", "Ts 5h"), ("dealer", "2d 3d")]


def verified_italian_round():
    t = Table(IT)
    t.send(ConditionChanged(Condition.STARTUP, False))
    t.send(EnterWagers(2, {"ante": 1000, "blind": 1000}, "4x"))
    t.lock_and_open_ledger()
    deal(t, IT_DEAL)
    assert t.m.state == TableState.VERIFIED
    return t


def test_exposed_dealer_cards_are_reinserted_and_replaced_md_x3():
    t = verified_italian_round()
    out = t.send(CardsExposed((1, 2)))
    assert t.m.state == TableState.DEALING  # green lamp off until the replacements are counted
    assert out[-2:] == [ReinsertCards(tuple(parse_cards("2d 3d"))), RequestPacket("dealer", 2)]
    assert t.journal("transition")[-1]["rule"] == "MD-X3"
    t.send(packet("dealer", "Kh Kd"))
    assert t.m.state == TableState.VERIFIED
    settle = t.send(DealerPressed(Button.CONFIRM))[-1]
    assert isinstance(settle, SettleRound)
    assert t.m.round.record["dealer"] == ["Kh", "Kd"]
    assert settle.result.dealer["hand"] == "three-of-a-kind"  # Kh Kd with the board Ks


def test_one_exposed_card_may_come_back_as_its_own_replacement():
    t = verified_italian_round()
    out = t.send(CardsExposed((2,)))
    assert out[-2:] == [ReinsertCards(tuple(parse_cards("3d"))), RequestPacket("dealer", 1)]
    t.send(packet("dealer", "3d"))  # reshuffled into the rest, it may be dealt again
    assert t.m.state == TableState.VERIFIED
    t.send(DealerPressed(Button.CONFIRM))
    assert t.m.round.record["dealer"] == ["2d", "3d"]


def test_a_wrong_replacement_count_is_still_md_s1():
    t = verified_italian_round()
    t.send(CardsExposed((1, 2)))
    t.send(packet("dealer", "Kh"))
    assert t.m.state == TableState.VOID and t.m.round.verdict.rule == "MD-S1"


@pytest.mark.parametrize(
    ("profile", "when", "positions", "why"),
    [
        (GR, "verified", (1, 2), "declare MD-S3"),  # MD-X1 only after a player acted
        (IT, "dealing", (1, 2), "only after a verified"),
        (IT, "verified", (3,), "positions [3] cannot be exposed"),
        (IT, "verified", (1, 1), "cannot be exposed"),
    ],
)
def test_exposure_refused_without_the_procedure_or_out_of_turn(profile, when, positions, why):
    t = Table(profile)
    t.open()
    t.send(DeclareSeats((2,)))
    t.lock_and_open_ledger()
    deal(t, IT_DEAL if when == "verified" else IT_DEAL[:1])
    before = t.m.state
    out = t.send(CardsExposed(positions))
    assert t.m.state == before
    assert not any(isinstance(e, ReinsertCards | RequestPacket) for e in out)
    assert why in t.journal("exposure-refused")[-1]["reason"]


def test_a_packet_answering_another_round_is_ignored():
    t = Table()
    t.open()
    t.send(DeclareSeats((1,)))
    t.lock_and_open_ledger()
    stale = PacketDelivered(
        Packet("community", tuple(parse_cards("2c 7d 9h Js Qs")), (False,) * 5),
        round_id="T1-000000",
    )
    t.send(stale)
    assert t.m.state == TableState.DEALING and t.journal("packet-stale")
    t.send(PacketDelivered(stale.packet, round_id="T1-000001"))
    assert t.m.round.deal.validator.delivered  # the current round's packet counts


@pytest.mark.parametrize(
    ("recorded", "next_id"),
    [
        ("T1-000007", "T1-000008"),
        ("T1-000000", "T1-000001"),  # below the next number: nothing to skip
        ("T2-000009", "T1-000001"),  # another table's round
        ("T1-00x009", "T1-000001"),  # not this table's numbering
        ("T1-\u0661\u0662", "T1-000001"),  # digits, but not ASCII ones
        ("T1-" + "9" * 13, "T1-000001"),  # longer than any number this table will reach
    ],
)
def test_a_round_recorded_elsewhere_is_not_numbered_again(recorded, next_id):
    """The linked store's latest round of this table (a join after a crash): the next round is
    numbered after it, journaled (docs/linked-pools.md)."""
    t = Table()
    t.send(RoundsRecorded(recorded, "linked pool jumbo7"))
    assert t.first_round_id() == next_id
    skipped = t.journal("round.ids-skipped")
    if next_id == "T1-000001":
        assert skipped == []
    else:
        assert skipped == [
            {"from": "T1-000001", "to": recorded, "next": next_id, "held_by": "linked pool jumbo7"}
        ]


@pytest.mark.parametrize(
    ("store_says", "first"),
    [
        (None, "T1-000002"),  # LOCK before the linked store answered: one number skipped
        ("nothing", "T1-000001"),  # the store holds no round of this table
        ("T1-000004", "T1-000005"),
    ],
)
def test_a_linked_table_skips_a_number_it_cannot_know_is_free(store_says, first):
    """A linked table whose store has not said which round it holds last (a crash between the
    store's commit of an opening and the ledger's) does not use the next number."""
    t = Table(linked=True)
    if store_says is not None:
        said = None if store_says == "nothing" else store_says
        t.send(RoundsRecorded(said, "linked pool jumbo7"))
    assert t.first_round_id() == first
    skipped = t.journal("round.ids-skipped")
    assert len(skipped) == (first != "T1-000001")
    if store_says is None:
        assert skipped[0]["from"] == skipped[0]["to"] == "T1-000001"
        assert "not joined" in skipped[0]["held_by"]


# --- presses the table does not take, and a LOCK the ledger fails to open -------------------
# A LOCK or a CONFIRM the table's state or rules do not take is journaled (lock-ignored,
# confirm-ignored, showdown-waiting, settlement-refused) and the machine says why (Refused):
# the control socket answers `croupier round lock` or `round confirm` with it instead of
# "pressed" for a press that did nothing. A shoe round that reaches its showdown by itself has
# no press to answer: what keeps it waiting is only journaled. A LOCK whose opening the ledger
# or a linked pool refuses leaves no round: the wagers entered before it wait for the next LOCK.


def refusal(out):
    (refused,) = [e for e in out if isinstance(e, Refused)] or [None]
    return refused.text() if refused else None


def test_a_lock_with_no_seat_in_play_is_answered():
    t = Table()
    t.open()
    assert refusal(t.send(DealerPressed(Button.LOCK))).startswith("no seat in play")
    assert t.m.state == TableState.OPEN and t.m.round is None
    assert t.journal("lock-ignored")


def test_a_second_lock_is_answered_with_the_tables_state():
    t = Table()
    t.open()
    t.send(StakeSensed(1, True))
    assert refusal(t.send(DealerPressed(Button.LOCK))) is None
    why = refusal(t.send(DealerPressed(Button.LOCK)))
    assert why == "LOCK only closes bets of an open table (the table is locked)"
    assert t.journal("lock-ignored")[0]["state"] == "locked"


def test_a_confirm_with_nothing_to_confirm_is_answered():
    t = Table()
    t.open()
    assert refusal(t.send(DealerPressed(Button.CONFIRM))) == (
        "CONFIRM has nothing to confirm while the table is open"
    )
    t.send(StakeSensed(1, True))
    t.send(DealerPressed(Button.LOCK))
    t.send(LedgerResult(t.m.round.round_id, LedgerAction.OPEN, True))
    assert t.m.state == TableState.DEALING
    why = refusal(t.send(DealerPressed(Button.CONFIRM)))
    assert why == "the shuffler is still dealing: CONFIRM waits for its cards"
    assert t.m.state == TableState.DEALING


def test_declaring_a_seat_the_game_does_not_have_is_answered():
    t = Table()
    t.open()
    t.open()
    assert refusal(t.send(DeclareSeats((1, 9)))) == "no such seat [9] (seats 1..6)"
    assert t.m.declared == set()


def test_a_lock_the_ledger_fails_to_open_keeps_the_entered_wagers_for_the_next_lock():
    t = Table()
    t.open()
    t.send(EnterWagers(2, {"ante": 1000, "blind": 1000, "trips": 500}))
    t.send(StakeSensed(1, True))
    t.send(DealerPressed(Button.LOCK))
    rid = t.m.round.round_id
    # entered while the opening was pending: taken into the round, answered "entered"
    assert refusal(t.send(EnterWagers(2, {}, "4x"))) is None
    assert refusal(t.send(EnterWagers(1, {"ante": 500, "blind": 500}))) is None
    t.send(LedgerResult(rid, LedgerAction.OPEN, False, "database or disk is full"))
    assert t.m.state == TableState.CLOSED and t.m.round is None
    assert t.m.entered == {
        2: ({"ante": 1000, "blind": 1000, "trips": 500}, "4x"),
        1: ({"ante": 500, "blind": 500}, None),
    }
    t.send(ConditionChanged(Condition.LEDGER, False))
    assert refusal(t.send(DealerPressed(Button.LOCK))) is None
    assert t.m.round.seats == (1, 2)
    assert t.m.round.wagers == {
        1: ({"ante": 500, "blind": 500}, None),
        2: ({"ante": 1000, "blind": 1000, "trips": 500}, "4x"),
    }


def test_a_linked_pool_down_at_lock_keeps_the_entered_wagers_and_takes_no_jumbo7():
    t = Table(load_profile("ch-bg"), linked=True)
    t.send(PoolAmount("jumbo7", 1_000_000, 500_000))
    t.send(ConditionChanged(Condition.STARTUP, False))
    t.send(EnterWagers(3, {"ante": 1000, "jumbo7": 100}))
    t.send(StakeSensed(3, True))
    t.send(DealerPressed(Button.LOCK))
    t.send(
        LedgerResult(
            t.m.round.round_id,
            LedgerAction.OPEN,
            False,
            "the pool server does not answer",
            Condition.PROGRESSIVE_LINK,
        )
    )
    assert t.m.state == TableState.OPEN  # the other bets play without the linked pool
    assert t.m.entered == {3: ({"ante": 1000, "jumbo7": 100}, None)}
    t.send(DealerPressed(Button.LOCK))
    assert t.m.round.progressive == {}  # the link is down: no linked stake is taken
    assert t.m.round.wagers == {3: ({"ante": 1000}, None)}
    assert t.journal("stake-not-taken")[-1] == {
        "seat": 3,
        "wager": "jumbo7",
        "entered": 100,
        "taken": 0,
        "rule": "PRG-2",
    }

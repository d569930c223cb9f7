"""Cards exposed that are not a misdeal (RULES.md 6): on a Greek table the dealer's cards after
the first player action (MD-X1) and wrongly exposed community cards (MD-X2), with a shuffler
and dealt by hand; on an Italian one the dealer's cards with only the flop shown (MD-X3); the
refusals that tell the dealer which misdeal to declare instead."""

import dataclasses

import pytest

from controller.engine.cards import parse_cards
from controller.engine.profiles import DealerExposureReplaces, EarlyExposureCount
from controller.table.events import (
    Button,
    CardsExposed,
    DealerPressed,
    DeclareMisdeal,
    EnterCards,
    EnterWagers,
    Refused,
    ReinsertCards,
    RequestPacket,
    SettleRound,
)
from controller.table.machine import TableState
from tests.unit.table.test_table_machine import GR, IT, IT_DEAL, SK, Table, deal, packet

GR_DEAL = [("community", "As Ks Qs 7c 4c"), ("seat:2", "Ts 5h"), ("dealer", "2d 3d")]
GR_MANUAL = dataclasses.replace(GR, deal="manual")


def greek(profile=GR, **options):
    """``profile`` with MD-X1's [interpretation]s set to ``options``."""
    return dataclasses.replace(profile, options={**profile.options, **options})


GR_BOTH = greek(dealer_exposure_replaces=DealerExposureReplaces.BOTH)
GR_DEALER_ONLY = greek(early_exposure_counts=EarlyExposureCount.DEALER)


def locked_round(profile=GR, *, seat=2, decision=None):
    """``profile``'s table open, ``seat`` in with ante and blind (and ``decision``, entered
    before the lock), locked and its round opened in the ledger."""
    t = Table(profile)
    t.open()
    t.send(EnterWagers(seat, {"ante": 1000, "blind": 1000}, decision))
    t.lock_and_open_ledger()
    return t


def verified_greek_round(*, decision=None, profile=GR, packets=GR_DEAL):
    """A uth-gr round with seat 2 in, dealt by the shuffler and verified; ``decision``: seat
    2's, entered before the exposure (a player acted)."""
    t = locked_round(profile)
    deal(t, packets)
    assert t.m.state == TableState.VERIFIED
    if decision is not None:
        t.send(EnterWagers(2, {}, decision))
    return t


def refused_with(t, out):
    """The refusal's reason, after checking the exposure changed nothing."""
    assert t.m.state == TableState.VERIFIED
    assert not any(isinstance(e, ReinsertCards | RequestPacket) for e in out)
    return t.journal("exposure-refused")[-1]


# --- MD-X1: the dealer's cards after the first player action ---------------------------------


def test_dealer_cards_exposed_after_a_decision_are_replaced_md_x1():
    t = verified_greek_round(decision="4x")
    out = t.send(CardsExposed((1, 2)))
    assert t.m.state == TableState.DEALING  # green lamp off until the replacements are counted
    assert out[-2:] == [ReinsertCards(tuple(parse_cards("2d 3d"))), RequestPacket("dealer", 2)]
    moved = t.journal("transition")[-1]
    assert moved["rule"] == "MD-X1" and moved["destination"] == "dealer"
    assert moved["positions"] == [1, 2]
    t.send(packet("dealer", "Kh Kd"))
    assert t.m.state == TableState.VERIFIED
    settle = t.send(DealerPressed(Button.CONFIRM))[-1]
    assert isinstance(settle, SettleRound)
    assert t.m.round.record["dealer"] == ["Kh", "Kd"]  # settled on the replacements
    assert settle.result.dealer["hand"] == "three-of-a-kind"  # Kh Kd with the board Ks


def test_one_exposed_dealer_card_alone_is_replaced_md_x1():
    t = verified_greek_round(decision="check")
    out = t.send(CardsExposed((1,)))
    assert out[-2:] == [ReinsertCards(tuple(parse_cards("2d"))), RequestPacket("dealer", 1)]
    t.send(packet("dealer", "2d"))  # shuffled back into the rest, it may come out again
    t.send(DealerPressed(Button.CONFIRM))
    assert t.m.round.record["dealer"] == ["2d", "3d"]


def test_with_replaces_both_one_exposed_card_sends_both_back_md_x1():
    t = verified_greek_round(decision="check", profile=GR_BOTH)
    out = t.send(CardsExposed((1,)))
    assert out[-2:] == [ReinsertCards(tuple(parse_cards("2d 3d"))), RequestPacket("dealer", 2)]
    moved = t.journal("transition")[-1]
    assert (moved["rule"], moved["positions"], moved["exposed"]) == ("MD-X1", [1, 2], [1])
    t.send(packet("dealer", "Kh Kd"))
    assert t.m.state == TableState.VERIFIED
    t.send(DealerPressed(Button.CONFIRM))
    assert t.m.round.record["dealer"] == ["Kh", "Kd"]  # two new closed cards


def test_with_replaces_both_one_replacement_card_is_md_s1():
    t = verified_greek_round(decision="check", profile=GR_BOTH)
    t.send(CardsExposed((2,)))
    t.send(packet("dealer", "Kh"))  # two were asked for
    assert t.m.state == TableState.VOID and t.m.round.verdict.rule == "MD-S1"


def test_replaces_both_leaves_community_cards_to_md_x2():
    t = verified_greek_round(profile=GR_BOTH)
    out = t.send(CardsExposed((4,), "community"))
    assert out[-1] == RequestPacket("community", 1)


def test_before_a_decision_the_dealer_is_told_to_declare_md_s3():
    t = verified_greek_round()
    out = t.send(CardsExposed((1, 2)))
    refusal = refused_with(t, out)
    assert "not MD-X1" in refusal["reason"] and "declare MD-S3" in refusal["reason"]
    assert refusal["rule"] == "MD-X1"
    assert [e.reason for e in out if isinstance(e, Refused)] == [refusal["reason"]]
    t.send(DeclareMisdeal("MD-S3", "the dealer exposed his cards before any player acted"))
    assert t.m.state == TableState.VOID


def test_before_a_decision_one_card_counts_with_the_machines_face_up_card():
    t = locked_round(GR)
    t.send(packet("community", "As Ks Qs 7c 4c"))
    t.send(packet("seat:2", "Ts 5h", up=(0,)))  # one card face up: a note, not MD-S3
    t.send(packet("dealer", "2d 3d"))
    assert t.m.state == TableState.VERIFIED
    refusal = refused_with(t, t.send(CardsExposed((1,))))
    assert "declare MD-S3" in refusal["reason"]  # two exposed in all


def test_counting_the_dealers_cards_alone_one_card_is_no_misdeal():
    t = locked_round(GR_DEALER_ONLY)
    t.send(packet("community", "As Ks Qs 7c 4c"))
    t.send(packet("seat:2", "Ts 5h", up=(0,)))  # the machine's face-up card does not count
    t.send(packet("dealer", "2d 3d"))
    refusal = refused_with(t, t.send(CardsExposed((1,))))
    assert "one exposed card is no misdeal" in refusal["reason"]
    refusal = refused_with(t, t.send(CardsExposed((1, 2))))
    assert "declare MD-S3" in refusal["reason"]  # his two cards are two


def test_before_a_decision_one_card_alone_is_no_misdeal():
    t = verified_greek_round()
    refusal = refused_with(t, t.send(CardsExposed((2,))))
    assert "one exposed card is no misdeal (MD-S3 needs two): call the floor" in refusal["reason"]


@pytest.mark.parametrize("position", [1, 2])
def test_the_dealers_report_of_the_machines_face_up_card_counts_it_once(position):
    """The audit's D1: the machine delivered dealer card 1 face up (one card: no misdeal) and
    the dealer reported that card. It is one exposed card, not two (MD-S3)."""
    t = locked_round(GR)
    t.send(packet("community", "As Ks Qs 7c 4c"))
    t.send(packet("seat:2", "Ts 5h"))
    t.send(packet("dealer", "2d 3d", up=(0,)))
    assert t.m.state == TableState.VERIFIED
    refusal = refused_with(t, t.send(CardsExposed((position,))))
    if position == 1:  # the same card
        assert "one exposed card is no misdeal (MD-S3 needs two)" in refusal["reason"]
    else:  # another card beside the machine's
        assert "two or more cards exposed: declare MD-S3" in refusal["reason"]
    refusal = refused_with(t, t.send(CardsExposed((1, 2))))
    assert "declare MD-S3" in refusal["reason"]


def test_md_s3_declared_after_a_player_acted_is_refused_and_the_round_plays_on():
    """The audit's D2: the Greek text makes exposures after the first player action MD-X1 or
    MD-X2, not a misdeal; a declared MD-S3 voided the round, Play included."""
    t = verified_greek_round(decision="4x")
    t.send(DeclareMisdeal("MD-S3", "the dealer turned his cards"))
    assert t.m.state == TableState.VERIFIED
    refusal = t.journal("misdeal-refused")[-1]
    assert "a player has acted" in refusal["reason"] and "MD-X1" in refusal["reason"]


def test_a_decision_entered_before_lock_counts_as_a_player_action():
    t = locked_round(GR, decision="4x")
    deal(t, GR_DEAL)
    t.send(CardsExposed((1, 2)))
    assert t.m.state == TableState.DEALING


# --- MD-X2: wrongly exposed community cards ---------------------------------------------------


def test_wrong_community_cards_are_replaced_in_their_positions_md_x2():
    t = verified_greek_round()  # no player action needed
    out = t.send(CardsExposed((4, 5), "community"))
    assert t.m.state == TableState.DEALING
    assert out[-2:] == [
        ReinsertCards(tuple(parse_cards("7c 4c"))),
        RequestPacket("community", 2),
    ]
    moved = t.journal("transition")[-1]
    assert (moved["rule"], moved["destination"], moved["positions"]) == (
        "MD-X2",
        "community",
        [4, 5],
    )
    t.send(packet("community", "Js 2h"))
    assert t.m.state == TableState.VERIFIED
    t.send(EnterWagers(2, {}, "4x"))
    settle = t.send(DealerPressed(Button.CONFIRM))[-1]
    assert t.m.round.record["community"] == ["As", "Ks", "Qs", "Js", "2h"]  # the positions kept
    seat = settle.result.seats[0]
    assert seat.hand == "royal-flush"  # settled on the replacements (with the seat's Ts)


def test_a_flop_card_is_replaced_in_its_own_position_md_x2():
    t = verified_greek_round()
    t.send(CardsExposed((2,), "community"))
    t.send(packet("community", "8h"))
    t.send(DealerPressed(Button.CONFIRM))
    assert t.m.round.record["community"] == ["As", "8h", "Qs", "7c", "4c"]


def test_the_replacement_packet_is_checked_like_any_packet():
    t = verified_greek_round()
    t.send(CardsExposed((4, 5), "community"))
    t.send(packet("community", "Js"))  # one card where two were asked for
    assert t.m.state == TableState.VOID and t.m.round.verdict.rule == "MD-S1"


def test_a_replacement_to_the_wrong_place_is_md_s1():
    t = verified_greek_round(decision="4x")
    t.send(CardsExposed((1, 2)))
    t.send(packet("community", "Kh Kd"))
    assert t.m.state == TableState.VOID and t.m.round.verdict.rule == "MD-S1"


def test_a_card_still_out_coming_again_is_a_deck_error():
    """The cards sent back may come out again; one still at a seat may not (MD-S2)."""
    t = verified_greek_round()
    t.send(CardsExposed((5,), "community"))
    t.send(packet("community", "Ts"))  # seat 2 holds Ts
    assert t.m.state == TableState.VOID and t.m.round.verdict.rule == "MD-S2"


def test_two_replacement_cards_face_up_are_md_s3():
    t = verified_greek_round()
    t.send(CardsExposed((4, 5), "community"))
    t.send(packet("community", "Js 2h", up=(0, 1)))
    assert t.m.state == TableState.VOID and t.m.round.verdict.rule == "MD-S3"


@pytest.mark.parametrize(
    ("profile", "positions", "destination", "why", "rule"),
    [
        (GR, (6,), "community", "positions [6] cannot be exposed", "MD-X2"),
        (GR, (0,), "community", "positions [0] cannot be exposed", "MD-X2"),
        (GR, (4, 4), "community", "cannot be exposed", "MD-X2"),
        (GR, (), "community", "cannot be exposed", "MD-X2"),
        (IT, (4,), "community", "profile uth-it has no procedure for wrongly exposed", "MD-X2"),
        # the positions first: no MD-S3 advice for cards the dealer does not hold
        (GR, (3,), "dealer", "positions [3] cannot be exposed", "MD-X1"),
    ],
)
def test_exposure_refused_for_positions_or_procedure(profile, positions, destination, why, rule):
    t = verified_greek_round(profile=profile, packets=IT_DEAL if profile is IT else GR_DEAL)
    refusal = refused_with(t, t.send(CardsExposed(positions, destination)))
    assert why in refusal["reason"] and refusal["rule"] == rule


def test_no_exposure_before_the_deal_is_verified():
    t = locked_round(GR, decision="4x")
    deal(t, GR_DEAL[:1])
    out = t.send(CardsExposed((1,), "community"))
    assert t.m.state == TableState.DEALING and not t.of(ReinsertCards)
    assert "only after a verified" in t.journal("exposure-refused")[-1]["reason"]
    assert isinstance(out[-1], Refused)


# --- dealt by hand (uth-gr with deal = "manual"; uth-sk has no exposure procedure) -------------


def manual_round(profile=GR_MANUAL, decision="4x"):
    t = locked_round(profile, seat=1, decision=decision)
    t.send(DealerPressed(Button.CONFIRM))  # the initial deal is out
    for dest, cards in [("community", "2c 7d 9h Js Qs"), ("seat:1", "Kd Tc"), ("dealer", "Jd 3c")]:
        t.send(EnterCards(dest, tuple(parse_cards(cards))))
    assert t.m.state == TableState.VERIFIED
    return t


def test_dealt_by_hand_the_exposed_cards_are_entered_again_md_x1():
    t = manual_round()
    out = t.send(CardsExposed((1, 2)))
    assert t.m.state == TableState.VERIFIED and not any(
        isinstance(e, ReinsertCards | RequestPacket) for e in out
    )
    entry = t.journal("cards-exposed")[-1]
    assert entry["rule"] == "MD-X1" and "enter them again" in entry["note"]
    t.send(DealerPressed(Button.CONFIRM))
    assert t.journal("showdown-waiting")  # the new dealer cards are not entered yet
    t.send(EnterCards("dealer", tuple(parse_cards("Jd 9c"))))
    settle = t.send(DealerPressed(Button.CONFIRM))[-1]
    assert isinstance(settle, SettleRound)
    assert t.m.round.record["dealer"] == ["Jd", "9c"]


def test_dealt_by_hand_with_replaces_both_the_dealers_place_is_entered_again_whole():
    t = manual_round(greek(GR_MANUAL, dealer_exposure_replaces=DealerExposureReplaces.BOTH))
    t.send(CardsExposed((2,)))
    entry = t.journal("cards-exposed")[-1]
    assert (entry["positions"], entry["exposed"]) == ([1, 2], [2])
    t.send(DealerPressed(Button.CONFIRM))
    assert t.journal("showdown-waiting")  # both dealer cards to enter again
    t.send(EnterCards("dealer", tuple(parse_cards("8d 9c"))))
    t.send(DealerPressed(Button.CONFIRM))
    assert t.m.round.record["dealer"] == ["8d", "9c"]


def test_dealt_by_hand_one_exposed_card_is_journaled_alone_by_default():
    t = manual_round()
    t.send(CardsExposed((2,)))
    entry = t.journal("cards-exposed")[-1]
    assert entry["positions"] == [2] and "exposed" not in entry


def test_dealt_by_hand_community_cards_are_entered_again_md_x2():
    t = manual_round()
    t.send(CardsExposed((5,), "community"))
    assert t.journal("cards-exposed")[-1]["rule"] == "MD-X2"
    t.send(EnterCards("community", tuple(parse_cards("2c 7d 9h Js 4s"))))
    t.send(DealerPressed(Button.CONFIRM))
    assert t.m.round.record["community"] == ["2c", "7d", "9h", "Js", "4s"]


def test_dealt_by_hand_before_a_decision_the_dealer_declares_md_m6():
    t = manual_round(decision=None)
    refusal = refused_with(t, t.send(CardsExposed((1,))))
    assert "declare MD-M6" in refusal["reason"]


@pytest.mark.parametrize(
    ("destination", "cards", "rule"),
    [("seat:1", "Kd", "MD-M3"), ("dealer", "Jd 3c 4c", "MD-M5"), ("community", "2c 7d", "UTH-3")],
)
def test_dealt_by_hand_a_wrong_count_names_the_places_rule(destination, cards, rule):
    """The audit's D4: the dealer's own count is MD-M5, the board's five UTH-3; MD-M3 is a
    player's."""
    t = locked_round(GR_MANUAL, seat=1, decision="4x")
    t.send(DealerPressed(Button.CONFIRM))
    t.send(EnterCards(destination, tuple(parse_cards(cards))))
    refusal = t.journal("cards-refused")[-1]
    assert refusal["rule"] == rule and "holds" in refusal["reason"]


def test_the_slovak_rules_have_no_exposure_procedure():
    t = manual_round(profile=SK)
    refusal = refused_with(t, t.send(CardsExposed((1, 2))))
    assert "profile uth-sk has no procedure for exposed dealer cards" in refusal["reason"]


# --- MD-X3: "with only the flop shown" (Italian, with a shuffler) -----------------------------


def italian_round(decision):
    t = locked_round(IT)
    deal(t, IT_DEAL)
    if decision is not None:
        t.send(EnterWagers(2, {}, decision))
    return t


@pytest.mark.parametrize("decision", [None, "4x", "2x", ["check", "2x"], ["check", "check"]])
def test_md_x3_until_a_decision_of_the_river(decision):
    """Before the river the table takes MD-X3; with no decision too: a check is not entered,
    so after an all-check preflop the flop is shown with no decision in (the review's
    regression: the round was refused, then voided MD-S3)."""
    t = italian_round(decision)
    t.send(CardsExposed((1,)))
    assert t.m.state == TableState.DEALING and t.journal("transition")[-1]["rule"] == "MD-X3"


@pytest.mark.parametrize(
    "decision", ["1x", "fold", "no-play", ["check", "check", "1x"], ["check", "check", "no-play"]]
)
def test_md_x3_is_refused_once_the_river_is_shown(decision):
    """The audit's D3: a decision of the river (1x, a fold, or MD-X4's no-play: the board
    exposed) is in: the turn and river are shown, and MD-X3 is for the dealer's cards exposed
    with only the flop shown."""
    t = italian_round(decision)
    refusal = refused_with(t, t.send(CardsExposed((1, 2))))
    assert refusal["rule"] == "MD-X3"
    assert refusal["reason"].startswith(
        "a decision of the river is entered (1x, a fold or no-play)"
    )
    assert refusal["reason"].endswith("with only the flop shown: call the floor")


def test_a_river_decision_entered_with_the_stakes_before_lock_says_nothing_of_the_cards():
    """Entered before LOCK it is what the player will do, not what is shown: MD-X3 is taken
    on the verified deal."""
    t = locked_round(IT, decision="1x")
    deal(t, IT_DEAL)
    t.send(CardsExposed((1, 2)))
    assert t.m.state == TableState.DEALING and t.journal("transition")[-1]["rule"] == "MD-X3"

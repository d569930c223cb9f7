"""Deal validator: fault injection for every misdeal path (MD-S1, MD-S2, MD-S3), UTH-11."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from controller.engine.cards import parse_cards
from controller.engine.deal.validator import (
    DealValidator,
    Packet,
    VerdictStatus,
    holdem_plan,
)


def pk(dest, cards, up=None):
    cs = tuple(parse_cards(cards)) if cards else ()
    return Packet(dest, cs, tuple(up) if up else (False,) * len(cs))


GOOD = [
    pk("community", "2c 7d 9h Js Qs"),
    pk("seat:1", "As Ad"),
    pk("seat:3", "Kd Tc"),
    pk("dealer", "3c 4d"),
]


def run(packets, seats=(1, 3)):
    v = DealValidator(holdem_plan(seats), started=0.0)
    verdicts = [v.packet(p, now=float(i)) for i, p in enumerate(packets, 1)]
    return v, verdicts


def test_uth11_plan_order():
    plan = holdem_plan([3, 1, 5])
    assert [(p.destination, p.count) for p in plan.packets] == [
        ("community", 5),
        ("seat:1", 2),
        ("seat:3", 2),
        ("seat:5", 2),
        ("dealer", 2),
    ]
    assert plan.total_cards == 13


def test_good_deal_is_verified_at_the_last_packet():
    v, verdicts = run(GOOD)
    assert [x.status for x in verdicts] == [
        VerdictStatus.OK,
        VerdictStatus.OK,
        VerdictStatus.OK,
        VerdictStatus.VERIFIED,
    ]
    assert v.next_deadline() is None


def test_wrong_count_to_a_player_is_md_s1():
    packets = [GOOD[0], pk("seat:1", "As Ad 5c"), *GOOD[2:]]
    v, verdicts = run(packets)
    assert verdicts[1].status == VerdictStatus.MISDEAL and verdicts[1].rule == "MD-S1"
    assert "seat:1 received 3 card(s), expected 2" in verdicts[1].reason
    assert all(x.rule == "MD-S1" for x in verdicts[1:])  # stays void


def test_wrong_count_to_the_dealer_is_md_s1():
    _, verdicts = run([*GOOD[:3], pk("dealer", "3c")])
    assert verdicts[-1].rule == "MD-S1"


def test_packet_to_the_wrong_place_is_md_s1():
    _, verdicts = run([GOOD[0], GOOD[2]])  # seat 1 skipped
    assert verdicts[1].rule == "MD-S1"
    assert "went to seat:3" in verdicts[1].reason


def test_extra_packet_after_the_deal_is_md_s1():
    v, _ = run(GOOD)
    assert v.packet(pk("seat:1", "5h 6h"), now=9.0).rule == "MD-S1"


def test_fault_during_deal_is_md_s2_but_not_after_verification():
    v, _ = run(GOOD[:2])
    verdict = v.fault("jam in the elevator", now=3.0)
    assert verdict.rule == "MD-S2" and "jam" in verdict.reason
    v, _ = run(GOOD)
    assert v.fault("door open", now=9.0).status == VerdictStatus.VERIFIED


def test_timeout_is_md_s2_on_a_fake_clock():
    v = DealValidator(holdem_plan([1]), started=100.0, packet_timeout=5.0)
    assert v.next_deadline() == 105.0
    assert v.poll(104.9).status == VerdictStatus.OK
    v.packet(GOOD[0], now=104.0)
    assert v.next_deadline() == 109.0  # each packet restarts the clock
    verdict = v.poll(109.0)
    assert verdict.rule == "MD-S2" and "waiting for 2 card(s) to seat:1" in verdict.reason


def test_duplicate_card_is_a_deck_error_md_s2():
    _, verdicts = run([GOOD[0], pk("seat:1", "As 2c"), GOOD[2], GOOD[3]])
    assert verdicts[1].rule == "MD-S2" and verdicts[1].deck_error
    assert "2c" not in verdicts[1].reason  # the public reason names no card
    # where, not which: the detail is journaled, and the journal carries no card identity
    assert verdicts[1].detail == "a card delivered 2 times (community, seat:1)"


def test_card_code_outside_the_deck_is_md_s2():
    bad = Packet("community", (1, 2, 3, 4, 60), (False,) * 5)
    _, verdicts = run([bad])
    assert verdicts[0].rule == "MD-S2" and verdicts[0].deck_error
    assert "code 60" in verdicts[0].detail


def test_one_exposed_card_is_noted_two_are_md_s3():
    up = pk("seat:1", "As Ad", [True, False])
    _, verdicts = run([GOOD[0], up, *GOOD[2:]])
    assert verdicts[1].status == VerdictStatus.OK and "one card exposed" in verdicts[1].notes[0]
    assert verdicts[-1].status == VerdictStatus.VERIFIED
    _, verdicts = run([GOOD[0], up, pk("seat:3", "Kd Tc", [False, True])])
    assert verdicts[2].rule == "MD-S3" and "2 cards exposed" in verdicts[2].reason


def test_unrecognised_cards_are_counted_not_identified():
    blind = [Packet(p.destination, (None,) * p.count, (False,) * p.count) for p in GOOD]
    _, verdicts = run(blind)
    assert verdicts[-1].status == VerdictStatus.VERIFIED


def test_face_up_flags_must_match_count():
    _, verdicts = run([Packet("community", (1, 2, 3, 4, 5), (False,))])
    assert verdicts[0].rule == "MD-S2"


def test_plan_needs_seats_and_a_hand_forming_game():
    with pytest.raises(ValueError):
        holdem_plan([])
    with pytest.raises(ValueError):
        holdem_plan([1], game="blackjack")


@given(
    st.lists(st.integers(1, 7), min_size=1, max_size=7, unique=True),
    st.permutations(range(52)),
    st.integers(0, 20),
    st.integers(-1, 1),
)
def test_any_single_count_error_is_caught(seats, deck, which, delta):
    plan = holdem_plan(seats)
    v = DealValidator(plan, started=0.0)
    target = which % len(plan.packets)
    pos = 0
    verdict = None
    for i, planned in enumerate(plan.packets):
        n = planned.count + (delta if i == target else 0)
        cards = tuple(deck[pos : pos + n])
        pos += n
        verdict = v.packet(Packet(planned.destination, cards, (False,) * n), now=float(i))
    assert verdict is not None
    if delta == 0:
        assert verdict.status == VerdictStatus.VERIFIED
    else:
        assert verdict.status == VerdictStatus.MISDEAL and verdict.rule == "MD-S1"

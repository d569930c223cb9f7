"""Misdeals against RULES.md section 6 (MD-S1..S3, the void) and UTH-11's shuffler deal order:
the deal validator's verdicts packet by packet, and a voided round in the ledger returning
every stake, the progressive included, with the pool's contribution reversed to the cent.
(``croupier settle`` settles dealt rounds only; a misdeal never reaches it.)"""

from __future__ import annotations

from fractions import Fraction

import pytest

from controller.books.ledger.store import Ledger
from controller.engine.deal.validator import (
    COMMUNITY,
    DEALER,
    DealValidator,
    Packet,
    PlannedPacket,
    VerdictStatus,
    holdem_plan,
)
from controller.engine.pools.config import pool_config
from controller.engine.pools.meters import contribute, new_pool, reverse
from controller.engine.profiles import load_profile

UTH_GR = load_profile("uth-gr")


def packet(destination: str, *cards: int, up: tuple[bool, ...] | None = None) -> Packet:
    return Packet(destination, cards, up or (False,) * len(cards))


def dealt(validator: DealValidator, *packets: Packet):
    verdict = None
    for p in packets:
        verdict = validator.packet(p, 1.0)
    return verdict


def test_shuffler_deal_order_is_community_then_seats_left_to_right_then_dealer_uth11():
    plan = holdem_plan([3, 1])
    assert plan.packets == (
        PlannedPacket(COMMUNITY, 5),
        PlannedPacket("seat:1", 2),
        PlannedPacket("seat:3", 2),
        PlannedPacket(DEALER, 2),
    )


def full_deal() -> list[Packet]:
    return [
        packet(COMMUNITY, 0, 1, 2, 3, 4),
        packet("seat:1", 5, 6),
        packet("seat:3", 7, 8),
        packet(DEALER, 9, 10),
    ]


def test_the_whole_plan_with_the_right_counts_is_verified():
    verdict = dealt(DealValidator(holdem_plan([1, 3]), started=0.0), *full_deal())
    assert verdict.status == VerdictStatus.VERIFIED  # the green light (UTH-11, Italian)


@pytest.mark.parametrize(
    ("index", "wrong"),
    [
        (1, packet("seat:1", 5, 6, 11)),  # three cards to a player
        (3, packet(DEALER, 9)),  # the dealer one card short
        (1, packet("seat:3", 5, 6)),  # a player skipped
    ],
)
def test_a_wrong_number_of_cards_to_a_player_or_the_dealer_voids_all_hands_md_s1(index, wrong):
    packets = full_deal()
    packets[index] = wrong
    validator = DealValidator(holdem_plan([1, 3]), started=0.0)
    verdict = dealt(validator, *packets[: index + 1])
    assert (verdict.status, verdict.rule) == (VerdictStatus.MISDEAL, "MD-S1")
    assert (
        validator.packet(packets[-1], 2.0).status == VerdictStatus.MISDEAL
    )  # the round stays void


def test_an_extra_packet_after_the_verified_deal_is_md_s1():
    validator = DealValidator(holdem_plan([1, 3]), started=0.0)
    dealt(validator, *full_deal())
    assert validator.packet(packet("seat:1", 11), 2.0).rule == "MD-S1"


def test_a_shuffler_malfunction_voids_all_hands_md_s2():
    validator = DealValidator(holdem_plan([1]), started=0.0, packet_timeout=10.0)
    validator.packet(packet(COMMUNITY, 0, 1, 2, 3, 4), 1.0)
    assert validator.fault("jam", 2.0).rule == "MD-S2"
    silent = DealValidator(holdem_plan([1]), started=0.0, packet_timeout=10.0)
    assert silent.poll(9.9).status == VerdictStatus.OK
    assert silent.poll(10.0).rule == "MD-S2"  # no packet for 10 s: a malfunction
    twice = DealValidator(holdem_plan([1]), started=0.0)  # one card delivered twice
    assert dealt(twice, packet(COMMUNITY, 0, 1, 2, 3, 4), packet("seat:1", 4, 5)).rule == "MD-S2"


def test_two_exposed_cards_are_a_misdeal_one_is_not_md_s3():
    validator = DealValidator(holdem_plan([1, 3]), started=0.0)
    deal = full_deal()
    one = validator.packet(packet(COMMUNITY, 0, 1, 2, 3, 4, up=(True,) + (False,) * 4), 1.0)
    assert one.status == VerdictStatus.OK and "MD-S3 needs two" in one.notes[0]
    second = validator.packet(packet("seat:1", 5, 6, up=(False, True)), 1.0)
    assert (second.status, second.rule) == (VerdictStatus.MISDEAL, "MD-S3")
    assert validator.packet(deal[2], 1.0).status == VerdictStatus.MISDEAL


# --- the void: every wager returned, the contribution reversed ---------------------------------


def test_a_voided_round_returns_every_stake_progressive_included_and_reverses_the_pool(tmp_path):
    pool = pool_config("uth", UTH_GR.progressive, seed=500_000)
    stakes = {
        1: {"ante": 1000, "blind": 1000, "trips": 500, "progressive": 100},
        2: {"ante": 2000, "blind": 2000, "progressive": 100},
    }
    with Ledger.open(tmp_path / "ledger.sqlite3", now=0.0, wall_clock=lambda: 1.7e9) as ledger:
        ledger.configure_pool(pool, 0.0)
        opened = ledger.open_round("r1", stakes, 1.0)
        assert opened.pools == {"uth": 500_000 + 30}  # 15% of the 200 progressive (PRG-1)
        voided = ledger.void_round("r1", 2.0, rule="MD-S3", cause="two cards exposed")
        assert voided.returned == stakes  # every wager back, the progressive too (MD, PRG-2)
        assert voided.pools == {"uth": 500_000}
        record = ledger.round("r1")
        assert (record.state, record.rule, record.paid_total) == ("voided", "MD-S3", 6700)


def test_reversing_a_contribution_is_exact_to_the_fraction_of_a_cent():
    # a 17.5% rate (inside PRG-1's 15-20% band): each 100-cent stake adds 17.5 cents
    pool = pool_config("uth", UTH_GR.progressive, seed=500_000, contribution_rate="17.5%")
    state = new_pool(pool)
    state, first = contribute(state, pool, 100)  # 17 cents shown, half a cent carried
    state, _ = contribute(state, pool, 100)  # 35 cents shown in all, nothing carried
    assert (state.current, state.carry.num) == (500_035, 0)
    state, _ = reverse(state, first)  # the first round is voided: 17.5 cents back out
    assert state.current == 500_017 and Fraction(state.carry.num, state.carry.den) == Fraction(1, 2)
    assert (state.voids, state.stakes_returned, state.rounds) == (1, 100, 1)

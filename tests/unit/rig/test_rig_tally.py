"""The rig's own books (controller.rig.tally) against the controller's: the progressive
classifier against the game engine, the pool meters against a real ledger."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from controller.books.ledger.store import Ledger
from controller.engine import games
from controller.engine.cards import card_name, parse_cards
from controller.engine.pools.config import pool_config
from controller.engine.profiles import load_profile
from controller.rig.dealer import Hands, royal_order
from controller.rig.tally import PoolTally, uth_progressive_line

GR = load_profile("uth-gr")
SEVEN = st.lists(st.integers(0, 51), min_size=7, max_size=7, unique=True)
# spades, and every nine and king: flushes, straight flushes, royals, quads and full houses
RICH = sorted({c for c in range(52) if c % 4 == 3 or c // 4 in (7, 11)})
SEVEN_RICH = st.lists(st.sampled_from(RICH), min_size=7, max_size=7, unique=True)


def engine_line(hole, community):
    """The progressive line the game engine pays one seat (PRG-3)."""
    record = {
        "profile": "uth-gr",
        "dealer": [card_name(c) for c in range(52) if c not in (*hole, *community)][:2],
        "community": [card_name(c) for c in community],
        "pools": {"progressive": {"amount": 600_000, "seed": 500_000}},
        "seats": [
            {"seat": 1, "cards": [card_name(c) for c in hole], "stakes": {"progressive": 100}}
        ],
    }
    wager = games.settle(GR, record).seats[0].wagers["progressive"]
    return wager.line


@settings(max_examples=300, deadline=None)
@given(st.one_of(SEVEN, SEVEN_RICH))
def test_classifier_agrees_with_the_engine(cards):
    hole, community = cards[:2], cards[2:]
    assert uth_progressive_line(hole, community) == engine_line(hole, community)


@pytest.mark.parametrize(
    ("hole", "board", "line"),
    [
        ("As Ks", "Qs Js Ts 2c 3d", "royal-flush"),
        ("2c 3d", "As Ks Qs Js Ts", "community-royal"),
        ("Ah 2h", "3h 4h 5h 9c 9d", "straight-flush"),  # the wheel (POK-4)
        ("9c 9d", "9h 9s 2c 3d 4h", "four-of-a-kind"),
        ("9c 9d", "9h 2s 2c 3d 3h", "full-house"),  # trips and two pairs: a full house
        ("9c 9d", "9h 2s 2c 2d 4h", "full-house"),  # two trips
        ("Qh Kh", "Ah 2h 3h 4c 5d", None),  # no wrap-around, a flush pays nothing here
    ],
)
def test_classifier_lines(hole, board, line):
    assert uth_progressive_line(parse_cards(hole), parse_cards(board)) == line


def test_royal_orders_deal_what_they_promise():
    rng = random.Random(3)
    for seats in [(1,), (2, 5), (1, 3, 4, 6)]:
        for community in (False, True):
            order = royal_order(seats, rng, community=community)
            hands = Hands.from_delivery(order, seats)
            assert len(set(order)) == len(order) == 7 + 2 * len(seats)
            first = hands.seats[seats[0]]
            want = "community-royal" if community else "royal-flush"
            assert uth_progressive_line(first, hands.community) == want


def test_pool_tally_matches_the_ledger_round_for_round(tmp_path):
    """Random rounds: opened, voided or settled with random lines; the rig's meters equal the
    ledger's after every round (the soak's reconciliation in miniature)."""
    pool = pool_config("main", GR.progressive, seed=500_000, contribution_rate="17%")
    tally = PoolTally(pool)
    rng = random.Random(7)
    lines = [
        None,
        None,
        None,
        "full-house",
        "four-of-a-kind",
        "straight-flush",
        "community-royal",
        "royal-flush",
    ]
    with Ledger.open(tmp_path / "ledger.sqlite3", now=0.0) as ledger:
        ledger.configure_pool(pool, 0.0)
        for n in range(1, 120):
            rid = f"r{n}"
            seats = rng.sample(range(1, 7), rng.randint(1, 4))
            stakes = dict.fromkeys(seats, 100)
            ledger.open_round(rid, {s: {"progressive": 100} for s in seats}, float(n))
            tally.opened(rid, stakes)
            if rng.random() < 0.2:
                ledger.void_round(rid, float(n), rule="MD-S1", cause="test")
                tally.voided(rid)
            else:
                hit = {s: rng.choice(lines) for s in seats}
                pool_wins = [s for s, line in hit.items() if line == "royal-flush"]
                for s in pool_wins[1:]:  # one deck: one pool win at most
                    hit[s] = None
                done = ledger.settle_round(
                    rid, float(n), hits={"main": {s: x for s, x in hit.items() if x}}
                )
                paid = tally.settled(rid, hit)
                assert {
                    s: w.get("progressive", 0) + w.get("envy", 0) for s, w in done.paid.items()
                } == paid
            row = ledger.pool("main")[1].to_row()
            assert tally.differences("ledger", row) == [], f"after {rid}"
    assert tally.problems == []


def test_differences_name_the_meter_and_both_values():
    tally = PoolTally(pool_config("main", GR.progressive, seed=500_000))
    meters = {**tally.meters, "current": 500_001}
    assert tally.differences("ledger", meters) == ["current: rig 500000, ledger 500001"]

"""Progressive award resolution (PRG-2..5, CH-8, CH-9): amounts worked out by hand."""

from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

from controller.engine.paytable import FixedPerUnit, Odds, PoolPercent
from controller.engine.pools.awards import largest_remainder_split, resolve_awards

JACKPOT = ("royal-flush", PoolPercent(Fraction(100)))
SF = ("straight-flush", Odds(300, 1))
COMMUNITY = ("community-royal", Odds(1000, 1))


def resolve(hits, stakes, **kw):
    kw.setdefault("pool", 1_000_000)
    kw.setdefault("seed", 500_000)
    kw.setdefault("unit_stake", 100)
    return resolve_awards(hits=hits, stakes=stakes, **kw)


def test_single_royal_wins_pool_and_resets_to_seed_with_envy():
    out = resolve({1: JACKPOT, 2: None, 3: SF}, {1: 100, 2: 100, 3: 100}, envy_bonus=10_000)
    assert out.awards[1].amount == 1_000_000  # PRG-3 100%
    assert out.awards[3].amount == 30_000  # 300:1 on 100, stake not returned (PRG-2)
    assert out.awards[2].amount == 0
    assert [out.awards[s].envy for s in (1, 2, 3)] == [0, 10_000, 10_000]  # PRG-4
    assert out.pool_after == 500_000 and out.resets == 1  # PRG-5
    assert out.jackpot_paid == 1_000_000
    assert out.house_paid == 30_000 + 20_000


def test_community_royal_pays_odds_not_pool_and_no_envy():
    out = resolve({1: COMMUNITY, 2: None}, {1: 100, 2: 100}, envy_bonus=10_000)
    assert out.awards[1].amount == 100_000  # 1000:1 (PRG-3)
    assert out.pool_after == 1_000_000
    assert out.awards[2].envy == 0


def test_two_royals_split_equally_with_odd_cent():
    out = resolve(
        {1: JACKPOT, 4: JACKPOT, 5: None},
        {1: 100, 4: 100, 5: 100},
        pool=1_000_001,
        envy_bonus=10_000,
    )
    assert out.awards[1].amount == 500_001  # leftover cent to the lower seat (tie)
    assert out.awards[4].amount == 500_000
    assert out.jackpot_paid == 1_000_001
    # PRG-4: a pool winner is paid no envy, not even for the other's win; seat 5 for both
    assert [out.awards[s].envy for s in (1, 4, 5)] == [0, 0, 20_000]
    assert out.pool_after == 500_000


def test_two_royals_in_seat_order():
    out = resolve({4: JACKPOT, 1: JACKPOT}, {1: 100, 4: 100}, multiple_hits="seat-order")
    assert out.awards[1].amount == 1_000_000
    assert out.awards[4].amount == 500_000  # 100% of the pool reset to seed
    assert out.pool_after == 500_000 and out.resets == 2
    assert out.order == [1, 4]


def test_share_round_by_stake_with_fixed_lines_on_top():
    seven = ("seven-card-straight-flush", PoolPercent(Fraction(100)))
    flush = ("flush", FixedPerUnit(400))
    out = resolve(
        {1: seven, 2: flush, 3: None}, {1: 100, 2: 200, 3: 100}, pool=1_000_000, award="share-round"
    )
    # 1,000,000 by stakes 1:2:1 -> 250,000 / 500,000 / 250,000 (CH-9)
    assert out.awards[1].amount == 250_000
    assert out.awards[2].share == 500_000 and out.awards[2].amount == 800  # 400 per unit x 2
    assert out.awards[3].share == 250_000
    assert out.jackpot_paid == 1_000_000


def test_partial_percentage_leaves_rest_in_pool():
    out = resolve({1: ("royal-flush", PoolPercent(Fraction(10)))}, {1: 100}, pool=1_000_005)
    assert out.awards[1].amount == 100_000  # floor(10% of 1,000,005)
    assert out.pool_after == 900_005 and out.resets == 0


def test_seats_must_match():
    with pytest.raises(ValueError):
        resolve({1: None}, {2: 100})


@given(st.integers(0, 10**9), st.dictionaries(st.integers(1, 7), st.integers(1, 10**6), min_size=1))
def test_split_is_exact_and_proportional(total, weights):
    shares = largest_remainder_split(total, weights)
    assert sum(shares.values()) == total
    wsum = sum(weights.values())
    for k, w in weights.items():
        assert abs(shares[k] - Fraction(total * w, wsum)) < 1

"""CH-9 across the link, the pure part: the split of a jackpot hit at one table over every
participating round in play (``resolve_awards(..., others=...)``), what a participating round
receives at its own settlement (``received``) and a voided round's share returned to the pool
(``meters.return_shares``). Property tests: the shares sum exactly to the award, each within
a cent of its proportional part, the same whatever order the rounds are given in."""

import json
import random
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from controller.engine.games import settle
from controller.engine.paytable import FixedPerUnit, PoolPercent
from controller.engine.pools.awards import outcome_from_json, outcome_to_json, resolve_awards
from controller.engine.pools.config import pool_config
from controller.engine.pools.meters import (
    PoolArithmeticError,
    award,
    contribute,
    identity_problems,
    new_pool,
    resolve,
    return_shares,
)
from controller.engine.profiles import load_profile

REPO = Path(__file__).resolve().parents[3]
JACKPOT = ("seven-card-straight-flush", PoolPercent(100))
RULES = load_profile("ch-bg").progressive
units = st.integers(1, 20).map(lambda u: u * 100)
here = st.dictionaries(st.integers(1, 7), units, min_size=1, max_size=7)
others = st.dictionaries(
    st.tuples(
        st.sampled_from(["T-02", "T-03", "T-10"]), st.sampled_from(["R1", "R2"]), st.integers(1, 7)
    ),
    units,
    max_size=12,
)


def hit(stakes, pool, link, received=None):
    hitter = min(stakes)
    return resolve_awards(
        hits={s: JACKPOT if s == hitter else None for s in stakes},
        stakes=stakes,
        pool=pool,
        seed=0,
        unit_stake=100,
        award="share-round",
        others=link,
        received=received,
    )


@given(stakes=here, link=others, pool=st.integers(0, 10**10))
def test_the_shares_sum_to_the_award_within_a_cent_of_proportion(stakes, link, pool):
    outcome = hit(stakes, pool, link)
    mine = {s: a.amount + a.share for s, a in outcome.awards.items()}
    assert sum(mine.values()) + sum(outcome.link_shares.values()) == outcome.jackpot_paid == pool
    weight = sum(stakes.values()) + sum(link.values())
    parts = [(mine[s], stakes[s]) for s in stakes] + [
        (outcome.link_shares.get(k, 0), v) for k, v in link.items()
    ]
    for share, stake in parts:
        assert abs(share * weight - pool * stake) < weight  # |share - exact| < 1 cent
    assert outcome.house_paid == 0


@given(stakes=here, link=others, pool=st.integers(0, 10**10), order=st.randoms())
def test_the_split_does_not_depend_on_the_order_rounds_are_given_in(stakes, link, pool, order):
    keys = list(link)
    order.shuffle(keys)
    again = hit(stakes, pool, {k: link[k] for k in keys})
    assert again == hit(stakes, pool, link)


def test_remainder_ties_go_to_the_hitting_table_then_by_table_round_seat():
    # 3 equal stakes over 2 tables, 100 cents: 33.33 each, one cent left: the hitting table
    outcome = hit({4: 100}, 100, {("T-02", "R1", 1): 100, ("T-01", "R9", 2): 100})
    assert outcome.awards[4].amount == 34
    # 4 equal stakes, 102 cents: 25.5 each, two cents: the hitter, then T-01 before T-02
    outcome = hit(
        {4: 100}, 102, {("T-02", "R1", 1): 100, ("T-01", "R9", 2): 100, ("T-02", "R1", 3): 100}
    )
    assert outcome.awards[4].amount == 26
    assert outcome.link_shares == {
        ("T-01", "R9", 2): 26,
        ("T-02", "R1", 1): 25,
        ("T-02", "R1", 3): 25,
    }


def test_a_received_share_is_paid_from_the_pool_without_drawing_on_it_again():
    outcome = resolve_awards(
        hits={1: ("flush", FixedPerUnit(400)), 2: None},
        stakes={1: 100, 2: 200},
        pool=5000,
        seed=0,
        unit_stake=100,
        award="share-round",
        received={1: 700, 2: 1400},
    )
    assert (outcome.awards[1].amount, outcome.awards[1].share) == (400, 700)
    assert (outcome.awards[2].share, outcome.awards[2].from_pool) == (1400, 1400)
    assert outcome.jackpot_paid == 0 and outcome.pool_after == 5000
    assert outcome.house_paid == 400  # the flush only
    assert outcome_from_json(outcome_to_json(outcome)) == outcome
    with pytest.raises(ValueError, match="received shares"):
        resolve_awards(
            hits={1: None},
            stakes={1: 100},
            pool=0,
            seed=0,
            unit_stake=100,
            award="share-round",
            received={3: 10},
        )


@pytest.mark.parametrize("cap", [None, 100_050])
def test_a_voided_rounds_share_returns_to_the_pool_and_the_meters_hold(cap):
    config = pool_config("jumbo7", RULES, seed=100_000, cap=cap)
    state, _ = contribute(new_pool(config), config, 400)
    state, _ = contribute(state, config, 100)
    link = {("T-02", "R1", 2): 100}
    outcome = resolve(state, config, {1: JACKPOT[0]}, {1: 400}, others=link)
    state = award(state, config, outcome)
    share = outcome.link_shares[("T-02", "R1", 2)]
    jackpot = min(100_100, cap or 100_100)  # 500 staked feed 100 cents, up to the cap
    assert share == jackpot // 5 and state.current == 100_000  # reset to the seed (PRG-5)
    after, returned = return_shares(state, config, {2: share})
    assert identity_problems(after, config) == []
    assert returned.to_current + returned.to_reserve == share
    assert after.current == 100_000 + returned.to_current
    assert after.won_from_pool == state.won_from_pool - returned.to_current
    # a cap keeps the displayed amount at most at the cap; the rest goes to the reserve
    assert returned.to_current == (share if cap is None else cap - 100_000)
    assert after.reserve == state.reserve + returned.to_reserve
    with pytest.raises(PoolArithmeticError):
        return_shares(state, config, {2: -1})


def test_random_link_rounds_never_create_or_lose_a_cent():
    rng = random.Random(9)
    for _ in range(200):
        stakes = {s: rng.randrange(1, 5) * 100 for s in rng.sample(range(1, 8), 3)}
        link = {("T-02", "R", s): rng.randrange(1, 5) * 100 for s in range(1, 4)}
        pool = rng.randrange(10**9)
        outcome = hit(stakes, pool, link)
        paid = sum(a.amount + a.share for a in outcome.awards.values())
        assert paid + sum(outcome.link_shares.values()) == pool


def test_the_documented_example_file_settles_to_the_documented_shares():
    data = json.loads((REPO / "examples" / "ch-bg-jumbo7-link.json").read_text())
    result = settle(load_profile(data.pop("profile")), data)
    seats = {s.seat: s for s in result.seats}
    assert seats[1].wagers["jumbo7"].paid == 14306
    assert seats[2].wagers["jackpot-share"].paid == 28611
    owed = {(e["table"], e["seat"]): e["share"] for e in result.pools["jumbo7"]["link_shares"]}
    assert owed == {("T-BG-02", 1): 14306, ("T-BG-02", 3): 42917}

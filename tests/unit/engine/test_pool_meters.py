"""Pool meters: exact contributions with carried remainders, caps, voids, awards, corrections.

The property tests drive random sequences of every movement and check after each step that
the meter identities hold and that no fraction of a cent was created or lost: per stream,
the whole units credited plus the carry equal the exact sum of stake x rate.
"""

from dataclasses import replace
from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

from controller.engine.pools.config import pool_config
from controller.engine.pools.meters import (
    Carry,
    PoolArithmeticError,
    PoolState,
    award,
    contribute,
    correct,
    identity_problems,
    new_pool,
    resolve,
    reverse,
)
from controller.engine.profiles import load_profile

UTH = load_profile("uth-gr").progressive
JUMBO = load_profile("ch-bg").progressive


def config(**kw):
    kw.setdefault("seed", 500_000)
    rules = kw.pop("rules", UTH)
    return pool_config(kw.pop("name", "uth"), rules, **kw)


def test_carry_adds_exactly_and_floors_negative_amounts():
    whole, carry = Carry().add(3, 20)  # 15% of one cent
    assert (whole, carry) == (0, Carry(3, 20))
    whole, carry = carry.add(18, 20)
    assert (whole, carry) == (1, Carry(1, 20))
    whole, carry = carry.add(-3, 20)  # taking back more than the carry borrows a unit
    assert (whole, carry) == (-1, Carry(9, 10))


def test_fifteen_percent_of_one_cent_stakes_is_carried_not_rounded():
    cfg = config(seed=0)
    state = new_pool(cfg)
    for _ in range(19):
        state, c = contribute(state, cfg, 1)
    assert state.current == 2  # 19 x 0.15 = 2.85
    assert state.carry == Carry(17, 20)
    state, c = contribute(state, cfg, 1)
    assert c.to_current == 1 and state.current == 3 and state.carry == Carry()  # 20 x 0.15


def test_cap_diverts_whole_units_to_the_reserve():
    cfg = config(seed=1000, cap=1010)
    state = new_pool(cfg)
    state, c = contribute(state, cfg, 100)  # +15 -> 1015 > cap
    assert (c.to_current, c.overflow) == (10, 5)
    assert state.current == 1010 and state.reserve == 5 and state.overflow == 5
    state, c = contribute(state, cfg, 100)
    assert (c.to_current, c.overflow) == (0, 15)
    assert identity_problems(state, cfg) == []


def test_void_right_after_open_restores_the_pool_exactly():
    cfg = config(seed=1000, cap=1010, reserve_rate="1/3%")
    state = new_pool(cfg)
    state, _ = contribute(state, cfg, 7)
    before = state
    state, c = contribute(state, cfg, 100)
    state, r = reverse(state, c)
    assert (r.from_current, r.from_overflow, r.from_reserve) == (
        c.to_current,
        c.overflow,
        c.to_reserve,
    )
    assert replace(state, voids=0, stakes_returned=0) == before
    assert state.voids == 1 and state.stakes_returned == 100


def test_royal_wins_the_pool_and_the_reserve_funds_the_seed():
    cfg = config(seed=1000, reserve_rate="5%")
    state = new_pool(cfg)
    state, _ = contribute(state, cfg, 10_000)  # +1500 shown, +500 reserve
    outcome = resolve(state, cfg, {1: "royal-flush", 2: "full-house"}, {1: 100, 2: 100})
    after = award(state, cfg, outcome)
    assert outcome.awards[1].amount == 2500  # 100% of the pool (PRG-3)
    assert after.current == 1000  # reset to seed (PRG-5)
    assert after.reserve == 0 and after.seeded_reserve == 500 and after.seeded_house == 1500
    assert after.won_from_pool == 2500 and after.hits == 1
    assert after.won_fixed == 1000  # full house 10:1 on 100, paid by the house
    assert after.envy_paid == 10_000  # PRG-4: seat 2 envies seat 1
    assert (after.cycle, after.cycle_start, after.cycle_won) == (1, 1000, 0)
    assert identity_problems(after, cfg) == []


def test_stale_outcome_is_refused():
    cfg = config()
    state = new_pool(cfg)
    outcome = resolve(state, cfg, {1: "royal-flush"}, {1: 100})
    state, _ = contribute(state, cfg, 100)
    with pytest.raises(PoolArithmeticError, match="resolved on"):
        award(state, cfg, outcome)


def test_corrections_keep_the_identities():
    cfg = config(seed=1000, cap=5000)
    state = correct(new_pool(cfg), cfg, "current", 1234)
    state = correct(state, cfg, "reserve", 77)
    assert state.corrections == 234 and state.reserve_corrections == 77
    assert identity_problems(state, cfg) == []
    with pytest.raises(PoolArithmeticError, match="cap"):
        correct(state, cfg, "current", 5001)
    with pytest.raises(PoolArithmeticError, match="only current and reserve"):
        correct(state, cfg, "hits", 0)


def test_identity_problems_name_a_tampered_meter():
    cfg = config()
    state = replace(new_pool(cfg), current=500_001)
    problems = identity_problems(state, cfg)
    assert problems and "current 500001" in problems[0]


def test_row_round_trip():
    cfg = config(reserve_rate="1/7%")
    state, _ = contribute(new_pool(cfg), cfg, 13)
    assert PoolState.from_row(state.to_row()) == state


# -- properties ------------------------------------------------------------------------------

RATES = st.sampled_from(["15%", "16.5%", "0.175", "1/6", "20%"])
RESERVES = st.sampled_from(["0", "1%", "1/3%", "2.5%"])
OPS = st.lists(
    st.one_of(
        st.tuples(st.just("open"), st.integers(1, 700)),
        st.tuples(st.just("void"), st.integers(0, 10)),
        st.tuples(st.just("hit"), st.sampled_from(["royal-flush", "full-house", None])),
        st.tuples(st.just("rate"), RATES),
        st.tuples(st.just("correct"), st.integers(0, 3000)),
    ),
    max_size=60,
)


@given(OPS, RESERVES, st.sampled_from([None, 1200, 3000]), st.sampled_from([UTH, JUMBO]))
def test_no_fraction_of_a_cent_is_created_or_lost(ops, reserve_rate, cap, rules):
    cfg = config(seed=1000, reserve_rate=reserve_rate, cap=cap, rules=rules, name="p")
    if rules is JUMBO:
        cfg = replace(cfg, contribution_rate=Fraction(1, 6))
    state = new_pool(cfg)
    shown_exact = reserve_exact = Fraction(0)
    open_rounds = []
    for op, arg in ops:
        if op == "open":
            state, c = contribute(state, cfg, arg)
            open_rounds.append(c)
            shown_exact += arg * c.rate
            reserve_exact += arg * c.reserve_rate
        elif op == "void" and open_rounds:
            c = open_rounds.pop(arg % len(open_rounds))
            try:
                state, _ = reverse(state, c)
            except PoolArithmeticError:  # only when a reset emptied what it fed
                open_rounds.append(c)
                continue
            shown_exact -= c.stake * c.rate
            reserve_exact -= c.stake * c.reserve_rate
        elif op == "hit":
            line = "seven-card-straight-flush" if arg == "royal-flush" and rules is JUMBO else arg
            line = "flush" if line == "full-house" and rules is JUMBO else line
            outcome = resolve(state, cfg, {1: line, 2: None}, {1: 100, 2: 200})
            state = award(state, cfg, outcome)
            assert outcome.jackpot_paid + (outcome.pool_after - outcome.resets * cfg.seed) == (
                outcome.pool_before
            )
        elif op == "rate" and rules is UTH:
            cfg = config(
                seed=1000, reserve_rate=reserve_rate, cap=cap, contribution_rate=arg, name="p"
            )
        elif op == "correct" and (cap is None or arg <= cap):
            state = correct(state, cfg, "current", arg)
        assert identity_problems(state, cfg) == []
        carry = Fraction(state.carry.num, state.carry.den)
        assert state.contributions + state.overflow + carry == shown_exact
        reserve_carry = Fraction(state.reserve_carry.num, state.reserve_carry.den)
        assert state.reserve_contributions + reserve_carry == reserve_exact
        assert state.stakes_in == sum(c.stake for c in open_rounds)

"""The odometer roll-up, on a fake clock (time is just a number here)."""

from hypothesis import given
from hypothesis import strategies as st

from display.odometer import Odometer


def test_rolls_up_linearly_and_lands_on_the_meter():
    odo = Odometer(10_000, roll_seconds=2.0)
    odo.set(10_200, now=100.0)
    assert odo.value(100.0) == 10_000
    assert odo.value(100.5) == 10_050
    assert odo.value(101.0) == 10_100
    assert odo.next_tick(101.9, 0.5) == 102.0
    assert odo.value(102.0) == 10_200
    assert odo.next_tick(102.0, 0.5) is None


def test_new_contribution_mid_roll_continues_from_what_is_shown():
    odo = Odometer(0, roll_seconds=2.0)
    odo.set(1000, now=0.0)
    odo.set(2000, now=1.0)  # 500 shown at that instant
    assert odo.value(1.0) == 500
    assert odo.value(2.0) == 1250
    assert odo.value(3.0) == 2000


def test_award_or_reset_drops_at_once():
    odo = Odometer(5_000_000, roll_seconds=2.0)
    odo.set(100_000, now=7.0)  # PRG-5: reset to seed after a 100% award
    assert odo.value(7.0) == 100_000
    assert odo.next_tick(7.0, 0.1) is None


def test_zero_roll_time_jumps():
    odo = Odometer(1, roll_seconds=0)
    odo.set(99, now=3.0)
    assert odo.value(3.0) == 99


updates = st.lists(
    st.tuples(st.floats(0, 5, allow_nan=False), st.integers(0, 10**9)), min_size=1, max_size=12
)


@given(start=st.integers(0, 10**9), updates=updates, probes=st.lists(st.floats(0, 5), max_size=8))
def test_never_above_the_meter_and_settles(start, updates, probes):
    odo = Odometer(start, roll_seconds=1.5)
    now = 0.0
    for gap, amount in updates:
        now += gap
        odo.set(amount, now)
        for dt in probes:  # any time between this update and the next one
            assert odo.value(now + min(dt, gap)) <= amount
        assert odo.value(now) <= amount
    assert odo.value(now + 1.5) == updates[-1][1]


def test_ticks_are_aligned_to_the_roll_and_end_on_it():
    odo = Odometer(0, roll_seconds=1.0)
    odo.set(100, now=3.0)
    ticks, now = [], 3.0
    while (now := odo.next_tick(now, 0.3)) is not None:
        ticks.append(round(now, 9))
    assert ticks == [3.3, 3.6, 3.9, 4.0]
    assert odo.next_tick(4.0, 0.3) is None

"""The table I/O state machine on a fake clock: debounce, chatter, stuck sensors across rounds,
seat states, console inputs and lamp patterns. Time is a number passed in; nothing sleeps."""

import copy

import pytest

from drivers.gpio.core import SeatError, TableCore
from drivers.gpio.events import (
    ButtonPressed,
    ButtonReleased,
    KeySwitched,
    RawEdge,
    SeatCleared,
    SeatState,
    SensorChatter,
    SensorStuck,
    StakePlaced,
    StakeRemoved,
)
from drivers.gpio.pinmap import REFERENCE_GPIO, parse_gpio

DEBOUNCE = 0.030


def core(now=0.0, initial=None, report_edges=False, **overrides):
    table = copy.deepcopy(REFERENCE_GPIO) | overrides
    return TableCore(parse_gpio(table), now, initial, report_edges)


def settle(c, line, active, now):
    """A clean edge, then the poll after the debounce interval."""
    c.edge(line, active, now)
    return c.poll(now + DEBOUNCE)


# -- debounce ---------------------------------------------------------------------------------


def test_bouncing_stake_is_one_event_after_the_last_bounce_settles():
    c = core()
    for i, level in enumerate([True, False, True, False, True]):
        c.edge("seat3", level, 1.000 + i * 0.004)
    assert c.next_deadline(1.016) == pytest.approx(1.016 + DEBOUNCE)
    assert c.poll(1.045) == []  # 29 ms after the last bounce: not yet
    assert c.poll(1.5) == [StakePlaced(pytest.approx(1.046), 3, True)]  # settled at 1.046
    assert c.seat_state(3) is SeatState.STAKE_PLACED


def test_a_glitch_shorter_than_the_debounce_is_ignored():
    c = core()
    c.edge("seat1", True, 5.0)
    c.edge("seat1", False, 5.010)
    assert c.next_deadline(5.010) is None
    assert c.poll(10.0) == []
    assert c.seat_state(1) is SeatState.AWAITING


def test_debounce_interval_comes_from_the_configuration():
    c = core(debounce_ms=100)
    c.edge("seat2", True, 0.0)
    assert c.poll(0.099) == []
    assert [e.seat for e in c.poll(0.100)] == [2]


def test_stake_removed_while_bets_are_open_frees_the_seat():
    c = core()
    settle(c, "seat1", True, 0.0)
    assert settle(c, "seat1", False, 1.0) == [StakeRemoved(1.0 + DEBOUNCE, 1)]
    assert c.seat_state(1) is SeatState.AWAITING


def test_a_stake_present_at_start_up_counts_and_is_reported():
    c = core(now=5.0, initial={"seat4": True, "key": True, "lock": True})
    assert c.seat_state(4) is SeatState.STAKE_PLACED
    # the controller learns of it like of any stake (a LOCK held at start-up is no press)
    assert c.poll(5.0) == [StakePlaced(5.0, 4, True), KeySwitched(5.0, True)]
    assert c.poll(6.0) == []
    assert c.lock(6.0) == (4,)


def test_raw_edges_are_reported_on_request():
    c = core(report_edges=True)
    c.edge("seat2", True, 0.0)
    c.edge("seat2", False, 0.002)
    assert c.poll(0.003) == [RawEdge(0.0, "seat2", True), RawEdge(0.002, "seat2", False)]


# -- chatter ----------------------------------------------------------------------------------


def chatter(c, line, edges, start, spacing):
    for i in range(edges):
        c.edge(line, i % 2 == 0, start + i * spacing)


def test_chatter_excludes_the_seat():
    c = core(chatter_edges=12, chatter_window_ms=1000)
    chatter(c, "seat5", 13, 2.0, 0.05)  # 13 edges in 0.6 s
    events = c.poll(2.6)
    assert SensorChatter(2.6, 5, 13, 1.0) in events
    assert c.seat_state(5) is SeatState.EXCLUDED
    assert c.exclusion_reason(5) == "chatter"


def test_the_same_edges_spread_over_the_window_are_not_chatter():
    c = core(chatter_edges=12, chatter_window_ms=1000)
    chatter(c, "seat5", 13, 2.0, 0.1)  # 13 edges, but never more than 10 within 1 s
    assert not any(isinstance(e, SensorChatter) for e in c.poll(4.0))
    assert c.seat_state(5) is not SeatState.EXCLUDED


def test_a_flooded_sensor_keeps_a_bounded_count_and_is_excluded_once():
    """200,000 edges within the window: the counter kept every one of them in memory."""
    c = core(chatter_edges=12, chatter_window_ms=1000)
    chatter(c, "seat5", 200_000, 2.0, 1e-6)
    chatters = [e for e in c.poll(2.5) if isinstance(e, SensorChatter)]
    assert chatters == [SensorChatter(2.0 + 12e-6, 5, 13, 1.0)]
    assert len(c._seats[5].edges._times) <= 13
    assert c.seat_state(5) is SeatState.EXCLUDED


def test_exactly_the_limit_is_still_allowed():
    c = core(chatter_edges=12)
    chatter(c, "seat5", 12, 0.0, 0.01)
    assert c.seat_state(5) is not SeatState.EXCLUDED


def test_an_excluded_seat_takes_no_stake_until_cleared():
    c = core()
    chatter(c, "seat1", 14, 0.0, 0.01)  # ends inactive
    c.poll(0.2)
    assert settle(c, "seat1", True, 1.0) == []
    assert c.seat_state(1) is SeatState.EXCLUDED
    assert c.lock(2.0) == ()
    c.round_boundary(3.0)
    assert c.seat_state(1) is SeatState.EXCLUDED


def test_clear_with_the_stake_still_on_waits_for_it_to_be_lifted():
    c = core()
    chatter(c, "seat1", 13, 0.0, 0.01)  # ends active
    c.poll(1.0)
    assert c.clear(1, 2.0)
    assert c.poll(2.0) == [SeatCleared(2.0, 1)]
    assert c.seat_state(1) is SeatState.AWAITING
    assert c.lock(2.5) == ()  # the stake that was on during the fault does not count
    c.round_boundary(3.0)
    assert c.seat_state(1) is SeatState.EXCLUDED  # ... and staying on across a round is stuck


def test_clear_then_a_fresh_stake_counts():
    c = core()
    chatter(c, "seat1", 13, 0.0, 0.01)
    c.poll(1.0)
    c.clear(1, 2.0)
    settle(c, "seat1", False, 3.0)
    assert settle(c, "seat1", True, 4.0) == [StakePlaced(4.0 + DEBOUNCE, 1, True)]
    assert c.lock(5.0) == (1,)


def test_clear_of_a_healthy_seat_is_a_no_op():
    c = core()
    assert not c.clear(2, 0.0)
    assert c.poll(0.0) == []


# -- stuck sensor across rounds ----------------------------------------------------------------


def test_stake_lifted_after_the_round_frees_the_seat():
    c = core()
    settle(c, "seat2", True, 0.0)
    assert c.lock(1.0) == (2,)
    settle(c, "seat2", False, 5.0)  # the dealer collects the progressive stake (PRG-2)
    assert c.seat_state(2) is SeatState.LOCKED
    c.round_boundary(6.0)
    assert c.poll(6.0) == []
    assert c.seat_state(2) is SeatState.AWAITING


def test_stake_left_across_the_round_boundary_is_a_stuck_sensor():
    c = core()
    settle(c, "seat2", True, 0.0)
    c.lock(1.0)
    c.round_boundary(6.0)
    assert c.poll(6.0) == [SensorStuck(6.0, 2, 1)]
    assert c.seat_state(2) is SeatState.EXCLUDED
    assert c.exclusion_reason(2) == "stuck"
    assert c.lock(7.0) == ()  # never counted twice


def test_stuck_rounds_gives_grace_without_counting_the_stake_again():
    c = core(stuck_rounds=2)
    settle(c, "seat2", True, 0.0)
    c.lock(1.0)
    c.round_boundary(6.0)
    assert c.poll(6.0) == []
    assert c.seat_state(2) is SeatState.AWAITING
    assert c.lock(7.0) == ()  # the old stake is not in the next round
    c.round_boundary(12.0)
    assert c.poll(12.0) == [SensorStuck(12.0, 2, 2)]


def test_grace_ends_when_the_stake_is_lifted():
    c = core(stuck_rounds=2)
    settle(c, "seat2", True, 0.0)
    c.lock(1.0)
    c.round_boundary(6.0)
    settle(c, "seat2", False, 7.0)
    assert settle(c, "seat2", True, 8.0) == [StakePlaced(8.0 + DEBOUNCE, 2, True)]
    assert c.lock(9.0) == (2,)


def test_a_misdeal_returns_the_stakes_and_they_stay_placed():
    c = core()
    settle(c, "seat3", True, 0.0)
    c.lock(1.0)
    c.round_boundary(2.0, void=True)  # MD-S1: every wager returned
    assert c.seat_state(3) is SeatState.STAKE_PLACED
    assert c.lock(3.0) == (3,)


def test_a_late_stake_is_not_accepted_but_counts_next_round():
    c = core()
    c.lock(1.0)
    assert settle(c, "seat6", True, 2.0) == [StakePlaced(2.0 + DEBOUNCE, 6, False)]
    assert c.seat_state(6) is SeatState.AWAITING
    c.round_boundary(5.0)
    assert c.poll(5.0) == [StakePlaced(5.0, 6, True)]
    assert c.lock(6.0) == (6,)


def test_a_locked_stake_lifted_and_put_back_is_not_stuck():
    c = core()
    settle(c, "seat1", True, 0.0)
    c.lock(1.0)
    settle(c, "seat1", False, 2.0)
    settle(c, "seat1", True, 3.0)  # a new stake for the next round
    c.round_boundary(4.0)
    assert c.seat_state(1) is SeatState.STAKE_PLACED


# -- winner, console, lamps ---------------------------------------------------------------------


def test_winner_is_shown_until_the_round_boundary():
    c = core()
    settle(c, "seat4", True, 0.0)
    c.lock(1.0)
    c.set_winner(4, 2.0)
    assert c.seat_state(4) is SeatState.WINNER
    settle(c, "seat4", False, 3.0)
    c.round_boundary(4.0)
    assert c.seat_state(4) is SeatState.AWAITING


def test_only_a_locked_seat_can_win():
    c = core()
    with pytest.raises(SeatError, match="seat 4 is awaiting, not locked"):
        c.set_winner(4, 0.0)
    with pytest.raises(SeatError, match="seat 9 is not configured"):
        c.clear(9, 0.0)


def test_console_buttons_and_key_switch():
    c = core()
    assert settle(c, "lock", True, 1.0) == [ButtonPressed(1.0 + 0.020, "lock")]
    assert settle(c, "lock", False, 1.2) == [ButtonReleased(1.2 + 0.020, "lock")]
    assert settle(c, "key", True, 2.0) == [KeySwitched(2.0 + 0.020, True)]
    with pytest.raises(SeatError):
        c.edge("door", True, 3.0)


def test_seat_lamps_follow_the_seat_states():
    c = core()
    assert c.lamp_levels(0.0)["seat1"] is False
    settle(c, "seat1", True, 1.0)  # stake accepted at 1.03: slow blink, lit first
    t = 1.0 + DEBOUNCE
    assert [c.lamp_levels(t + dt)["seat1"] for dt in (0.0, 0.49, 0.5, 0.99, 1.0)] == [
        True,
        True,
        False,
        False,
        True,
    ]
    assert c.next_deadline(t) == pytest.approx(t + 0.5)
    c.lock(3.0)
    assert all(c.lamp_levels(3.0 + dt)["seat1"] for dt in (0.0, 0.3, 0.7))
    assert c.next_deadline(3.0) is None  # steady lamps: nothing to wake up for


def test_excluded_seat_blinks_fast_and_winner_flashes():
    c = core()
    chatter(c, "seat2", 13, 0.0, 0.01)
    c.poll(0.12)
    start = 0.12  # excluded at the 13th edge
    assert [c.lamp_levels(start + k * 0.125)["seat2"] for k in range(4)] == [
        True,
        False,
        True,
        False,
    ]
    settle(c, "seat3", True, 1.0)
    c.lock(2.0)
    c.set_winner(3, 5.0)
    flashes = [c.lamp_levels(5.0 + k * 0.1)["seat3"] for k in range(10)]
    assert flashes == [True, False, True, False, False, False, False, False, False, False]


def test_status_lamps_are_set_by_the_controller():
    c = core()
    c.set_status_lamp("red", "fast", 10.0)
    c.set_status_lamp("green", "on", 10.0)
    levels = c.lamp_levels(10.2)
    assert levels["green"] and not levels["red"] and not levels["beacon"]
    assert c.next_deadline(10.2) == pytest.approx(10.25)
    with pytest.raises(SeatError, match="no lamp pattern 'strobe'"):
        c.set_status_lamp("beacon", "strobe", 0.0)
    with pytest.raises(SeatError, match="no status lamp 'blue'"):
        c.set_status_lamp("blue", "on", 0.0)


def test_resetting_the_same_pattern_keeps_its_phase():
    c = core()
    c.set_status_lamp("beacon", "slow", 0.0)
    c.set_status_lamp("beacon", "slow", 0.7)
    assert c.lamp_levels(0.7)["beacon"] is False


def test_events_read_as_one_line_and_as_json():
    assert (
        SensorChatter(1.5, 4, 13, 1.0).describe() == "seat 4: CHATTER (13 edges in 1 s) -> excluded"
    )
    assert StakePlaced(2.0, 6, False).describe() == "seat 6: stake placed (not accepted)"
    assert KeySwitched(3.0, True).describe() == "technician key ON"
    assert SensorStuck(4.0, 2, 1).as_dict() == {
        "event": "sensor_stuck",
        "at": 4.0,
        "seat": 2,
        "rounds": 1,
    }


def test_a_seat_excluded_before_a_restart_is_excluded_again_before_its_stake_counts():
    """After a restart a sensor stuck on counted as a stake placed at start-up, and the next
    LOCK took a progressive stake no player placed (controller/table/exclusions.py)."""
    c = core(initial={"seat2": True, "seat4": True})
    c.exclude_at_start({2: "seat 2: stake left on the sensor for 1 round(s)", 9: "gone"}, 0.0)
    assert c.poll(0.0) == [StakePlaced(0.0, 4, True)]  # seat 2's start-up stake taken back
    assert c.seat_state(2) is SeatState.EXCLUDED
    assert c.exclusion_reason(2) == "seat 2: stake left on the sensor for 1 round(s)"
    assert c.lock(1.0) == (4,)
    c.round_boundary(2.0)
    assert c.seat_state(2) is SeatState.EXCLUDED  # only a technician clears it
    assert c.clear(2, 3.0) is True
    assert c.seat_state(2) is SeatState.AWAITING  # the stake still on must be lifted first
    settle(c, "seat2", False, 4.0)
    assert settle(c, "seat2", True, 5.0) == [StakePlaced(pytest.approx(5.03), 2, True)]

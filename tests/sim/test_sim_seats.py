"""Every seat of a hold'em round plays its own wagers: the dealer enters each dealt seat's
Ante, Blind, side bet and decision (drawn from the seed), and the tally checks that the
settled record holds all of them before it checks the settlement. Until session 14 only the
first seat's were entered, and only on uth-gr's MD-X1 rounds: the other seats played their
progressive stake alone, and multi-seat settlement of the table wagers went unchecked."""

from __future__ import annotations

from collections import defaultdict

import pytest

import controller.rig.sim.tally as sim_tally
from controller.engine.deal.validator import DEALER
from controller.rig.sim.players import Dealer
from controller.rig.sim.run import simulate
from controller.rig.sim.world import SimSettings, World

HOLDEM = ["uth-gr", "uth-sk", "uth-it", "ch-bg"]


@pytest.mark.parametrize("profile", HOLDEM)
def test_every_seat_of_a_round_has_its_wagers_entered_and_checked(monkeypatch, profile):
    checked: list[tuple[dict, dict]] = []  # (the record's seats by number, what was entered)
    wagers = sim_tally.Tally._wagers

    def counted(self, rid, record, entered):
        checked.append(({s["seat"]: s for s in record["seats"]}, dict(entered)))
        return wagers(self, rid, record, entered)

    monkeypatch.setattr(sim_tally.Tally, "_wagers", counted)
    report = simulate(SimSettings(profile, 1), 20)
    assert report.violations == [], (report.replay(), report.trace[-30:])
    # the last round's archive may come after the run's last round closed: not checked
    assert report.outcomes["settled"] - 1 <= len(checked) > 0
    for seats, entered in checked:
        assert set(entered) == set(seats)  # every dealt seat, nothing for another
        for number, (stakes, decision) in entered.items():
            assert stakes["ante"] > 0 and decision is not None
            assert seats[number]["decision"] == decision
            assert stakes.items() <= seats[number]["stakes"].items()
    assert max(len(entered) for _, entered in checked) >= 3, checked


def test_a_table_that_records_only_the_first_seats_wagers_is_caught(monkeypatch):
    """The bug the old simulator could not see: wagers entered for seat 2 and beyond taken,
    journaled, and left out of the round (settled on the progressive stake alone)."""
    from controller.table.machine import TableMachine

    enter = TableMachine._on_enter_wagers

    def first_seat_only(self, event, now):
        effects = enter(self, event, now)
        r = self.round
        if r is not None and event.seat != r.seats[0]:
            del r.wagers[event.seat]
        return effects

    monkeypatch.setattr(TableMachine, "_on_enter_wagers", first_seat_only)
    report = simulate(SimSettings("ch-bg", 1), 10)
    assert report.violations, "no violation"
    first = report.violations[0]
    assert first["invariant"] == "settlement", first
    assert "recorded wagers None, the dealer entered" in first["detail"], first


def test_the_first_seat_acts_before_md_x1_and_the_others_after(monkeypatch):
    """uth-gr: the dealer's cards exposed after the first player action are exposed after the
    first dealt seat's decision and before the other seats' (the table replaces them; before
    any decision it refuses them)."""
    events: dict[str, list[tuple[str, int | None, bool]]] = defaultdict(list)
    exposed, wagered = sim_tally.Tally.exposed, sim_tally.Tally.wagered

    def exposure(self, round_id, event, state, refused):
        events[round_id].append(("exposed " + event.destination, None, refused is None))
        return exposed(self, round_id, event, state, refused)

    def wagers(self, round_id, event):
        events[round_id].append(("wagers", event.seat, True))
        return wagered(self, round_id, event)

    monkeypatch.setattr(sim_tally.Tally, "exposed", exposure)
    monkeypatch.setattr(sim_tally.Tally, "wagered", wagers)
    report = simulate(SimSettings("uth-gr", 3, faults=0.6), 60)
    assert report.violations == [], (report.replay(), report.trace[-30:])
    taken = 0
    for round_events in events.values():
        kinds = [kind for kind, _, _ in round_events]
        if ("exposed " + DEALER, None, True) not in round_events:
            continue
        taken += 1
        at = round_events.index(("exposed " + DEALER, None, True))
        before = [seat for kind, seat, _ in round_events[:at] if kind == "wagers"]
        assert len(before) == 1, round_events  # the first player action, and only it
        seats = [seat for kind, seat, _ in round_events if kind == "wagers"]
        assert before[0] == min(seats) and seats == sorted(seats), round_events
        assert kinds.count("wagers") == len(set(seats))
    assert taken >= 3, dict(events)


def test_the_wagers_come_from_their_own_stream(tmp_path):
    """Each hold'em seat planned gets three draws from the ``wagers`` stream: the dealer's
    stream (seats, faults) plans the same rounds whatever the players bet, and a shoe draws
    nothing from it (its players bet at OPEN, from the dealer's stream, as before)."""
    plans = {}
    for profile in ["uth-gr", "ch-bg", "trilux-gr"]:
        (tmp_path / profile).mkdir()
        world = World(SimSettings(profile, 1, 0.6), tmp_path / profile)
        try:
            plans[profile] = [world.dealer._plan() for _ in range(100)]
        finally:
            world.close()
    for profile in ["uth-gr", "ch-bg"]:
        assert all(set(p.wagers) == set(p.seats) for p in plans[profile])
    side = {"uth-gr": {"trips"}, "ch-bg": {"bonus"}}
    for profile, bets in side.items():
        names = {name for p in plans[profile] for stakes, _ in p.wagers.values() for name in stakes}
        assert names - {"ante", "blind"} == bets
    assert not any(p.wagers for p in plans["trilux-gr"])
    # the dealer's own draws are untouched: the same seats as without any wager drawn
    (tmp_path / "none").mkdir()
    world = World(SimSettings("uth-gr", 1, 0.6), tmp_path / "none")
    try:
        world.dealer._wagers = lambda seats: {}  # type: ignore[method-assign]
        assert [Dealer._plan(world.dealer).seats for _ in range(100)] == [
            p.seats for p in plans["uth-gr"]
        ]
    finally:
        world.close()

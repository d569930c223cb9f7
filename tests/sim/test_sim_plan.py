"""What a round's plan requires of its verdict: a machine fault planned at the k-th packet calls
for a void only if the deal reached that packet (found by ``make sim``: uth-gr seed 1, round
52,121, two exposed cards planned at the 4th packet of a two-seat round whose seat 4 was left
out by a chattering sensor: three packets, no exposure, rightly settled, reported as a
violation)."""

from __future__ import annotations

import random

import pytest

from controller.engine.deal.validator import COMMUNITY, DEALER
from controller.rig.sim.players import EXPOSURES, Dealer, RoundPlan
from controller.rig.sim.world import SimSettings, World
from firmware_bridge.emulator.faults import MachineFaults


@pytest.mark.parametrize(
    "faults",
    [
        MachineFaults(exposed_at_packet=4, exposed_cards=2),
        MachineFaults(jam_at_packet=4),
        MachineFaults(wrong_count_at_packet=4),
    ],
    ids=["exposed", "jam", "count"],
)
def test_a_fault_past_the_last_packet_dealt_never_happened(faults):
    plan = RoundPlan((4, 6), machine=faults, allowed={"MD-S3"}, must_void=True)
    assert not plan.fault_reached(3)  # community, seat 6, dealer: seat 4 was left out
    assert plan.fault_reached(4) and plan.fault_reached(5)


def test_faults_without_a_packet_always_happen():
    assert RoundPlan((1,), slow=True, must_void=True).fault_reached(0)
    assert RoundPlan((1,), declare="MD-M2", must_void=True).fault_reached(0)


def test_a_slow_plan_whose_machine_is_set_back_to_speed_may_settle():
    plan = RoundPlan((1,), slow=True, allowed={"MD-S2"}, must_void=True)
    plan.machine_back_to_speed()
    assert not plan.must_void and None in plan.allowed
    exposed = RoundPlan((1,), machine=MachineFaults(exposed_at_packet=2, exposed_cards=2))
    exposed.must_void, exposed.allowed = True, {"MD-S3"}
    exposed.machine_back_to_speed()  # only the slowness goes with the closed table
    assert exposed.must_void and exposed.allowed == {"MD-S3"}


def _plans(tmp_path, profile: str, n: int, faults: float = 0.6) -> list[RoundPlan]:
    tmp_path.mkdir(exist_ok=True)
    world = World(SimSettings(profile, 1, faults), tmp_path)
    try:
        return [world.dealer._plan() for _ in range(n)]
    finally:
        world.close()


def test_a_greek_table_plans_md_x1_after_a_decision_before_one_and_md_x2(tmp_path):
    plans = _plans(tmp_path, "uth-gr", 300)
    after = [p for p in plans if p.expose_dealer and not p.expose_early]
    early = [p for p in plans if p.expose_early]
    board = [p for p in plans if p.expose_community]
    assert after and early and board
    assert all(not p.exposure_refused(DEALER) for p in after)
    assert all(p.exposure_refused(DEALER) for p in early)
    assert not any(p.exposure_refused(COMMUNITY) for p in plans)
    # both cards exposed before any player acted: the dealer declares MD-S3 after the refusal
    both = [p for p in early if len(p.expose_dealer) == 2]
    assert both and all(
        p.declare == "MD-S3" and p.must_void and "MD-S3" in p.allowed and None not in p.allowed
        for p in both
    )
    assert all(p.expose_dealer in ((1,), (2,), (1, 2)) for p in after + early)
    assert {len(p.expose_community) for p in board} == {1, 2, 3, 4, 5}
    assert all(set(p.expose_community) <= {1, 2, 3, 4, 5} for p in board)
    assert not any(p.expose for p in plans)  # MD-X3 is Italian


@pytest.mark.parametrize("profile", ["uth-sk", "uth-it", "ch-bg", "trilux-gr"])
def test_other_profiles_plan_no_greek_exposure_and_draw_nothing_for_it(tmp_path, profile):
    """Their seeds replay as before: the Greek exposures come from a stream of their own."""
    world = World(SimSettings(profile, 1, 0.6), tmp_path)
    try:
        plans = [world.dealer._plan() for _ in range(200)]
        untouched = random.Random(f"1/{EXPOSURES}").getstate()
        assert world.streams(EXPOSURES).getstate() == untouched
    finally:
        world.close()
    assert not any(p.expose_dealer or p.expose_community for p in plans)


def test_the_greek_draws_leave_the_dealers_stream_as_it_was(tmp_path, monkeypatch):
    """uth-gr's dealer stream draws the same plans with the exposures planned or not."""
    with_exposures = _plans(tmp_path / "a", "uth-gr", 100)
    monkeypatch.setattr(Dealer, "_plan_greek_exposures", lambda self, plan: None)
    without = _plans(tmp_path / "b", "uth-gr", 100)
    assert [p.seats for p in with_exposures] == [p.seats for p in without]
    assert [p.machine for p in with_exposures] == [p.machine for p in without]


def test_a_declared_misdeal_happens_whatever_machine_fault_the_deal_did_not_reach():
    plan = RoundPlan((4, 6), machine=MachineFaults(jam_at_packet=4), declare="MD-S3")
    plan.must_void = True
    assert plan.fault_reached(3)


def test_the_tally_follows_the_positions_the_table_replaced_not_those_reported():
    """With MD-X1 ``dealer_exposure_replaces = "both"`` the table sends both dealer cards
    back for one exposed; the tally replayed the replacement packet into the one reported
    position and would have called a sound round's cards wrong."""
    from dataclasses import replace
    from types import SimpleNamespace

    from controller.engine.profiles import DealerExposureReplaces, load_profile
    from controller.rig.sim.tally import Tally
    from controller.table.events import CardsExposed
    from controller.table.machine import TableState

    greek = load_profile("uth-gr")
    both = replace(
        greek,
        options={**greek.options, "dealer_exposure_replaces": DealerExposureReplaces.BOTH},
    )
    for profile, wanted in ((greek, (2,)), (both, (1, 2))):
        tally = Tally(SimpleNamespace(profile=profile, pool_texts={}))
        tally.exposed("R-1", CardsExposed((2,), DEALER), TableState.VERIFIED, None)
        assert tally.replaced["R-1"] == [(DEALER, wanted)]

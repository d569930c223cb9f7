"""What a round's plan requires of its verdict: a machine fault planned at the k-th packet calls
for a void only if the deal reached that packet (found by ``make sim``: uth-gr seed 1, round
52,121, two exposed cards planned at the 4th packet of a two-seat round whose seat 4 was left
out by a chattering sensor: three packets, no exposure, rightly settled, reported as a
violation)."""

from __future__ import annotations

import pytest

from controller.rig.sim.players import RoundPlan
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

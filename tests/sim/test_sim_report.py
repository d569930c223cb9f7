"""What a simulation's report names as its replay: the rounds up to a violation (with the
trace), the rounds played before a stop, and nothing when a stop came before any round
(``--rounds 0`` is no command: --rounds takes 1 or more)."""

import signal

from controller.rig.sim.run import SimReport
from controller.rig.sim.world import SimSettings
from controller.stop_signals import StopSignal

SETTINGS = SimSettings("uth-gr", seed=7, faults=0.2, crash_rate=0.01)
TAIL = "--seed 7 --faults 0.2 --crash-rate 0.01"


def test_a_run_that_played_out_names_no_replay():
    report = SimReport(SETTINGS, rounds=10)
    assert "replay" not in report.to_json()


def test_a_violation_is_replayed_up_to_its_round_with_the_trace():
    report = SimReport(SETTINGS, rounds=4, violations=[{"invariant": "money"}])
    assert report.to_json()["replay"] == (
        f"croupier sim --profile uth-gr --rounds 5 {TAIL} --trace"
    )


def test_a_stop_is_replayed_up_to_the_rounds_played():
    report = SimReport(SETTINGS, rounds=3, stopped=StopSignal(signal.SIGTERM))
    assert report.to_json()["replay"] == f"croupier sim --profile uth-gr --rounds 3 {TAIL}"


def test_a_stop_before_any_round_names_nothing_to_replay():
    report = SimReport(SETTINGS, rounds=0, stopped=StopSignal(signal.SIGTERM))
    assert report.replay() is None
    data = report.to_json()
    assert "replay" not in data and data["stopped_by"] == "SIGTERM"

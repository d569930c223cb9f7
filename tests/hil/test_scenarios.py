"""Every shipped scenario (tests/hil/*.toml) against a real croupierd, as CI runs them; and
the rig itself: a scenario whose expectation is wrong must fail and say why."""

from __future__ import annotations

from pathlib import Path

import pytest

from controller.rig.play import run_scenario
from controller.rig.report import human, junit
from controller.rig.scenario import load_scenario, parse_scenario

HERE = Path(__file__).parent
SCENARIOS = sorted(HERE.glob("*.toml"))


@pytest.mark.parametrize("path", SCENARIOS, ids=[p.stem for p in SCENARIOS])
def test_scenario(path):
    result = run_scenario(load_scenario(path))
    assert result.ok, "\n".join(human(result, verbose=True))


def test_a_wrong_expectation_fails_with_what_was_seen(tmp_path):
    scenario = parse_scenario(
        {
            "name": "expects the wrong rule",
            "timeout": 30,
            "step": [
                {"wait": "open"},
                {"stake": [1]},
                {"expect": {"seats": {"1": "stake placed"}}},
                {"emulator": "faults", "args": {"machine": {"wrong_count_at_packet": 1}}},
                {"press": "lock"},
                {"wait": "void"},
                {"expect": {"verdict": "MD-S3"}, "timeout": 0.5},
                {"press": "confirm"},
            ],
        },
        tmp_path / "wrong.toml",
    )
    result = run_scenario(scenario)
    assert not result.ok
    assert [s.ok for s in result.steps] == [True] * 6 + [False]  # stops at the failure
    assert "verdict: saw MD-S1" in result.failure
    report = junit([result])
    assert 'failures="1"' in report and "verdict: saw MD-S1" in report

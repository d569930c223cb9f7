"""Scenario files: every shipped one parses; a bad one gets every problem at once, each with
its step and reason, and runs nothing."""

from __future__ import annotations

from pathlib import Path

import pytest

from controller.cli.main import main
from controller.rig.expect import (
    dealt_in_order,
    is_meter_money,
    is_round_money,
    money_shown,
    round_view,
    subset_mismatch,
)
from controller.rig.scenario import STEP_TIMEOUT, load_scenario, parse_scenario
from controller.validation import ConfigError

HIL = Path(__file__).resolve().parents[2] / "hil"


@pytest.mark.parametrize("path", sorted(HIL.glob("*.toml")), ids=lambda p: p.stem)
def test_shipped_scenarios_parse_and_cite_rules(path):
    scenario = load_scenario(path)
    assert scenario.steps and scenario.rules and scenario.description
    assert scenario.config.exists()


def test_every_problem_is_reported_with_its_step(tmp_path):
    data = {
        "name": "bad",
        "colour": "red",
        "step": [
            {"press": "panic"},
            {"stake": [1], "lift": [2]},
            {"deck": ["As", "Zz"]},
            {"expect": {"verdict": "MD-S1", "smell": "burnt", "lamps": {"red": "purple"}}},
            {"wait": "open", "timeout": -1},
            {"command": "status", "privilged": True},
        ],
    }
    with pytest.raises(ConfigError) as caught:
        parse_scenario(data, tmp_path / "bad.toml")
    text = str(caught.value)
    for expected in [
        "colour: unknown key",
        "step 1 press: must be one of lock, confirm",
        "step 2: a step does exactly one of",
        "step 3 deck:",
        "step 4 expect: unknown expectation 'smell'",
        "step 4 expect: lamps: each lamp is one of on, off, blink",
        "step 5 timeout: must be seconds above zero",
        "step 6: command: unknown key(s) ['privilged']",
    ]:
        assert expected in text


def test_pacing_is_off_unless_asked_and_defaults_apply(tmp_path):
    scenario = parse_scenario({"name": "x", "step": [{"wait": "open"}]}, tmp_path / "x.toml")
    assert scenario.table_overrides == {"shuffler": {"emulator": {"baud": None}}}
    assert scenario.steps[0].timeout == STEP_TIMEOUT
    assert scenario.config.name == "sim.toml"
    paced = parse_scenario(
        {"name": "x", "paced": True, "step": [{"wait": "open"}]}, tmp_path / "x.toml"
    )
    assert paced.table_overrides == {}


def test_subset_matching_names_the_first_difference():
    actual = {"state": "settled", "paid": {"2": {"progressive": 100, "envy": 0}}}
    assert subset_mismatch({"paid": {2: {"progressive": 100}}}, actual) is None
    assert subset_mismatch({"paid": {2: {"progressive": 90}}}, actual) == (
        "paid.2.progressive: expected 90, saw 100"
    )
    assert "paid.3: missing" in subset_mismatch({"paid": {3: {}}}, actual)


def test_a_failed_expectation_shows_money_as_money_and_counts_as_counts():
    """Issue 17: ``rig run`` failed with ``meters: current: expected 500031, saw 500030``.
    Amounts read as money, with the minor units the scenario is written in; counts stay."""
    meters = {"current": 500_030, "rounds": 3}
    shown = money_shown("EUR", is_meter_money)
    assert subset_mismatch({"current": 500_031}, meters, shown=shown) == (
        "current: expected EUR 5,000.31 (500031), saw EUR 5,000.30 (500030)"
    )
    assert subset_mismatch({"rounds": 4}, meters, shown=shown) == "rounds: expected 4, saw 3"
    last = {"state": "settled", "paid": {"2": {"progressive": 100}}, "seat": {"2": {}}}
    last["seat"]["2"] = {"hand": "pair", "wagers": {"play": {"paid": 4000, "rule": "UTH-6"}}}
    shown = money_shown("EUR", is_round_money)
    assert subset_mismatch({"paid": {2: {"progressive": 90}}}, last, shown=shown) == (
        "paid.2.progressive: expected EUR 0.90 (90), saw EUR 1.00 (100)"
    )
    want = {"seat": {2: {"hand": "flush", "wagers": {"play": {"paid": 8000}}}}}
    assert subset_mismatch(want, last, shown=shown) == "seat.2.hand: expected 'flush', saw 'pair'"
    want["seat"][2]["hand"] = "pair"
    assert subset_mismatch(want, last, shown=shown) == (
        "seat.2.wagers.play.paid: expected EUR 80.00 (8000), saw EUR 40.00 (4000)"
    )


def test_views_of_rounds_and_dealt_cards():
    last = {"state": "settled", "seats": [{"seat": 2, "hand": "pair"}]}
    assert round_view(last)["seat"]["2"]["hand"] == "pair"
    assert round_view(None) == {"state": "none"}
    record = {"community": ["As"], "seats": [{"cards": ["2c", "3c"]}], "dealer": ["Kd"]}
    assert dealt_in_order(record) == ["As", "2c", "3c", "Kd"]
    assert dealt_in_order({"shoe": "8h As 7c"}) == ["8h", "As", "7c"]


def test_cli_reports_a_bad_scenario_on_one_line(tmp_path, capsys):
    bad = tmp_path / "bad.toml"
    bad.write_text('name = "x"\n[[step]]\nwait = 3\n')
    assert main(["rig", "run", str(bad)]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "step 1 wait: must be a state" in err

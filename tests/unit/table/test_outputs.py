"""Status lamps and sign scene as functions of the table's state."""

import tomllib
from pathlib import Path

from controller.table.events import Condition, ConditionChanged, PoolAmount
from controller.table.machine import MachineSettings, TableMachine
from controller.table.outputs import lamp_patterns, sign_state
from controller.table.tableconfig import parse_table_config
from display.scenes import Mode

SIM = parse_table_config(
    tomllib.loads((Path(__file__).resolve().parents[3] / "config" / "sim.toml").read_text()),
    "sim.toml",
)


def machine():
    m = TableMachine(SIM.profile, MachineSettings("T"))
    m.handle(PoolAmount("progressive", 512_345, 500_000), 0.0)
    return m


def test_closed_at_start_then_open():
    m = machine()
    assert lamp_patterns(m) == {"green": "off", "red": "off", "beacon": "off"}  # starting
    assert sign_state(m, SIM).mode is Mode.CLOSED
    m.handle(ConditionChanged(Condition.STARTUP, False), 1.0)
    state = sign_state(m, SIM)
    assert state.mode is Mode.OPEN and state.pools[0].amount == 512_345
    assert state.pools[0].name == "MAIN"


def test_fault_closes_with_red_and_linked_pool_offline_blinks_slowly():
    m = machine()
    m.handle(ConditionChanged(Condition.STARTUP, False), 1.0)
    m.handle(ConditionChanged(Condition.LINK, True, "gone"), 2.0)
    assert lamp_patterns(m)["red"] == "on"
    m.handle(ConditionChanged(Condition.LINK, False), 3.0)
    m.handle(ConditionChanged(Condition.PROGRESSIVE_LINK, True, "server down"), 4.0)
    assert m.state.value == "open"
    assert lamp_patterns(m)["red"] == "slow"
    assert sign_state(m, SIM).mode is Mode.OFFLINE

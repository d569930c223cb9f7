"""The pit's alerts read the table's state as the machine's TableState (controller.table.alerts),
never as a string that a typo could make match nothing."""

from __future__ import annotations

from pathlib import Path

import pytest

from controller.table.alerts import AlertKind, TableConditions, conditions_of, derive
from controller.table.events import Condition, ConditionChanged
from controller.table.machine import MachineSettings, TableMachine, TableState
from controller.table.tableconfig import load_table_config

SIM = Path(__file__).resolve().parents[3] / "config" / "sim.toml"


def test_the_conditions_carry_the_machines_state_enum():
    config = load_table_config(SIM)
    machine = TableMachine(config.profile, MachineSettings(config.table_id))
    machine.handle(ConditionChanged(Condition.STARTUP, False), 0.0)
    machine.handle(ConditionChanged(Condition.CLOCK, True, "no NTP"), 0.0)
    conditions = conditions_of(machine)
    assert conditions.state is TableState.CLOSED
    assert derive(conditions)[AlertKind.TABLE_CLOSED, "table"] == "clock: no NTP"


def test_a_state_that_is_no_table_state_is_refused():
    with pytest.raises(ValueError, match="closd"):
        TableConditions("closd")  # type: ignore[arg-type]
    assert TableConditions("jackpot").state is TableState.JACKPOT  # type: ignore[arg-type]

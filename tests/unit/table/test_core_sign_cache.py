"""The table core rebuilds the sign's state only when something it shows changed (the pools,
the mode), and still shows every change: pools going up and back down, the table closing."""

import tomllib
from pathlib import Path
from types import SimpleNamespace

import pytest

import controller.table.core as core_module
from controller.table.core import TableLogic
from controller.table.events import Condition, ConditionChanged, PoolAmount, ShowSign, Tick
from controller.table.machine import TableState
from controller.table.outputs import sign_inputs
from controller.table.tableconfig import parse_table_config
from display.scenes import Mode

ROOT = Path(__file__).resolve().parents[3]
SIM = parse_table_config(tomllib.loads((ROOT / "config" / "sim.toml").read_text()), "sim.toml")
BET = SIM.pools["main"].bet
SEED = SIM.pools["main"].seed


def _signs(logic: TableLogic, event: object, now: float) -> list[ShowSign]:
    return [o for o in logic.handle(event, now) if isinstance(o, ShowSign)]


def test_every_change_of_the_pools_is_shown_even_back_to_an_earlier_amount():
    logic = TableLogic(SIM)
    _signs(logic, ConditionChanged(Condition.STARTUP, False), 1.0)
    shown = []
    for i, amount in enumerate((600_000, 700_000, 600_000)):
        signs = _signs(logic, PoolAmount(BET, amount, SEED), 2.0 + i)
        shown += [s.state.pools[0].amount for s in signs]
    assert shown == [600_000, 700_000, 600_000]


def test_closing_the_table_changes_the_sign_mode():
    logic = TableLogic(SIM)
    _signs(logic, PoolAmount(BET, 600_000, SEED), 1.0)
    assert [
        s.state.mode for s in _signs(logic, ConditionChanged(Condition.STARTUP, False), 2.0)
    ] == [Mode.OPEN]
    closed = _signs(logic, ConditionChanged(Condition.LEDGER, True, "disk full"), 3.0)
    assert [s.state.mode for s in closed] == [Mode.CLOSED]


def test_the_sign_is_not_rebuilt_when_nothing_it_shows_changed(monkeypatch: pytest.MonkeyPatch):
    logic = TableLogic(SIM)
    _signs(logic, PoolAmount(BET, 600_000, SEED), 1.0)
    built = []
    real = core_module.sign_state
    monkeypatch.setattr(core_module, "sign_state", lambda *a: built.append(1) or real(*a))
    for i in range(5):
        assert _signs(logic, Tick(), 2.0 + i) == []
    assert built == []
    _signs(logic, PoolAmount(BET, 650_000, SEED), 10.0)
    assert built == [1]


def test_the_jackpot_award_is_part_of_what_the_sign_is_made_of():
    def machine(state, paid):
        result = SimpleNamespace(pools={"main": {"jackpot_paid": paid}})
        return SimpleNamespace(state=state, conditions={}, last_result=result, pools={})

    assert sign_inputs(machine(TableState.JACKPOT, 100)) != sign_inputs(
        machine(TableState.JACKPOT, 200)
    )
    # outside JACKPOT the last result is not shown
    assert sign_inputs(machine(TableState.OPEN, 100)) == sign_inputs(machine(TableState.OPEN, 200))

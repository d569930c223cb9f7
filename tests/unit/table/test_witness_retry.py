"""A ledger witness that did not answer at power-up is asked again, with backoff on the table's
clock, until it answers (controller.table.witness_retry, controller.table.core): the table
opens when the witness holds nothing against the ledger, and stays closed with
``ledger-rollback`` and ``selfcheck`` when it saw a head the ledger does not hold."""

from __future__ import annotations

import tomllib
from pathlib import Path

from controller.table.core import TableLogic
from controller.table.events import (
    AskWitness,
    Condition,
    ConditionChanged,
    LedgerWrite,
    LedgerWritten,
    Tick,
    WitnessChecked,
)
from controller.table.machine import TableState
from controller.table.tableconfig import parse_table_config
from controller.table.witness_retry import CEILING, FIRST, WitnessRetry

SIM_TOML = Path(__file__).resolve().parents[3] / "config" / "sim.toml"
SIM = parse_table_config(tomllib.loads(SIM_TOML.read_text()), "sim.toml")
SILENT = "witness the linked-pool store does not answer: connection refused"


class Core:
    """The pure core on a fake clock; every ledger write commits."""

    def __init__(self) -> None:
        self.now = 50.0
        self.logic = TableLogic(SIM)
        self.asked: list[float] = []

    def send(self, event: object) -> None:
        outputs = self.logic.handle(event, self.now)  # type: ignore[arg-type]
        for out in outputs:
            if isinstance(out, LedgerWrite):
                self.send(LedgerWritten(out.money, True, probe=out.probe))
            elif isinstance(out, AskWitness):
                self.asked.append(self.now)

    def wait(self) -> None:
        """Time passes to the core's next deadline, where it gets its Tick."""
        deadline = self.logic.next_deadline()
        assert deadline is not None
        self.now = deadline
        self.send(Tick())

    @property
    def state(self) -> TableState:
        return self.logic.machine.state


def silent_at_power_up() -> Core:
    core = Core()
    core.send(ConditionChanged(Condition.WITNESS, True, SILENT))
    core.send(ConditionChanged(Condition.STARTUP, False))
    assert core.state is TableState.CLOSED
    return core


def test_the_witness_is_asked_again_with_backoff_and_one_question_at_a_time():
    core = silent_at_power_up()
    start = core.now
    core.wait()
    assert core.asked == [start + FIRST]
    assert core.logic.next_deadline() is None  # nothing more until the answer is in
    for _ in range(6):
        core.send(WitnessChecked(False, SILENT))
        core.wait()
    gaps = [b - a for a, b in zip([start, *core.asked], core.asked, strict=False)]
    assert gaps == [FIRST, 2 * FIRST, 4 * FIRST, 8 * FIRST, CEILING, CEILING, CEILING]
    assert core.state is TableState.CLOSED
    assert core.logic.machine.conditions[Condition.WITNESS] == SILENT


def test_the_table_opens_once_the_witness_answers():
    core = silent_at_power_up()
    core.wait()
    core.send(WitnessChecked(True))
    assert core.state is TableState.OPEN
    assert Condition.WITNESS not in core.logic.machine.conditions
    assert core.logic.next_deadline() is None  # never asked again


def test_a_rollback_found_late_keeps_the_table_closed():
    core = silent_at_power_up()
    core.wait()
    why = "ledger-rollback: the ledger ends at journal entry 7 but its witness saw entry 9"
    core.send(WitnessChecked(True, rollback=why))
    conditions = core.logic.machine.conditions
    assert core.state is TableState.CLOSED
    assert conditions[Condition.LEDGER_ROLLBACK] == why and Condition.SELFCHECK in conditions
    assert Condition.WITNESS not in conditions and core.logic.next_deadline() is None


def test_the_backoff_starts_again_after_an_answer():
    retry = WitnessRetry()
    retry.follow(True, 0.0)
    assert retry.due == FIRST and retry.tick(FIRST)
    retry.answered()
    retry.follow(True, FIRST)
    assert retry.due == 3 * FIRST and not retry.tick(2 * FIRST)
    retry.follow(False, 10.0)
    assert retry.due is None
    retry.follow(True, 20.0)
    assert retry.due == 20.0 + FIRST

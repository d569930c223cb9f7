"""``croupier rig run``: a scenario played against a real daemon, step by step.

:func:`run_scenario` starts a :class:`~controller.rig.table.SimTable` with the scenario's
table configuration (its own temporary state and runtime directories), or takes hold of a real
controller the rig is cabled to (:class:`~controller.rig.wired.WiredTable`), carries out each
step (:class:`StepRunner`) and stops at the first step that fails; the result keeps every
step's outcome and time, and the tail of the daemon's log when something failed. The whole
scenario is bounded by its ``timeout``: every wait is cut to the time left.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

from controller.engine.cards import card_name, parse_cards
from controller.errors import CroupierError
from controller.rig.errors import ExpectationFailed, RigFailure
from controller.rig.expect import Expectations, subset_mismatch
from controller.rig.scenario import Scenario, Step
from controller.rig.table import SimTable
from controller.rig.target import TableUnderTest
from controller.rig.wired import WiredTable, Wiring
from controller.table.control.wire import ControlError
from controller.table.tableconfig import load_table_config
from drivers.errors import DriverError
from firmware_bridge.errors import LinkError

POLL = 0.01


@dataclass
class StepResult:
    step: Step
    ok: bool
    seconds: float
    detail: str = ""


@dataclass
class ScenarioResult:
    scenario: Scenario
    steps: list[StepResult] = field(default_factory=list)
    error: str | None = None  # the table could not be set up at all
    seconds: float = 0.0
    log: str = ""  # the daemon's last lines when something failed

    @property
    def ok(self) -> bool:
        return (
            self.error is None
            and all(s.ok for s in self.steps)
            and (len(self.steps) == len(self.scenario.steps))
        )

    @property
    def failure(self) -> str | None:
        if self.error is not None:
            return self.error
        failed = next((s for s in self.steps if not s.ok), None)
        if failed is None:
            return None if self.ok else "not every step ran"
        return f"step {failed.step.number} ({failed.step.describe()}): {failed.detail}"


class StepRunner:
    def __init__(self, table: TableUnderTest, deadline: float) -> None:
        self.table = table
        self.deadline = deadline

    def time_left(self, step: Step) -> float:
        left = self.deadline - time.monotonic()
        if left <= 0:
            raise RigFailure("the scenario ran out of time")
        return min(step.timeout, left)

    def do(self, step: Step) -> str:
        return getattr(self, f"_{step.action}")(step, step.value) or ""

    def _io(self) -> Any:
        if self.table.io is None:
            raise RigFailure('this table has no rig pins ([gpio] pin_factory = "rig")')
        return self.table.io

    def _stake(self, step: Step, seats: list[int]) -> None:
        for seat in seats:
            self._io().place_stake(seat)

    def _lift(self, step: Step, seats: list[int]) -> None:
        for seat in seats:
            self._io().lift_stake(seat)

    def _press(self, step: Step, button: str) -> None:
        self.table.tap(button)

    def _key(self, step: Step, on: bool) -> None:
        self._io().turn_key(on)

    def _command(self, step: Step, cmd: str) -> str:
        args = step.options.get("args", {})
        refused = step.options.get("refused")
        try:
            result = self.table.call(cmd, privileged=step.options.get("privileged", False), **args)
        except ControlError as exc:
            if refused is not None and refused in str(exc):
                return f"refused as expected: {exc}"
            raise
        if refused is not None:
            raise ExpectationFailed(
                f"{cmd} was accepted ({result!r}); expected a refusal saying {refused!r}"
            )
        if "result" in step.options:
            why = subset_mismatch(step.options["result"], result)
            if why is not None:
                raise ExpectationFailed(f"{cmd} answered {result!r}: {why}")
        return str(result)[:100]

    def _emulator(self, step: Step, cmd: str) -> None:
        self.table.emulate(cmd, **step.options.get("args", {}))

    def _deck(self, step: Step, cards: list[str]) -> None:
        codes = [int(c) for c in parse_cards(" ".join(cards), unique=False)]
        self.table.emulate("arrange", cards=codes, now=bool(step.options.get("now", False)))

    def _draw(self, step: Step, count: int) -> str:
        """The dealer draws from the shoe; like a dealer, the rig goes on once the table has
        seen the cards (the daemon's count of cards dealt in the round)."""
        before = self.table.status().get("dealt", 0)
        cards = self.table.emulate("draw", count=count)["cards"]

        def seen() -> bool:
            status = self.table.status()
            return status.get("dealt", 0) >= before + count or status["round"] is None

        what = f"the table to see {count} card(s)"
        self.table.wait_until(seen, what, timeout=self.time_left(step))
        return " ".join(card_name(c) if c is not None else "?" for c in cards)

    def _wait(self, step: Step, states: str | list[str]) -> str:
        wanted = [states] if isinstance(states, str) else states
        return self.table.wait_for_state(*wanted, timeout=self.time_left(step))["state"]

    def _sleep(self, step: Step, seconds: float) -> None:
        time.sleep(min(seconds, self.time_left(step)))

    def _kill(self, step: Step, _value: bool) -> None:
        self.table.kill()

    def _start(self, step: Step, _value: bool) -> None:
        self.table.start(timeout=self.time_left(step))

    def _restart(self, step: Step, _value: bool) -> None:
        self.table.restart(timeout=self.time_left(step))

    def _expect(self, step: Step, expect: dict[str, Any]) -> None:
        checks = Expectations(self.table, expect)
        end = time.monotonic() + self.time_left(step)
        while True:
            found = checks.mismatches()
            if not found:
                return
            if time.monotonic() >= end:
                raise ExpectationFailed("; ".join(found))
            time.sleep(POLL)


FAILURES = (CroupierError, DriverError, LinkError, OSError)


def wired_mismatch(scenario: Scenario, table: WiredTable) -> str | None:
    """Why ``scenario`` cannot run on the wired controller (None: it can)."""
    if scenario.overrides:
        return (
            f"it changes the table's configuration ({', '.join(scenario.overrides)}): it"
            " runs on the simulated table only"
        )
    wanted = load_table_config(scenario.config).profile.name
    if wanted != table.config.profile.name:
        return f"it needs a {wanted} table; the controller plays {table.config.profile.name}"
    return None


def run_scenario(scenario: Scenario, wiring: Wiring | None = None) -> ScenarioResult:
    """Play ``scenario`` on a fresh simulated table, or with ``wiring`` on a real controller
    the rig is cabled to; never raises for a failure of the table (the result says what
    failed)."""
    result = ScenarioResult(scenario)
    started = time.monotonic()
    table: TableUnderTest | None = None
    try:
        if wiring is None:
            table = SimTable(scenario.config, overrides=scenario.table_overrides)
        else:
            table = WiredTable(wiring)
            if (why := wired_mismatch(scenario, table)) is not None:
                table.close()
                result.error = f"not run on {wiring.source}: {why}"
                return result
        with table:
            runner = StepRunner(table, started + scenario.timeout)
            for step in scenario.steps:
                t0 = time.monotonic()
                try:
                    detail = runner.do(step)
                except FAILURES as exc:
                    result.steps.append(StepResult(step, False, time.monotonic() - t0, str(exc)))
                    result.log = table.daemon_log(25)
                    break
                result.steps.append(StepResult(step, True, time.monotonic() - t0, detail))
    except FAILURES as exc:
        result.error = f"the table did not start: {exc}"
        if table is not None:
            result.log = table.final_log
    result.seconds = time.monotonic() - started
    return result

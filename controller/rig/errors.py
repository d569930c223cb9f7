"""What can go wrong on the rig: a scenario file that does not say something the rig can do,
a table that does not do what it was awaited to do, an expectation that does not hold."""

from __future__ import annotations

from controller.errors import CroupierError


class ScenarioError(CroupierError, ValueError):
    """A scenario file is malformed: carries the file, the step and the reason."""

    def __init__(self, source: str, where: str, reason: str) -> None:
        self.source = source
        self.where = where
        self.reason = reason
        super().__init__(f"{source}: {where}: {reason}")


class RigFailure(CroupierError, RuntimeError):
    """The simulated table did not do what the rig waited for (a timeout, the daemon died,
    the daemon refused a command). A scenario reports it as a failed step."""


class ExpectationFailed(CroupierError, AssertionError):
    """An expectation of a scenario step does not hold: says what was expected and seen."""

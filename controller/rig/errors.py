"""What can go wrong on the rig besides a malformed scenario file (a
:class:`~controller.validation.ConfigError`): a table that does not do what it was awaited
to do, an expectation that does not hold."""

from __future__ import annotations

from controller.errors import CroupierError


class RigFailure(CroupierError, RuntimeError):
    """The simulated table did not do what the rig waited for (a timeout, the daemon died,
    the daemon refused a command). A scenario reports it as a failed step."""


class ExpectationFailed(CroupierError, AssertionError):
    """An expectation of a scenario step does not hold: says what was expected and seen."""


class RigStopped(CroupierError):
    """The rig is stopping (a stop signal reached it): a wait of a rig thread was cut short.
    Not a :class:`RigFailure`: the table did nothing wrong, and no step or round failed."""

"""A :class:`~firmware_bridge.log_budget.LogBudget`'s summaries written when their window
ends, even if no complaint comes after it: the asyncio adapter of an owner that does not wake
up regularly by itself (the control socket's failed accepts, croupier-web's refusals).

One timer, armed for the earliest window holding complaints not logged
(:meth:`~firmware_bridge.log_budget.LogBudget.next_due`) and armed again for the next one
after it fires; :meth:`SummaryTimer.close` writes every window's summary, ended or not, so a
stop loses none. The shuffler client arms the same summaries on the timer it keeps for its
session (drivers/shuffler_client.py).
"""

from __future__ import annotations

import asyncio
import math
from collections.abc import Callable, Hashable
from typing import Generic, TypeVar

from firmware_bridge.log_budget import LogBudget, Suppressed

KindT = TypeVar("KindT", bound=Hashable)


class SummaryTimer(Generic[KindT]):
    """``write(summary, now, closing)`` logs one summary (``now`` on ``clock``; ``closing``:
    written at the stop, its window not over); ``clock`` is the clock the owner gives the
    budget its ``now`` on (the running loop's when None)."""

    def __init__(
        self,
        budget: LogBudget[KindT],
        write: Callable[[Suppressed[KindT], float, bool], None],
        clock: Callable[[], float] | None = None,
    ) -> None:
        self.budget = budget
        self.write = write
        self.clock = clock or (lambda: asyncio.get_running_loop().time())
        self._timer: asyncio.TimerHandle | None = None
        self._due = 0.0  # on ``clock``: the window end the timer is armed for

    def flush(self) -> None:
        """The summaries of the windows that ended by now."""
        now = self.clock()
        for summary in self.budget.due(now):
            self.write(summary, now, False)

    def arm(self) -> None:
        """The timer for the budget's next summary, unless it is armed for it or sooner: a
        kind whose window ends after another's is summarised too."""
        due = self.budget.next_due()
        if due is None or (self._timer is not None and self._due <= due):
            return
        if self._timer is not None:
            self._timer.cancel()
        self._due = due
        delay = max(0.0, due - self.clock())
        self._timer = asyncio.get_running_loop().call_later(delay, self._fire)

    def _fire(self) -> None:
        self._timer = None
        self.flush()
        self.arm()

    def close(self) -> None:
        """At the stop: the summaries of every window, ended or not."""
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        now = self.clock()
        for summary in self.budget.due(math.inf):
            self.write(summary, now, True)

"""Asking the ledger's witness again while it does not answer (pure; time is an input).

A witness that did not answer at power-up leaves the table closed with the ``witness``
condition: a rollback of the ledger cannot be ruled out (docs/ledger.md, "The witness"). The
table core holds one :class:`WitnessRetry`: while the condition is up it says when to ask
again (:meth:`WitnessRetry.tick` at :attr:`WitnessRetry.due`), with backoff from
:data:`FIRST` seconds, doubling up to :data:`CEILING`, on the table's clock; one question is
out at a time (the shell answers it with ``WitnessChecked``). Once the condition is gone the
backoff starts from the beginning again.
"""

from __future__ import annotations

from drivers.reconnect import Backoff

FIRST = 1.0  # seconds after the failure before the witness is asked again
CEILING = 15.0  # seconds between two questions at most


class WitnessRetry:
    def __init__(self) -> None:
        self._backoff = Backoff(initial=FIRST, ceiling=CEILING)
        self.due: float | None = None  # when to ask next (None: not waiting, or asking)
        self._asking = False

    def follow(self, waiting: bool, now: float) -> None:
        """After every input; ``waiting``: the ``witness`` condition is up."""
        if not waiting:
            self.due, self._asking = None, False
            self._backoff.succeeded()
        elif self.due is None and not self._asking:
            self.due = self._backoff.failed(now)

    def tick(self, now: float) -> bool:
        """True when the witness is to be asked now (then nothing more until answered)."""
        if self.due is None or now < self.due:
            return False
        self.due, self._asking = None, True
        return True

    def answered(self) -> None:
        """The answer is in (the condition changes, or stays and the backoff grows)."""
        self._asking = False

"""The table's side of the link to a linked pool, as pure state (no sockets, no clock).

:class:`LinkState` knows whether the link is up, why it is down, when to try again, and what
the table still owes the store once it is back:

- **Openings in doubt**: an ``open_round`` whose commit outcome the table never learned (the
  link failed during the transaction). The table treats its linked stakes as not taken, so
  before the link is reported up again the client makes sure the store does not count them
  either (``PoolTransactions.abandon_round``: void it if it committed, else record it as
  abandoned so a late duplicate can never count).
- **Voids owed**: a misdeal voided a round while the link was down. The void is applied when
  the link is back (the round's linked stakes were already returned at the table).

Reconnection backs off exponentially with full jitter between ``min_delay`` and ``max_delay``
(so a server restart is not met by every table of every casino in the same millisecond), and
starts again from ``min_delay`` after a success. Time is an input: every call takes ``now``
and :attr:`next_attempt` says when the adapter should try again.

:class:`AmountTracker` keeps the last amount seen with its journal sequence number: a
notification older than what the table already shows (the re-read after a reconnect raced
it) is ignored, so the sign never steps back.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field


@dataclass(frozen=True)
class AmountChanged:
    """The pool's amount after a commit by any table (``table`` names it; None when the
    client re-read the amount after joining)."""

    pool: str
    amount: int
    seed: int
    seq: int  # the pool's journal entry that set it
    table: str | None = None
    kind: str = ""  # round.opened, round.settled, ... ("" for a re-read)


@dataclass(frozen=True)
class LinkChanged:
    """The link went up or down. Down: take no linked stakes, show the pool as offline."""

    pool: str
    up: bool
    reason: str = ""
    recovered: tuple = ()  # RoundVoided of rounds a previous run left open (first join only)
    latest_round: str | None = None  # up: this table's round the store opened last


LinkEvent = AmountChanged | LinkChanged


@dataclass(frozen=True)
class OwedVoid:
    rule: str
    cause: str
    now: float


@dataclass
class LinkState:
    min_delay: float = 0.5
    max_delay: float = 30.0
    rng: random.Random = field(default_factory=random.Random)
    up: bool = False
    reason: str = "not connected yet"
    failures: int = 0  # consecutive failed attempts (or losses) since the last success
    next_attempt: float = 0.0  # when to try to connect again
    in_doubt: dict[str, float] = field(default_factory=dict)  # round ID -> now of the opening
    owed_voids: dict[str, OwedVoid] = field(default_factory=dict)

    def lost(self, now: float, reason: str) -> bool:
        """The link failed (or a connection attempt did). Returns True when this is news (the
        link was up). The next attempt is due after the backoff delay."""
        was_up = self.up
        self.up = False
        self.reason = reason
        self.failures += 1
        ceiling = min(self.max_delay, self.min_delay * 2 ** min(self.failures - 1, 30))
        self.next_attempt = now + self.rng.uniform(self.min_delay, max(self.min_delay, ceiling))
        return was_up

    def joined(self) -> None:
        """Connected, the doubts resolved: the link is up."""
        self.up = True
        self.reason = ""
        self.failures = 0

    def open_in_doubt(self, round_id: str, now: float) -> None:
        self.in_doubt[round_id] = now

    def void_owed(self, round_id: str, rule: str, cause: str, now: float) -> None:
        if round_id not in self.in_doubt:  # abandoning an opening in doubt voids it anyway
            self.owed_voids[round_id] = OwedVoid(rule, cause, now)

    @property
    def owes(self) -> bool:
        return bool(self.in_doubt or self.owed_voids)


@dataclass
class AmountTracker:
    pool: str
    last: AmountChanged | None = None

    def offer(self, change: AmountChanged) -> AmountChanged | None:
        """The change if it is newer than the last one seen, else None."""
        if self.last is not None and change.seq <= self.last.seq:
            return None
        self.last = change
        return change

    def read(self, change: AmountChanged) -> AmountChanged | None:
        """The store's own reading of the pool row, which overrides any NOTIFY: anyone who
        may connect to the database may NOTIFY on the channel, and one claiming a sequence
        far ahead made every genuine one look old (the sign froze at its amount). A reading
        is taken after every notification before it was delivered, so it is never behind a
        genuine one. The reading if it differs from what is shown, else None."""
        last = self.last
        if last is not None and (last.seq, last.amount) == (change.seq, change.amount):
            return None
        self.last = change
        return change

"""Who may knock how often: wrong-credential limits and refusal tallies (pure, time as input).

The control socket's privileged commands check the technician credential with scrypt, which
costs tens of milliseconds of CPU on purpose. Without limits a client in the socket's group
could (a) keep a core busy and delay ``status`` and the watchdog, and (b) grow the ledger with
one journal entry per refusal. Two small state machines bound both; the daemon feeds them the
peer's identity (``SO_PEERCRED``) and the loop's clock:

- :class:`FailureLimiter`: at most ``max_failures`` wrong credentials per peer user in a
  sliding ``window``; past that, a request is refused *without* running the KDF until the
  oldest failure leaves the window. Keyed by uid (a new process or connection does not reset
  it); at most ``max_peers`` users are tracked (the oldest forgotten first).
- :class:`RefusalTally`: the first refusal of a quiet period is journaled at once (an alarm
  a surveillance officer sees without delay); later ones in the same ``window`` are counted
  and journaled as one summary entry when the window ends. The journal grows by at most two
  entries per window, however hard the socket is hammered.
"""

from __future__ import annotations

from collections import OrderedDict, deque
from dataclasses import dataclass, field
from typing import Any

MAX_FAILURES = 5
FAILURE_WINDOW = 60.0  # seconds
REFUSAL_WINDOW = 60.0  # seconds
MAX_PEERS = 1024
MAX_PEERS_PER_SUMMARY = 32


@dataclass(frozen=True)
class Peer:
    """The process at the other end of a Unix socket, from ``SO_PEERCRED``."""

    pid: int
    uid: int
    gid: int


class FailureLimiter:
    def __init__(
        self,
        max_failures: int = MAX_FAILURES,
        window: float = FAILURE_WINDOW,
        max_peers: int = MAX_PEERS,
    ) -> None:
        self.max_failures = max_failures
        self.window = window
        self.max_peers = max_peers
        self._failures: OrderedDict[int, deque[float]] = OrderedDict()

    def retry_after(self, uid: int, now: float) -> float | None:
        """Seconds until ``uid`` may try a credential again, or None if it may now."""
        times = self._failures.get(uid)
        if times is None:
            return None
        while times and times[0] <= now - self.window:
            times.popleft()
        if not times:
            del self._failures[uid]
            return None
        if len(times) < self.max_failures:
            return None
        return times[0] + self.window - now

    def failed(self, uid: int, now: float) -> None:
        times = self._failures.setdefault(uid, deque(maxlen=self.max_failures))
        times.append(now)
        self._failures.move_to_end(uid)
        while len(self._failures) > self.max_peers:
            self._failures.popitem(last=False)

    def succeeded(self, uid: int) -> None:
        self._failures.pop(uid, None)


@dataclass
class _Window:
    started: float
    counts: dict[str, dict[str, int]] = field(default_factory=dict)  # who -> action -> n


class RefusalTally:
    def __init__(self, window: float = REFUSAL_WINDOW) -> None:
        self.window = window
        self._open: _Window | None = None

    def refused(self, who: str, action: str, reason: str, now: float) -> list[dict[str, Any]]:
        """Count a refusal; the journal entries (``access-refused`` data) due now."""
        due = self.flush(now)
        if self._open is None:
            self._open = _Window(now)
            return [*due, {"action": action, "peer": who, "reason": reason, "count": 1}]
        if who not in self._open.counts and len(self._open.counts) >= MAX_PEERS_PER_SUMMARY:
            who = "other peers"  # the summary stays one small entry
        per_peer = self._open.counts.setdefault(who, {})
        per_peer[action] = per_peer.get(action, 0) + 1
        return due

    def next_deadline(self) -> float | None:
        return None if self._open is None else self._open.started + self.window

    def flush(self, now: float, *, force: bool = False) -> list[dict[str, Any]]:
        """The summary of a window that has ended (or any open one, with ``force``)."""
        window = self._open
        if window is None or (not force and now < window.started + self.window):
            return []
        self._open = None
        if not window.counts:
            return []
        total = sum(n for actions in window.counts.values() for n in actions.values())
        return [
            {
                "coalesced": True,
                "count": total,
                "since_s": round(now - window.started, 3),
                "by_peer": window.counts,
            }
        ]

"""Sessions, CSRF tokens and login rate limiting (pure: ``now`` is an argument).

- A session is a random 256-bit ID in a cookie (``HttpOnly``, ``SameSite=Strict``,
  ``Secure`` unless configured off) naming server-side state: its CSRF token and, after a
  login, the user and the secret they typed. The secret stays in this process's memory, is
  forwarded only with an acknowledgement (the daemon checks it again and journals the user),
  and goes when the session ends: idle for ``idle`` seconds, :data:`MAX_AGE` after the login,
  or a logout. A login replaces the session ID (no fixation).
- Two pools, so that nobody without a credential can end a logged-in session:

  * *anonymous* (before a login; what the login form's CSRF token needs): at most
    ``max_anonymous`` (:data:`MAX_ANONYMOUS`), least recently seen first. Beyond the limit
    a new one evicts the least recently seen anonymous session, in O(1) (an ordered dict
    kept in the order sessions were last seen). A flood of them only ever costs another
    visitor the login form they had open ("reload the page").
  * *logged in*: at most ``max_logged_in`` (:data:`MAX_LOGGED_IN`; a table has a handful of
    pit users). Never evicted: a login beyond the limit is refused (:class:`SessionsFull`),
    after the expired ones are dropped, and a session ends only as the first point says.

  Expired sessions are swept from the least recently seen end of both pools whenever the
  store is used (amortised O(1) a call); an expired session is never returned.
- Every state-changing request carries the session's CSRF token (a form field or the
  ``X-CSRF-Token`` header), compared in constant time.
- Failed logins are counted in a bounded :class:`LoginLimiter` that never forgets a key
  whose window is still open; which keys a login counts under (a browser that logged in
  before, the name, the address) is :mod:`controller.web.login_guard`'s.
"""

from __future__ import annotations

import hmac
import secrets
from collections import OrderedDict, deque
from dataclasses import dataclass, field

MAX_AGE = 8 * 3600.0  # a shift
MAX_ANONYMOUS = 10_000  # sessions before a login; the least recently seen goes beyond this
MAX_LOGGED_IN = 256  # logged-in sessions; a login beyond this is refused, nobody is evicted
MAX_TRACKED = 10_000  # addresses / names whose failures are remembered


@dataclass
class Session:
    id: str
    csrf: str
    created: float
    seen: float
    user: str | None = None
    secret: str | None = field(default=None, repr=False)  # never printed, never logged

    @classmethod
    def fresh(cls, now: float) -> Session:
        """A new session: a random ID and CSRF token, seen ``now``, nobody logged in."""
        return cls(secrets.token_urlsafe(32), secrets.token_urlsafe(32), now, now)

    def csrf_ok(self, token: str | None) -> bool:
        return bool(token) and hmac.compare_digest(self.csrf.encode(), str(token).encode())


class SessionsFull(Exception):
    """A login refused: :data:`MAX_LOGGED_IN` sessions are logged in and none has expired."""


class SessionStore:
    """The sessions of one web service: an anonymous pool and a logged-in pool, each an
    ordered dict from the least to the most recently seen session."""

    def __init__(
        self,
        idle: float,
        *,
        max_anonymous: int = MAX_ANONYMOUS,
        max_logged_in: int = MAX_LOGGED_IN,
    ) -> None:
        self.idle = idle
        self.max_anonymous = max_anonymous
        self.max_logged_in = max_logged_in
        self._anonymous: OrderedDict[str, Session] = OrderedDict()
        self._logged_in: OrderedDict[str, Session] = OrderedDict()

    def new(self, now: float) -> Session:
        """A new anonymous session; beyond ``max_anonymous`` the least recently seen
        anonymous one ends (never a logged-in one)."""
        self.sweep(now)
        while len(self._anonymous) >= self.max_anonymous:
            self._anonymous.popitem(last=False)
        session = Session.fresh(now)
        self._anonymous[session.id] = session
        return session

    def get(self, session_id: str | None, now: float) -> Session | None:
        """The live session with this ID (seen now), or None (unknown or expired)."""
        self.sweep(now)
        key = session_id or ""
        pool = self._logged_in if key in self._logged_in else self._anonymous
        session = pool.get(key)
        if session is None:
            return None
        if self._expired(session, now):
            del pool[key]
            return None
        session.seen = now
        pool.move_to_end(key)
        return session

    def login(self, old: Session, user: str, secret: str, now: float) -> Session:
        """A fresh session (new ID and CSRF token) for ``user``; the old one ends.

        Raises :class:`SessionsFull` (the old session kept) when ``max_logged_in`` other
        sessions are logged in and none of them has expired."""
        self.sweep(now)
        others = len(self._logged_in) - (old.id in self._logged_in)
        if others >= self.max_logged_in:
            for stale in [s for s in self._logged_in.values() if self._expired(s, now)]:
                del self._logged_in[stale.id]
            others = len(self._logged_in) - (old.id in self._logged_in)
            if others >= self.max_logged_in:
                raise SessionsFull(
                    f"{self.max_logged_in} sessions are logged in: "
                    "log out of one, or wait for one to end"
                )
        self.end(old.id)
        session = Session.fresh(now)
        session.user, session.secret = user, secret
        self._logged_in[session.id] = session
        return session

    def end(self, session_id: str) -> None:
        self._anonymous.pop(session_id, None)
        self._logged_in.pop(session_id, None)

    def sweep(self, now: float) -> None:
        """Drop the sessions idle for longer than ``idle`` (from the least recently seen end:
        each is looked at once more than it is dropped). One past :data:`MAX_AGE` but still
        in use ends when it is next asked for, or when a login needs its place."""
        for pool in (self._anonymous, self._logged_in):
            while pool:
                oldest = next(iter(pool.values()))
                if now - oldest.seen <= self.idle:
                    break
                pool.popitem(last=False)

    def _expired(self, session: Session, now: float) -> bool:
        return now - session.seen > self.idle or (
            session.user is not None and now - session.created > MAX_AGE
        )

    @property
    def anonymous(self) -> int:
        return len(self._anonymous)

    @property
    def logged_in(self) -> int:
        return len(self._logged_in)

    def __len__(self) -> int:
        return len(self._anonymous) + len(self._logged_in)


class LoginLimiter:
    """Failed logins per key in a sliding window of ``window`` seconds, at most ``capacity``
    keys remembered (:data:`MAX_TRACKED`).

    Which keys a login is counted under is :mod:`controller.web.login_guard`'s policy. What
    this class guarantees: a key's count never drops while its window lasts. Beyond
    ``capacity`` the keys whose last failure has left the window are forgotten first (the
    table is ordered by last failure, so that costs O(1) a key); when every remembered key
    is still live, a new key is not remembered and :meth:`wait` refuses it until the oldest
    live one expires, so a flood of new keys (names, addresses) fails closed instead of
    making room by forgetting somebody's failures. Each key keeps at most ``attempts``
    times: only the last ``attempts`` decide.
    """

    def __init__(self, attempts: int, window: float, *, capacity: int = MAX_TRACKED) -> None:
        self.attempts = attempts
        self.window = window
        self.capacity = capacity
        self._failures: OrderedDict[str, deque[float]] = OrderedDict()

    def wait(self, keys: list[str], now: float) -> float:
        """Seconds before all of ``keys`` may try again (0: now)."""
        self._forget_expired(now)
        longest = 0.0
        for key in keys:
            times = self._failures.get(key)
            if times is None:
                if len(self._failures) >= self.capacity:  # no room to count it: refuse
                    longest = max(longest, self._oldest_expiry(now))
                continue
            live = [t for t in times if t > now - self.window]
            if len(live) >= self.attempts:
                longest = max(longest, live[0] + self.window - now)
        return longest

    def failed(self, keys: list[str], now: float) -> None:
        """Count a failure for each key (a key there is no room for is left out: :meth:`wait`
        refuses it while the table is full)."""
        self._forget_expired(now)
        for key in keys:
            times = self._failures.get(key)
            if times is None:
                if len(self._failures) >= self.capacity:
                    continue
                times = self._failures[key] = deque(maxlen=self.attempts)
            times.append(now)
            self._failures.move_to_end(key)

    def succeeded(self, keys: list[str]) -> None:
        for key in keys:
            self._failures.pop(key, None)

    def __len__(self) -> int:
        return len(self._failures)

    def _forget_expired(self, now: float) -> None:
        """Drop the keys whose last failure left the window, from the least recently failed
        end (each key is looked at once more than it is dropped)."""
        while self._failures:
            times = next(iter(self._failures.values()))
            if times and times[-1] > now - self.window:
                break
            self._failures.popitem(last=False)

    def _oldest_expiry(self, now: float) -> float:
        times = next(iter(self._failures.values()))
        return max(times[-1] + self.window - now, 0.0)

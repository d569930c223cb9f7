"""Sessions, CSRF tokens and login rate limiting (pure: ``now`` is an argument).

- A session is a random 256-bit ID in a cookie (``HttpOnly``, ``SameSite=Strict``,
  ``Secure`` unless configured off) naming server-side state: its CSRF token and, after a
  login, the user and the secret they typed. The secret stays in this process's memory, is
  forwarded only with an acknowledgement (the daemon checks it again and journals the user),
  and goes when the session ends: idle for ``idle`` seconds, :data:`MAX_AGE` after the login,
  or a logout. A login replaces the session ID (no fixation).
- Every state-changing request carries the session's CSRF token (a form field or the
  ``X-CSRF-Token`` header), compared in constant time.
- Failed logins are counted per client address and per user name; after ``attempts`` in
  ``window`` seconds further tries are refused until the window has passed.
"""

from __future__ import annotations

import hmac
import secrets
from collections import deque
from dataclasses import dataclass, field

MAX_AGE = 8 * 3600.0  # a shift
MAX_SESSIONS = 10_000  # the oldest idle session goes first beyond this
MAX_TRACKED = 10_000  # addresses / names whose failures are remembered


@dataclass
class Session:
    id: str
    csrf: str
    created: float
    seen: float
    user: str | None = None
    secret: str | None = field(default=None, repr=False)  # never printed, never logged

    def csrf_ok(self, token: str | None) -> bool:
        return bool(token) and hmac.compare_digest(self.csrf.encode(), str(token).encode())


class SessionStore:
    def __init__(self, idle: float) -> None:
        self.idle = idle
        self._sessions: dict[str, Session] = {}

    def new(self, now: float) -> Session:
        if len(self._sessions) >= MAX_SESSIONS:
            oldest = min(self._sessions.values(), key=lambda s: s.seen)
            del self._sessions[oldest.id]
        session = Session(secrets.token_urlsafe(32), secrets.token_urlsafe(32), now, now)
        self._sessions[session.id] = session
        return session

    def get(self, session_id: str | None, now: float) -> Session | None:
        """The live session with this ID (seen now), or None (unknown or expired)."""
        session = self._sessions.get(session_id or "")
        if session is None:
            return None
        if now - session.seen > self.idle or (session.user and now - session.created > MAX_AGE):
            del self._sessions[session.id]
            return None
        session.seen = now
        return session

    def login(self, old: Session, user: str, secret: str, now: float) -> Session:
        """A fresh session (new ID and CSRF token) for ``user``; the old one ends."""
        self.end(old.id)
        session = self.new(now)
        session.user, session.secret = user, secret
        return session

    def end(self, session_id: str) -> None:
        self._sessions.pop(session_id, None)

    def __len__(self) -> int:
        return len(self._sessions)


class LoginLimiter:
    def __init__(self, attempts: int, window: float) -> None:
        self.attempts = attempts
        self.window = window
        self._failures: dict[str, deque[float]] = {}

    def wait(self, keys: list[str], now: float) -> float:
        """Seconds before any of ``keys`` may try again (0: now)."""
        longest = 0.0
        for key in keys:
            times = self._recent(key, now)
            if len(times) >= self.attempts:
                longest = max(longest, times[0] + self.window - now)
        return longest

    def failed(self, keys: list[str], now: float) -> None:
        for key in keys:
            if key not in self._failures and len(self._failures) >= MAX_TRACKED:
                self._failures.pop(next(iter(self._failures)))
            self._recent(key, now).append(now)

    def succeeded(self, keys: list[str]) -> None:
        for key in keys:
            self._failures.pop(key, None)

    def _recent(self, key: str, now: float) -> deque[float]:
        times = self._failures.setdefault(key, deque())
        while times and times[0] <= now - self.window:
            times.popleft()
        return times

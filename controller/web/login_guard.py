"""Who a failed login counts against, so that guessing stays slow and nobody without the
credential can lock a pit user out (pure: ``now`` is an argument).

Theory of operation. A name locked after a few failures from anywhere is a lock anyone can
turn: five wrong tries as "pit" kept the pit out for the window. Counting per address alone
lets a guesser with many addresses try without end, and behind the TLS reverse proxy that a
pit screen elsewhere goes through (docs/web.md) every client has the proxy's address. So a
login is counted by what the guesser cannot have, a *device cookie*: a token signed by this
process (HMAC-SHA-256 under a random key made at start) naming the user, issued to a
browser when it logs in (``HttpOnly``, ``SameSite=Strict``, 30 days; OWASP's "device
cookies").

- A browser presenting a valid device cookie for the name it types is a **known device**:
  its failures count against that cookie alone (``attempts`` per ``window``), never against
  the name or the address, and nobody else's failures count against it. The pit's own
  browsers keep logging in while the name is under attack.
- Any other login is an **unknown device**: it counts against the **name** (only names in
  ``[users]``: there is nothing to guess for another, and the table stays as small as the
  user list) and against the **address** (an IPv6 address by its /64, which one host
  usually has whole). Either at ``attempts`` in ``window`` refuses unknown devices, for
  that name or from that address: the guessing rate on a name is ``attempts`` per window
  from the whole world, however many addresses the guesser has.
- An attempt is counted **before** the credential is checked (and forgotten when it was
  right): guesses sent at once cannot all pass the count while their checks run.

What an attacker without the credential can still do: keep a name (or, by addresses, every
name) closed to browsers that never logged in here, or that last did before croupier-web
restarted (the key is in memory only), for as long as the attack goes on. A pit user then
logs in from a browser that has, or acknowledges at the table with the CLI.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import ipaddress
import re
import secrets
from collections.abc import Collection

from controller.web.security import LoginLimiter

DEVICE_COOKIE = "croupier_device"
DEVICE_MAX_AGE = 30 * 86400.0  # seconds a device cookie is honoured after its login
DEVICE_KEY = "device:"  # the limiter key of a known device: this prefix, its nonce, @user
DEVICE_TOKEN_MAX = 256  # characters of a device cookie read; a longer one is unknown
# The shape of a device cookie this process issues (ASCII only): a cookie header is not
# decoded strictly, so a stray byte arrives as a lone surrogate that no MAC can be taken of
DEVICE_TOKEN = re.compile(r"[A-Za-z0-9_-]+\.[0-9]{1,12}\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\Z")


def address_key(remote: str | None) -> str:
    """The limiter key of a client address: IPv4 whole, IPv6 by its /64 (a host usually
    has a whole /64, so counting its addresses one by one would not count it at all)."""
    try:
        address = ipaddress.ip_address(remote or "")
    except ValueError:
        return f"addr:{remote!r}"  # a Unix socket or no peer: one key for them all
    if isinstance(address, ipaddress.IPv6Address):
        if address.ipv4_mapped is not None:
            return f"addr:{address.ipv4_mapped}"
        return f"addr:{ipaddress.ip_network(f'{address}/64', strict=False)}"
    return f"addr:{address}"


class DeviceCookies:
    """Device cookies: ``user.issued.nonce.mac``, the user base64url, the MAC HMAC-SHA-256
    under ``key`` (random per process unless given) over the first three fields."""

    def __init__(self, key: bytes | None = None, max_age: float = DEVICE_MAX_AGE) -> None:
        self._key = key or secrets.token_bytes(32)
        self.max_age = max_age

    def issue(self, user: str, now: float) -> str:
        name = base64.urlsafe_b64encode(user.encode()).decode().rstrip("=")
        body = f"{name}.{int(now)}.{secrets.token_urlsafe(16)}"
        return f"{body}.{self._mac(body)}"

    def device(self, token: str | None, user: str, now: float) -> str | None:
        """The device's ID (its nonce) when ``token`` is a valid, unexpired device cookie
        of ``user``; None otherwise (absent, malformed, forged, another user's, too old)."""
        if not token or len(token) > DEVICE_TOKEN_MAX or not DEVICE_TOKEN.match(token):
            return None
        body, mac = token.rsplit(".", 1)
        if not hmac.compare_digest(self._mac(body).encode(), mac.encode()):
            return None
        name, issued, nonce = body.split(".")
        padded = name + "=" * (-len(name) % 4)
        if base64.urlsafe_b64decode(padded).decode() != user:
            return None
        if not 0 <= now - int(issued) <= self.max_age:
            return None
        return nonce

    def _mac(self, body: str) -> str:
        digest = hmac.new(self._key, body.encode(), hashlib.sha256).digest()
        return base64.urlsafe_b64encode(digest).decode().rstrip("=")


class LoginGuard:
    """The keys of one login attempt, and the limiter that counts them."""

    def __init__(
        self,
        attempts: int,
        window: float,
        users: Collection[str],
        *,
        devices: DeviceCookies | None = None,
    ) -> None:
        # Strangers fill their table (many addresses: a full table refuses new keys), but
        # only a browser holding a cookie this process signed makes a key in a devices'
        # table, so no flood of strangers keeps a known browser out. One devices' table a
        # user: a cookie is issued at every login, so whoever can log in as one user could
        # collect enough to fill a shared table and keep every other user's browsers out.
        self.attempts, self.window = attempts, window
        self.limiter = LoginLimiter(attempts, window)
        self.device_limiters: dict[str, LoginLimiter] = {}
        self.devices = devices or DeviceCookies()
        self.users = frozenset(users)

    def keys(
        self, user: str, remote: str | None, device_token: str | None, now: float
    ) -> list[str]:
        """What an attempt to log in as ``user`` counts against (see the module's header)."""
        device = self.devices.device(device_token, user, now)
        if device is not None and user in self.users:
            return [f"{DEVICE_KEY}{device}@{user}"]  # a nonce is base64url: no @ in it
        keys = [address_key(remote)]
        if user in self.users:
            keys.append(f"user:{user}")
        return keys

    def wait(self, keys: list[str], now: float) -> float:
        return self._limiter(keys).wait(keys, now)

    def attempt(self, keys: list[str], now: float) -> None:
        """Count the attempt now, before its check (undone by :meth:`succeeded`)."""
        self._limiter(keys).failed(keys, now)

    def succeeded(self, keys: list[str]) -> None:
        self._limiter(keys).succeeded(keys)

    def _limiter(self, keys: list[str]) -> LoginLimiter:
        """The devices' table of the user of a known device's key (:meth:`keys` gives it
        alone), the strangers' otherwise."""
        if not keys[0].startswith(DEVICE_KEY):
            return self.limiter
        user = keys[0].partition("@")[2]
        limiter = self.device_limiters.get(user)
        if limiter is None:  # users in [users] only (keys): as many tables as users
            limiter = self.device_limiters[user] = LoginLimiter(self.attempts, self.window)
        return limiter

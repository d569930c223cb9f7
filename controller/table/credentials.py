"""Technician credentials, stored only as salted hashes (scrypt, from the standard library).

A stored credential is one string ``scrypt$N$r$p$SALT$HASH`` (salt and hash in hex), made by
``croupier config hash-credential``; the table configuration keeps that string, never the
secret. :func:`verify` compares in constant time.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets

from controller.errors import CroupierError

N, R, P = 2**14, 8, 1
SALT_BYTES, HASH_BYTES = 16, 32


class CredentialError(CroupierError, ValueError):
    """A stored credential string is malformed."""


def hash_credential(secret: str, *, salt: bytes | None = None) -> str:
    if not secret:
        raise CredentialError("a technician credential cannot be empty")
    salt = salt if salt is not None else secrets.token_bytes(SALT_BYTES)
    digest = hashlib.scrypt(secret.encode(), salt=salt, n=N, r=R, p=P, dklen=HASH_BYTES)
    return f"scrypt${N}${R}${P}${salt.hex()}${digest.hex()}"


def check_stored(stored: str) -> str | None:
    """The reason a stored credential string is malformed, or None."""
    parts = stored.split("$") if isinstance(stored, str) else []
    if len(parts) != 6 or parts[0] != "scrypt":
        return "expected 'scrypt$N$r$p$SALT$HASH' (make one with `croupier config hash-credential`)"
    try:
        n, r, p = (int(x) for x in parts[1:4])
        bytes.fromhex(parts[4])
        if len(bytes.fromhex(parts[5])) != HASH_BYTES or n < 2 or n & (n - 1) or r < 1 or p < 1:
            raise ValueError
    except ValueError:
        return "malformed scrypt parameters, salt or hash"
    return None


def verify(secret: str, stored: str) -> bool:
    reason = check_stored(stored)
    if reason:
        raise CredentialError(f"stored credential: {reason}")
    _, n, r, p, salt, expected = stored.split("$")
    digest = hashlib.scrypt(
        secret.encode(),
        salt=bytes.fromhex(salt),
        n=int(n),
        r=int(r),
        p=int(p),
        dklen=len(bytes.fromhex(expected)),
    )
    return hmac.compare_digest(digest.hex(), expected)

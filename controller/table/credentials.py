"""Technician credentials, stored only as salted hashes (scrypt, from the standard library).

A stored credential is one string ``scrypt$N$r$p$SALT$HASH`` (salt and hash in hex), made by
``croupier config hash-credential``; the table configuration keeps that string, never the
secret. :func:`verify` compares in constant time.

The configuration is read before anything else, so its scrypt cost is bounded
(:data:`KDF_LIMITS`): a typo such as ``N = 2**30`` would otherwise make every check take
minutes and gigabytes. :func:`verify` is CPU-bound (tens of milliseconds): the daemon runs it
off the event loop (controller.table.control.guard).
"""

from __future__ import annotations

from dataclasses import dataclass

from controller.errors import CroupierError

# hashlib (OpenSSL's libcrypto), hmac and secrets are imported by the functions that hash:
# `croupier config check` only reads stored credentials (check_stored)

N, R, P = 2**14, 8, 1
SALT_BYTES, HASH_BYTES = 16, 32


@dataclass(frozen=True)
class KdfLimits:
    """The scrypt parameters a stored credential may ask for."""

    n_min: int = 2**10
    n_max: int = 2**16
    r_max: int = 16
    p_max: int = 4
    memory_max: int = 64 * 1024 * 1024  # 128 * N * r bytes
    salt_bytes: tuple[int, int] = (8, 64)
    hash_bytes: tuple[int, int] = (16, 64)


KDF_LIMITS = KdfLimits()


class CredentialError(CroupierError, ValueError):
    """A stored credential string is malformed."""


def hash_credential(secret: str, *, salt: bytes | None = None) -> str:
    if not secret:
        raise CredentialError("a technician credential cannot be empty")
    import hashlib
    import secrets

    salt = salt if salt is not None else secrets.token_bytes(SALT_BYTES)
    digest = hashlib.scrypt(secret.encode(), salt=salt, n=N, r=R, p=P, dklen=HASH_BYTES)
    return f"scrypt${N}${R}${P}${salt.hex()}${digest.hex()}"


def check_stored(stored: str) -> str | None:
    """The reason a stored credential string is malformed or too costly, or None."""
    parts = stored.split("$") if isinstance(stored, str) else []
    if len(parts) != 6 or parts[0] != "scrypt":
        return "expected 'scrypt$N$r$p$SALT$HASH' (make one with `croupier config hash-credential`)"
    lim = KDF_LIMITS
    if any(len(x) > 12 for x in parts[1:4]):
        return "malformed scrypt parameters"
    try:
        n, r, p = (int(x) for x in parts[1:4])
        salt, digest = bytes.fromhex(parts[4]), bytes.fromhex(parts[5])
    except ValueError:
        return "malformed scrypt parameters, salt or hash"
    if n & (n - 1) or not lim.n_min <= n <= lim.n_max:
        return f"scrypt N must be a power of two in {lim.n_min}..{lim.n_max}, got {n}"
    if not 1 <= r <= lim.r_max or not 1 <= p <= lim.p_max:
        return f"scrypt r must be 1..{lim.r_max} and p 1..{lim.p_max}, got r={r} p={p}"
    if 128 * n * r > lim.memory_max:
        return f"scrypt N*r needs more than {lim.memory_max // 2**20} MiB"
    if not lim.salt_bytes[0] <= len(salt) <= lim.salt_bytes[1]:
        return f"the salt must be {lim.salt_bytes[0]}..{lim.salt_bytes[1]} bytes"
    if not lim.hash_bytes[0] <= len(digest) <= lim.hash_bytes[1]:
        return f"the hash must be {lim.hash_bytes[0]}..{lim.hash_bytes[1]} bytes"
    return None


def verify(secret: str, stored: str) -> bool:
    """Does ``secret`` match the stored hash? CPU-bound: call it off the event loop."""
    reason = check_stored(stored)
    if reason:
        raise CredentialError(f"stored credential: {reason}")
    import hashlib
    import hmac

    _, n, r, p, salt, expected = stored.split("$")
    digest = hashlib.scrypt(
        secret.encode("utf-8", "surrogatepass"),
        salt=bytes.fromhex(salt),
        n=int(n),
        r=int(r),
        p=int(p),
        maxmem=KDF_LIMITS.memory_max + 1024 * 1024,
        dklen=len(bytes.fromhex(expected)),
    )
    return hmac.compare_digest(digest.hex(), expected)

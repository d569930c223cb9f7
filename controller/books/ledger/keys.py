"""The per-table ledger key: the secret that seals rows and chains the journal (HMAC-SHA-256).

Without a key, a row's checksum and an entry's hash are plain SHA-256 of public data: anyone
with write access to the database and the source can edit a row and seal it again. With a key,
both are HMAC-SHA-256 under a 256-bit secret that lives **outside the ledger**, in a file only
the daemon's user can read (``/etc/croupier/ledger.key``, mode 0400, created by
``systemd/install.sh``; ``$CROUPIER_LEDGER_KEY`` or ``[ledger] key`` elsewhere): write access
to the database is then not enough to forge a seal or an entry.

The file is a **keyring**: one key per line (64 hex digits; ``#`` comments), oldest first, the
last one current. Keys are named by their *key ID*, an HMAC of a fixed text under the key, which
names a key without revealing it. The journal records which key chains it from where:
``ledger.created`` (a new ledger) and ``ledger.keyed`` (an existing ledger adopting a key, or a
rotation) carry ``{"key": KEY_ID}`` and are themselves hashed with that key; every entry after
them uses it. A rotation adds a key to the keyring, then journals ``ledger.keyed`` and seals every
row again under the new key; older keys stay in the keyring to verify the entries they chained.
"""

from __future__ import annotations

import hashlib
import hmac
import os
import re
import stat
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path

from controller.books.ledger.errors import LedgerError
from controller.files import FileRefused, check_named, open_regular, write_atomic, write_new

KEY_BYTES = 32
_LINE = re.compile(r"^[0-9a-f]{64}\Z")
_ID_TEXT = b"croupier ledger key id"


class LedgerKeyError(LedgerError):
    """The ledger key file is missing, readable by others, malformed, or does not hold the key
    a ledger was chained with."""


@dataclass(frozen=True)
class LedgerKey:
    secret: bytes

    @property
    def key_id(self) -> str:
        return hmac.digest(self.secret, _ID_TEXT, "sha256").hex()[:16]

    @cached_property
    def _keyed(self) -> hmac.HMAC:
        """HMAC-SHA-256 with the key already taken in: each :meth:`mac` copies it (a third
        faster than keying afresh; the ledger takes two or three MACs per transaction)."""
        return hmac.new(self.secret, digestmod=hashlib.sha256)

    def mac(self, text: bytes) -> str:
        keyed = self._keyed.copy()
        keyed.update(text)
        return keyed.hexdigest()


def digest(text: str, key: LedgerKey | None) -> str:
    """HMAC-SHA-256 of ``text`` under ``key``, or SHA-256 for an unkeyed ledger."""
    data = text.encode()
    return key.mac(data) if key is not None else hashlib.sha256(data).hexdigest()


@dataclass(frozen=True)
class Keyring:
    path: Path
    keys: tuple[LedgerKey, ...]  # oldest first; the last is current

    @property
    def current(self) -> LedgerKey:
        return self.keys[-1]

    def get(self, key_id: str) -> LedgerKey | None:
        return next((k for k in self.keys if k.key_id == key_id), None)

    def require(self, key_id: str) -> LedgerKey:
        key = self.get(key_id)
        if key is None:
            raise LedgerKeyError(
                f"the ledger is chained with key {key_id}, which is not in the keyring "
                f"{self.path} (restore the key file from its backup)"
            )
        return key


SIM_KEY = "ledger.key"  # the simulated table's keyring: beside its ledger, in the state dir


def keyring_beside(ledger_path: Path) -> Keyring | None:
    """The simulated table's keyring (``ledger.key`` beside the ledger), if there is one. A
    real table keeps its keyring in /etc/croupier, away from the ledger's directory."""
    path = Path(ledger_path).parent / SIM_KEY
    return load_keyring(path) if path.exists() else None


def load_keyring(path: Path) -> Keyring:
    """Read a keyring; refuses one that others than its owner may read (one-line errors)."""
    path = Path(path)
    try:
        with open_regular(path) as f:  # a fifo or a terminal named by mistake never blocks
            info = os.fstat(f.fileno())
            text = f.read().decode("ascii")
    except FileNotFoundError:
        raise LedgerKeyError(
            f"no ledger key at {path}: provision it at install (croupier ledger-key create)"
        ) from None
    except PermissionError:
        raise LedgerKeyError(
            f"{path}: permission denied: the ledger key is readable only by the daemon's user "
            "(run as that user, e.g. sudo -u croupier)"
        ) from None
    except FileRefused as exc:
        raise LedgerKeyError(f"{exc}: name the ledger key's file") from None
    except UnicodeDecodeError as exc:  # not "'ascii' codec can't decode byte 0xff ..."
        raise LedgerKeyError(
            f"{path}: not a ledger keyring: byte {exc.start} is 0x{exc.object[exc.start]:02x},"
            " not text (a keyring is lines of 64 hex digits)"
        ) from None
    except OSError as exc:
        raise LedgerKeyError(
            f"{path}: cannot read the ledger key: {exc.strerror or type(exc).__name__}"
        ) from None
    if info.st_mode & 0o077:
        raise LedgerKeyError(
            f"{path}: the ledger key has mode {stat.S_IMODE(info.st_mode):04o}; it must be "
            "readable by its owner only (chmod 0400)"
        )
    keys = []
    for number, line in enumerate(text.splitlines(), 1):
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        if not _LINE.match(line):
            raise LedgerKeyError(f"{path}: line {number}: a key is 64 lowercase hex digits")
        keys.append(LedgerKey(bytes.fromhex(line)))
    if not keys:
        raise LedgerKeyError(f"{path}: the keyring holds no key")
    return Keyring(path, tuple(keys))


def _keyring_text(keys: tuple[LedgerKey, ...]) -> bytes:
    body = "# croupier ledger keyring: oldest first, the last is current; never edit by hand\n"
    return (body + "".join(k.secret.hex() + "\n" for k in keys)).encode()


def _write_keys(path: Path, keys: tuple[LedgerKey, ...]) -> None:
    """Write the keyring atomically with mode 0400."""
    write_atomic(path, _keyring_text(keys), mode=0o400)


def create_keyring(path: Path) -> Keyring:
    """Provision a table's key (refuses to overwrite an existing keyring)."""
    path = Path(path)
    check_named(path)  # Path("") is the current folder
    if path.exists():
        raise LedgerKeyError(f"{path} exists already: a table's key is created once")
    if not path.parent.is_dir():  # /etc/croupier (install) or a table's state directory
        raise LedgerKeyError(f"cannot create {path}: the folder {path.parent} does not exist")
    import secrets  # here: secrets brings random, ~5 ms of every reader's start

    keys = (LedgerKey(secrets.token_bytes(KEY_BYTES)),)
    try:  # exclusively: of two creators at once, one makes it and the other is refused
        write_new(path, _keyring_text(keys), mode=0o400)
    except FileExistsError:
        raise LedgerKeyError(f"{path} exists already: a table's key is created once") from None
    return Keyring(path, keys)


def add_key(keyring: Keyring) -> Keyring:
    """Rotation, first step: a new current key appended to the keyring file."""
    import secrets

    keys = (*keyring.keys, LedgerKey(secrets.token_bytes(KEY_BYTES)))
    _write_keys(keyring.path, keys)
    return Keyring(keyring.path, keys)

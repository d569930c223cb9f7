"""Where an installed table keeps its ledger, the ledger's key and the software manifest
(systemd/install.sh).

A module of its own, importing only os and sys, with the paths as plain strings: the CLI names
them in the help of every ledger command, and ``croupier meters`` or ``events tail`` beside a
running daemon need nothing else of the ledger's code, not even pathlib (bench/pi_budget.py).
"""

from __future__ import annotations

import os
import stat
import sys

STATE_DIR = "/var/lib/croupier"  # the unit's StateDirectory: all croupierd may write there
DEFAULT_PATH = f"{STATE_DIR}/ledger.sqlite3"
KEY_ENV = "CROUPIER_LEDGER_KEY"
DEFAULT_KEY_PATH = "/etc/croupier/ledger.key"


def default_key_path() -> str:
    """``$CROUPIER_LEDGER_KEY``, else the installed table's key file."""
    return os.environ.get(KEY_ENV) or DEFAULT_KEY_PATH


MANIFEST_ENV = "CROUPIER_MANIFEST"
MANIFEST_IN_PREFIX = "share/croupier/manifest.json"  # under sys.prefix


def default_manifest_path() -> str:
    """``$CROUPIER_MANIFEST``, else the manifest installed with the software (the
    self-check's, controller.books.ledger.selfcheck)."""
    return os.environ.get(MANIFEST_ENV) or os.path.join(sys.prefix, MANIFEST_IN_PREFIX)


SQLITE_HEADER = b"SQLite format 3\x00"  # the first 16 bytes of every SQLite database
NOT_A_LEDGER = "is not a ledger: the file is not an SQLite database"


def ledger_file_problem(path: str) -> str | None:
    """Why the file at ``path`` cannot be a ledger (``croupier config check``): a directory,
    a device or another file than an SQLite database. None when it may be one: no file yet
    (the daemon creates it), an empty one, a database, or one this user may not read (the
    daemon's user may)."""
    try:
        info = os.stat(path)
        if not stat.S_ISREG(info.st_mode):
            return f"{path} is not a regular file"
        if info.st_size == 0:
            return None
        with open(path, "rb") as file:
            head = file.read(len(SQLITE_HEADER))
    except (FileNotFoundError, PermissionError):
        return None
    except OSError as exc:
        return f"{path}: {exc.strerror}"
    return None if head == SQLITE_HEADER else f"{path} {NOT_A_LEDGER}"

"""Where an installed table keeps its ledger, the ledger's key and the software manifest
(systemd/install.sh).

A module of its own, importing only os and sys, with the paths as plain strings: the CLI names
them in the help of every ledger command, and ``croupier meters`` or ``events tail`` beside a
running daemon need nothing else of the ledger's code, not even pathlib (bench/pi_budget.py).
"""

from __future__ import annotations

import os
import sys

DEFAULT_PATH = "/var/lib/croupier/ledger.sqlite3"
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

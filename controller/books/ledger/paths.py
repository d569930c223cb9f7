"""Where an installed table keeps its ledger and the ledger's key (systemd/install.sh).

A module of its own, importing only os, with the paths as plain strings: the CLI names them in
the help of every ledger command, and ``croupier meters`` or ``events tail`` beside a running
daemon need nothing else of the ledger's code, not even pathlib (bench/pi_budget.py).
"""

from __future__ import annotations

import os

DEFAULT_PATH = "/var/lib/croupier/ledger.sqlite3"
KEY_ENV = "CROUPIER_LEDGER_KEY"
DEFAULT_KEY_PATH = "/etc/croupier/ledger.key"


def default_key_path() -> str:
    """``$CROUPIER_LEDGER_KEY``, else the installed table's key file."""
    return os.environ.get(KEY_ENV) or DEFAULT_KEY_PATH

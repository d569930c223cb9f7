"""A pool's end of life: retiring it, its amount and reserve transferred to another pool or
held for the regulator's disposition (docs/regulatory.md).

A progressive's amount belongs to the players: it may be reduced or transferred only by a
win, or on a documented malfunction or the closure of the game (Michigan R 432.1838(4)).
So retirement takes one of :class:`RetireReason` with the document's text, a technician,
and the technician credential (checked by the command that calls the ledger), and is
refused otherwise. It is one journaled money event (``pool.retired``): the pool's displayed
amount and reserve are set to zero (kept in its correction meters, so the meter identities
still hold) and, with a transfer, added to the other pool's; the pool then takes no more
contributions and cannot be configured again. The set of retired pools is kept in the
``meta`` row ``retired_pools`` in the same transaction, and ``meters verify`` checks it
against the journal's replay.
"""

from __future__ import annotations

import enum
import json
from typing import Any

from controller.books.ledger.db import Database
from controller.books.ledger.errors import LedgerError

META_KEY = "retired_pools"


class RetireReason(enum.Enum):
    CLOSURE = "closure"
    MALFUNCTION = "malfunction"


def reason(value: Any) -> RetireReason:
    try:
        return RetireReason(value)
    except ValueError:
        allowed = ", ".join(r.value for r in RetireReason)
        raise LedgerError(
            f"retiring a pool: refused, reason {value!r}; a progressive's amount is reduced or "
            f"transferred only on a win or for: {allowed} (with its document)"
        ) from None


def retired_pools(db: Database) -> dict[str, int]:
    """Retired pool -> the journal entry that retired it."""
    row = db.execute("SELECT value FROM meta WHERE key = ?", (META_KEY,)).fetchone()
    return json.loads(row[0]) if row else {}


def store_retired(db: Database, retired: dict[str, int]) -> None:
    db.execute(
        "INSERT INTO meta (key, value) VALUES (?, ?) "
        "ON CONFLICT (key) DO UPDATE SET value = excluded.value",
        (META_KEY, json.dumps(retired, sort_keys=True)),
    )

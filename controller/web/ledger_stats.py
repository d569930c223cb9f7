"""A table's totals from its ledger, read-only and incrementally (for the page and /metrics).

The ledger is opened with :class:`~controller.books.ledger.reader.LedgerReader` (no lock, no
write: the web service's user has read access to the file only). Each :meth:`LedgerStats.refresh`
reads the rounds closed since the last one (by their journal sequence), so a scrape costs
the rounds since the previous scrape, not the table's history. Handle counts the stakes of
settled rounds (a void returns its stakes, MD-S1..S3, so it is no handle); paid counts what
each wager paid. Not thread-safe: call from one thread (SQLite connections belong to one).
"""

from __future__ import annotations

import json
from collections import Counter, deque
from datetime import datetime
from pathlib import Path
from typing import Any

from controller.books.ledger.errors import LedgerError
from controller.books.ledger.reader import LedgerReader

HOUR = 3600.0


def _epoch(wall: str | None) -> float | None:
    try:
        return datetime.fromisoformat(wall).timestamp() if wall else None
    except ValueError:
        return None


class LedgerStats:
    def __init__(self, path: Path) -> None:
        self.path = path
        self._reader: LedgerReader | None = None
        self._seq = 0
        self.rounds: Counter[tuple[str, str]] = Counter()  # (settled|voided, rule) -> n
        self.handle: Counter[str] = Counter()  # wager -> minor units staked
        self.paid: Counter[str] = Counter()  # wager -> minor units paid
        self._closed: deque[float] = deque()  # wall times of rounds closed in the last hour
        self.pools: list[dict[str, Any]] = []
        self.hits: list[dict[str, Any]] = []

    def refresh(self, now_wall: float) -> None:
        """Read what is new; LedgerError if the ledger cannot be read."""
        if self._reader is None:
            self._reader = LedgerReader.open(self.path)
        db = self._reader.db
        try:
            rows = db.execute(
                "SELECT close_seq, state, rule, stakes, paid, closed_wall FROM rounds"
                " WHERE close_seq > ? ORDER BY close_seq",
                (self._seq,),
            ).fetchall()
            for seq, state, rule, stakes, paid, wall in rows:
                self._seq = seq
                self.rounds[state, rule or ""] += 1
                if state == "settled":
                    for wagers in json.loads(stakes or "{}").values():
                        self.handle.update(wagers)
                    for wagers in json.loads(paid or "{}").values():
                        self.paid.update(wagers)
                when = _epoch(wall)
                if when is not None and when > now_wall - HOUR:
                    self._closed.append(when)
            self.pools = [
                {"pool": m["pool"], "bet": m["bet"], **m["meters"]} for m in self._reader.meters()
            ]
            self.hits = [h.to_json() for h in self._reader.hits(limit=100)]
        except (LedgerError, json.JSONDecodeError) as exc:
            self.close()
            raise LedgerError(f"ledger {self.path}: {exc}") from None
        except Exception as exc:  # sqlite3 errors: the file moved, is locked, is damaged
            self.close()
            raise LedgerError(f"ledger {self.path}: {exc}") from None
        while self._closed and self._closed[0] <= now_wall - HOUR:
            self._closed.popleft()

    @property
    def rounds_per_hour(self) -> int:
        """Rounds closed (settled or voided) in the hour before the last refresh."""
        return len(self._closed)

    def close(self) -> None:
        if self._reader is not None:
            self._reader.close()
            self._reader = None

"""The surveillance store: the only place card identities are kept after a round.

One SQLite file beside the ledger (``surveillance.sqlite3`` in the state directory):

- ``rounds``: every played round as ``croupier settle`` reads it (cards, stakes, decisions,
  pool) and the settlement the table made, so ``croupier round show|settle ID`` can replay a
  disputed round with the engine;
- ``audit``: the shuffle audit's position counts (:mod:`controller.books.audit.shuffle_audit`);
- ``deal_frames``: every closed round's DEAL exchanges with the shuffler, each frame exactly as
  it crossed the wire, and the shuffler's identity then; ``deck_checks``: every deck check's
  exchange as it was made (the jackpot evidence bundle's, docs/evidence.md). Like the rounds,
  they are never pruned; a round keeps at most ``MAX_ROUND_FRAMES`` frames
  (:mod:`controller.table.link_evidence`), the rest counted in ``dropped``. A store from
  before them gets the tables when the daemon opens it; read-only, it answers none;
- ``reused``: a round whose ID was already recorded. A round is never overwritten: the first
  record stays the evidence, the second is kept beside it, and :class:`RoundReusedError` tells
  the daemon, which journals an alarm and closes the table (a ledger put back to an older copy
  numbers its rounds again from where that copy ended).

Each row of rounds, deal frames and deck checks is **sealed** with the table's ledger key
(``seal`` = ``KEY_ID:HMAC`` over its fields; a round's: ID, profile, record, result and time;
``controller.books.ledger.keys``), so a record edited or swapped with another round's by
someone without the key is refused when read (:class:`SurveillanceError`) and listed by
:meth:`SurveillanceStore.problems`. Rows written before seals existed have none and are
reported as unsealed.

Status views, metrics and the events other systems read carry no live card data; this file
and the surveillance commands do (DESIGN.md, shuffler trust).
"""

from __future__ import annotations

import contextlib
import hmac
import json
import os
import sqlite3
import stat
from pathlib import Path
from typing import Any

from controller.books.audit.shuffle_audit import ShuffleStats
from controller.books.ledger.keys import Keyring
from controller.errors import CroupierError

SCHEMA = """
CREATE TABLE IF NOT EXISTS rounds (
    round_id TEXT PRIMARY KEY,
    seq INTEGER NOT NULL,
    profile TEXT NOT NULL,
    record TEXT NOT NULL,
    result TEXT NOT NULL,
    wall REAL NOT NULL,
    seal TEXT
);
CREATE TABLE IF NOT EXISTS reused (
    round_id TEXT NOT NULL,
    profile TEXT NOT NULL,
    record TEXT NOT NULL,
    result TEXT NOT NULL,
    wall REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS audit (
    positions INTEGER NOT NULL,
    stats TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS deal_frames (
    round_id TEXT PRIMARY KEY,
    shuffler TEXT NOT NULL,
    exchanges TEXT NOT NULL,
    dropped INTEGER NOT NULL,
    wall REAL NOT NULL,
    seal TEXT
);
CREATE TABLE IF NOT EXISTS deck_checks (
    n INTEGER PRIMARY KEY,
    exchange TEXT NOT NULL,
    wall REAL NOT NULL,
    seal TEXT
);
CREATE INDEX IF NOT EXISTS deck_checks_wall ON deck_checks (wall);
"""


_COLUMNS = "round_id, profile, record, result, wall, seal"
_FRAMES = "round_id, shuffler, exchanges, dropped, wall, seal"
_CHECK = "exchange, wall, seal"


def _sealed_text(*fields: str | float) -> bytes:
    """What a row's seal covers: its fields, a float as its ``repr``. A round's are
    (ID, profile, record, result, wall); the others start with their table's name."""
    return "\x1e".join(repr(f) if isinstance(f, float) else f for f in fields).encode()


class SurveillanceError(CroupierError, LookupError):
    """A round or the audit store cannot be read."""


class RoundReusedError(SurveillanceError):
    """A round ID that the store already holds: the old record is kept, the new one set
    aside in ``reused``; an alarm (a rolled-back ledger, or a round numbered twice)."""


PRIVATE = 0o600  # card identities: the daemon's user only, not the socket's group
SQLITE_SIDE_FILES = ("-wal", "-shm", "-journal")


def _make_private(path: Path) -> None:
    """The store readable by its owner only. The state directory is the socket group's to
    read (the unit's UMask=0027 makes files 0640): the ledger is the technicians', the cards
    are not (every member of the group, the web service too, read them past the credentialed
    surveillance commands). A new file is created 0600 before SQLite opens it; one from
    before is narrowed, its WAL and shared-memory files too (SQLite gives those the
    database's mode when it creates them). OSError (a store the user does not own) as
    opening it would raise."""
    with contextlib.suppress(FileExistsError):
        os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, PRIVATE))
    for name in (path, *(Path(f"{path}{side}") for side in SQLITE_SIDE_FILES)):
        with contextlib.suppress(FileNotFoundError):
            if stat.S_IMODE(os.stat(name).st_mode) != PRIVATE:
                os.chmod(name, PRIVATE)


class SurveillanceStore:
    def __init__(
        self, path: Path, *, read_only: bool = False, keyring: Keyring | None = None
    ) -> None:
        self.path = path
        self.keyring = keyring
        if read_only:
            if not path.exists():
                raise SurveillanceError(f"no surveillance store at {path}")
            self.db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        else:
            path.parent.mkdir(parents=True, exist_ok=True)
            _make_private(path)
            self.db = sqlite3.connect(path)
            self.db.execute("PRAGMA journal_mode=WAL")
            self.db.execute("PRAGMA synchronous=FULL")
            self.db.executescript(SCHEMA)
            columns = {row[1] for row in self.db.execute("PRAGMA table_info(rounds)")}
            if "seal" not in columns:  # a store from before seals
                self.db.execute("ALTER TABLE rounds ADD COLUMN seal TEXT")

    def close(self) -> None:
        self.db.close()

    def add_round(
        self,
        round_id: str,
        profile: str,
        record: dict[str, Any],
        result: dict[str, Any],
        wall: float,
        *,
        audit: ShuffleStats | None = None,
    ) -> None:
        """Record a played round, and with ``audit`` the shuffle audit's counts in the same
        transaction (one commit, one fsync, a round on the settle path). Raises
        RoundReusedError (after keeping the new record in ``reused``, and the audit) when the
        round ID is already recorded: evidence is never overwritten."""
        texts = (json.dumps(record), json.dumps(result))
        seal = self._seal(round_id, profile, *texts, wall)
        with self.db:
            if audit is not None:
                self._write_audit(audit)
            seq = self.db.execute("SELECT coalesce(max(seq), 0) + 1 FROM rounds").fetchone()[0]
            try:
                self.db.execute(
                    "INSERT INTO rounds (round_id, seq, profile, record, result, wall, seal) "
                    "VALUES (?, ?, ?, ?, ?, ?, ?)",
                    (round_id, seq, profile, *texts, wall, seal),
                )
                return
            except sqlite3.IntegrityError:
                self.db.execute(
                    "INSERT INTO reused VALUES (?, ?, ?, ?, ?)", (round_id, profile, *texts, wall)
                )
        raise RoundReusedError(
            f"round {round_id} was recorded before: its first record is kept and this one set "
            f"aside in {self.path} (reused); a ledger put back to an older copy?"
        )

    def _seal(self, *fields: str | float) -> str | None:
        if self.keyring is None:
            return None
        key = self.keyring.current
        return f"{key.key_id}:{key.mac(_sealed_text(*fields))}"

    def _unsealed(self, seal: str | None, *fields: str | float) -> str | None:
        """Why a row's seal does not hold ("not sealed", "does not match"), None when it
        does or there is no keyring to check it with."""
        if self.keyring is None:
            return None
        if not seal:
            return "is not sealed (recorded before seals, or its seal removed)"
        key_id, _, mac = str(seal).partition(":")
        key = self.keyring.get(key_id)
        if key is None or not hmac.compare_digest(key.mac(_sealed_text(*fields)), mac):
            return "does not match its seal (changed outside the table)"
        return None

    def _seal_problem(self, row: tuple[Any, ...]) -> str | None:
        """What is wrong with a round row's seal (None: sound, or no keyring)."""
        rid, profile, record, result, wall, seal = row
        problem = self._unsealed(seal, rid, profile, record, result, wall)
        return None if problem is None else f"round {rid} {problem}"

    def problems(self) -> list[str]:
        """Every round whose seal does not match (or is missing), oldest first."""
        rows = self.db.execute(f"SELECT {_COLUMNS} FROM rounds ORDER BY seq").fetchall()
        found = [p for row in rows if (p := self._seal_problem(row))]
        with contextlib.suppress(sqlite3.OperationalError):  # a store from before frames
            for row in self.db.execute(f"SELECT {_FRAMES} FROM deal_frames ORDER BY wall"):
                if problem := self._frames_problem(row):
                    found.append(problem)
            for n, *check in self.db.execute(f"SELECT n, {_CHECK} FROM deck_checks ORDER BY n"):
                if problem := self._unsealed(check[2], "deck_checks", *check[:2]):
                    found.append(f"deck check {n} {problem}")
        return found

    def _frames_problem(self, row: tuple[Any, ...]) -> str | None:
        """What is wrong with a deal frames row's seal (as :meth:`_seal_problem`)."""
        rid, shuffler, exchanges, dropped, wall, seal = row
        texts = ("deal_frames", rid, shuffler, exchanges, str(dropped))
        problem = self._unsealed(seal, *texts, wall)
        return None if problem is None else f"the deal frames of round {rid} {problem}"

    def round(self, round_id: str) -> dict[str, Any]:
        """A round by ID, or the last one for ``last``. Raises SurveillanceError for an
        unknown round, and for one that does not match its seal (with a keyring)."""
        if round_id == "last":
            row = self.db.execute(
                f"SELECT {_COLUMNS} FROM rounds ORDER BY seq DESC LIMIT 1"
            ).fetchone()
        else:
            row = self.db.execute(
                f"SELECT {_COLUMNS} FROM rounds WHERE round_id = ?", (round_id,)
            ).fetchone()
        if row is None:
            raise SurveillanceError(f"no recorded round {round_id!r} in {self.path}")
        problem = self._seal_problem(row)
        if problem is not None and "not sealed" not in problem:
            raise SurveillanceError(f"{self.path}: {problem}")
        rid, profile, record, result, wall, _ = row
        return {
            "round": rid,
            "profile": profile,
            "record": json.loads(record),
            "result": json.loads(result),
            "wall": wall,
        }

    # --- the shuffler's frames (the evidence bundle) ---------------------------------------

    def add_deal_frames(
        self,
        round_id: str,
        shuffler: dict[str, Any] | None,
        exchanges: list[dict[str, Any]],
        dropped: int,
        wall: float,
    ) -> None:
        """Keep a closed round's DEAL exchanges (:mod:`controller.table.link_evidence`).
        Raises RoundReusedError when the round has them already: they are never replaced."""
        texts = ("deal_frames", round_id, json.dumps(shuffler), json.dumps(exchanges), str(dropped))
        seal = self._seal(*texts, wall)
        try:
            with self.db:
                self.db.execute(
                    "INSERT INTO deal_frames VALUES (?, ?, ?, ?, ?, ?)",
                    (*texts[1:4], dropped, wall, seal),
                )
        except sqlite3.IntegrityError:
            raise RoundReusedError(
                f"round {round_id} has its deal frames in {self.path} already: they are kept"
            ) from None

    def add_deck_check(self, exchange: dict[str, Any], wall: float) -> None:
        """Keep one deck check's exchange as it was made."""
        text = json.dumps(exchange)
        with self.db:
            self.db.execute(
                "INSERT INTO deck_checks (exchange, wall, seal) VALUES (?, ?, ?)",
                (text, wall, self._seal("deck_checks", text, wall)),
            )

    def deal_frames(self, round_id: str) -> dict[str, Any] | None:
        """A round's kept exchanges: ``shuffler``, ``exchanges``, ``dropped``, ``wall``;
        None when the store has none (a round closed before frames were kept, or a store
        from before them opened read-only). SurveillanceError when they do not match their
        seal."""
        try:
            row = self.db.execute(
                f"SELECT {_FRAMES} FROM deal_frames WHERE round_id = ?", (round_id,)
            ).fetchone()
        except sqlite3.OperationalError:  # no such table: a store from before frames
            return None
        if row is None:
            return None
        problem = self._frames_problem(row)
        if problem is not None and "not sealed" not in problem:
            raise SurveillanceError(f"{self.path}: {problem}")
        _, shuffler, exchanges, dropped, wall, _ = row
        return {
            "shuffler": json.loads(shuffler),
            "exchanges": json.loads(exchanges),
            "dropped": dropped,
            "wall": wall,
        }

    def deck_checks_around(
        self, first: float, last: float
    ) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
        """The last deck check before wall time ``first`` and the first one after ``last``
        (each a list of at most one exchange). SurveillanceError for a changed row."""
        try:
            rows = self.db.execute(
                f"SELECT * FROM (SELECT {_CHECK} FROM deck_checks WHERE wall < ? ORDER BY wall "
                f"DESC LIMIT 1) UNION ALL SELECT * FROM (SELECT {_CHECK} FROM deck_checks "
                "WHERE wall > ? ORDER BY wall LIMIT 1)",
                (first, last),
            ).fetchall()
        except sqlite3.OperationalError:  # no such table: a store from before deck checks
            return [], []
        before, after = [], []
        for text, wall, seal in rows:
            problem = self._unsealed(seal, "deck_checks", text, wall)
            if problem is not None and "not sealed" not in problem:
                raise SurveillanceError(f"{self.path}: a deck check {problem}")
            (before if wall < first else after).append(json.loads(text))
        return before, after

    def load_audit(self, positions: int) -> ShuffleStats:
        row = self.db.execute("SELECT positions, stats FROM audit").fetchone()
        if row is None or row[0] != positions:
            return ShuffleStats(positions)
        return ShuffleStats.from_json(json.loads(row[1]))

    def _write_audit(self, stats: ShuffleStats) -> None:
        """The audit's counts, within the caller's transaction."""
        self.db.execute("DELETE FROM audit")
        self.db.execute(
            "INSERT INTO audit VALUES (?, ?)", (stats.positions, json.dumps(stats.to_json()))
        )

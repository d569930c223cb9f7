"""The event journal: append-only, hash-chained, in the ledger's own database.

Every entry has a sequence number (1, 2, 3, ... with no gap), a kind (``round.opened``,
``table.state``...), the caller's monotonic ``now``, a wall-clock time for humans, its data as
canonical JSON, the hash of the previous entry and its own hash::

    hash = SHA-256(prev_hash \\n seq \\n kind \\n repr(now) \\n wall \\n data)

or, in a keyed ledger, HMAC-SHA-256 of the same text under the ledger key (``keys.py``): the
``ledger.created`` or ``ledger.keyed`` entry that names a key (``{"key": KEY_ID}``) and every
entry after it are chained with that key, so an entry cannot be rewritten, nor the chain
recomputed, without the key. The first entry links to 64 zeros. The ``journal_head`` row of
``meta`` records the last sequence number and hash, so cutting entries off the end is caught
too.

Because the journal lives in the same SQLite file as the meters, a money event and its entry
commit in one transaction: :meth:`Journal.append` joins the caller's transaction when there is
one (``Database.transaction``) and makes its own otherwise. Money and self-check kinds
(:data:`LEDGER_KINDS`) are written only by the ledger, which the replay in ``verify.py`` relies
on; everything else (the daemon's state transitions, with their cause and rule IDs) goes
through :meth:`Journal.append`.

:func:`verify_chain` walks the entries in order and names the first bad one: a gap in the
sequence (deleted), content that no longer matches its hash (edited, reordered, inserted with
renumbering), a link that does not match the previous hash (the previous entry rewritten with
a recomputed hash), or a head that does not match the last entry (cut at the end). It also
reports a missing append-only trigger.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from controller.books.ledger.db import Database
from controller.books.ledger.errors import LedgerError
from controller.books.ledger.keys import Keyring, LedgerKey, digest
from controller.books.ledger.schema import GUARDS

GENESIS = "0" * 64
KIND_PATTERN = re.compile(r"^[a-z][a-z0-9_-]*(\.[a-z0-9_-]+)*\Z")
# Kinds only the ledger writes; the replay in verify.py trusts them to be its own.
LEDGER_KINDS = frozenset(
    {
        "ledger.created",
        "ledger.keyed",
        "pool.created",
        "pool.configured",
        "round.opened",
        "round.voided",
        "round.settled",
        "meter.corrected",
        "pool.retired",
        "pools.rebuilt",
        "selfcheck.passed",
        "selfcheck.failed",
        "selfcheck.cleared",
        "rules.changed",
    }
)
KEY_KINDS = ("ledger.created", "ledger.keyed")  # entries that may name the key chaining on
_COLUMNS = "seq, kind, mono, wall, data, prev_hash, hash"
INSERT_ENTRY = f"INSERT INTO journal ({_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?)"
UPSERT_HEAD = (
    "INSERT INTO meta (key, value) VALUES ('journal_head', ?) "
    "ON CONFLICT (key) DO UPDATE SET value = excluded.value"
)


def wall_text(timestamp: float) -> str:
    return datetime.fromtimestamp(timestamp, UTC).isoformat(timespec="milliseconds")


_CANONICAL = json.JSONEncoder(sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def canonical(data: Any) -> str:
    """The one JSON spelling of a value (sorted keys, no spaces) that hashes are taken over.

    Written out again in ``controller/books/evidence_verify.py`` (the regulator's one-file
    verifier imports nothing of Croupier) for the signature and ``rules_sha256``;
    ``tests/regulatory/test_evidence_rules.py`` holds the two spellings equal."""
    return _CANONICAL.encode(data)


def entry_hash(
    prev_hash: str,
    seq: int,
    kind: str,
    mono: float,
    wall: str,
    data: str,
    key: LedgerKey | None = None,
) -> str:
    text = f"{prev_hash}\n{seq}\n{kind}\n{mono!r}\n{wall}\n{data}"
    return digest(text, key)


@dataclass(frozen=True)
class Entry:
    seq: int
    kind: str
    mono: float
    wall: str
    data: dict[str, Any]
    prev_hash: str
    hash: str

    @classmethod
    def from_row(cls, row: tuple[Any, ...]) -> Entry:
        seq, kind, mono, wall, data, prev_hash, digest = row
        return cls(seq, kind, mono, wall, json.loads(data), prev_hash, digest)

    def to_json(self) -> dict[str, Any]:
        return {
            "seq": self.seq,
            "kind": self.kind,
            "now": self.mono,
            "wall": self.wall,
            "data": self.data,
            "hash": self.hash,
        }

    def row(self, text: str) -> tuple[Any, ...]:
        """The journal row, ``text`` being the canonical JSON of ``data``."""
        return (self.seq, self.kind, self.mono, self.wall, text, self.prev_hash, self.hash)


def chained(
    last: tuple[int, str],
    kind: str,
    data: dict[str, Any],
    text: str,
    mono: float,
    wall: str,
    key: LedgerKey | None = None,
) -> Entry:
    """The entry that follows ``last`` (its sequence number and hash); ``text`` is
    ``canonical(data)``; ``key`` the ledger key chaining it (None: unkeyed)."""
    seq = last[0] + 1
    digest_ = entry_hash(last[1], seq, kind, mono, wall, text, key)
    return Entry(seq, kind, mono, wall, data, last[1], digest_)


@dataclass(frozen=True)
class ChainReport:
    entries: int  # entries checked
    head: int  # the last sequence number checked
    problems: list[str]
    first_bad: int | None  # the first bad entry, when the chain itself is broken
    walked: bool = True  # False: the walk stopped at the first bad entry

    @property
    def ok(self) -> bool:
        return not self.problems


class Journal:
    def __init__(self, db: Database, wall_clock: Callable[[], float]) -> None:
        self.db = db
        self.wall_clock = wall_clock
        # (rollbacks seen, seq, hash) of the last entry this writer appended: saves a query
        # per entry; any rollback since invalidates it
        self._last: tuple[int, int, str] | None = None
        self._wall: tuple[float, str] = (float("nan"), "")  # the last wall time and its text

    def append(self, kind: str, data: dict[str, Any], now: float) -> Entry:
        """Journal an event durably (joining the caller's transaction if one is open).

        ``data`` is any JSON object; by convention a state transition carries ``cause`` and
        ``rules`` (RULES.md IDs). Raises LedgerError for a reserved or malformed kind,
        LedgerFullError when the disk is full (nothing written)."""
        if kind in LEDGER_KINDS:
            raise LedgerError(f"journal kind {kind!r} is written by the ledger only")
        return self.write(kind, data, now)

    def write(
        self, kind: str, data: dict[str, Any], now: float, *, key: LedgerKey | None = None
    ) -> Entry:
        """Append any kind, money kinds included (the ledger's own entry point). The entry is
        chained with the ledger's current key, or with ``key`` for the entry that starts
        chaining with it (``ledger.created`` / ``ledger.keyed``)."""
        if not KIND_PATTERN.match(kind):
            raise LedgerError(f"journal kind {kind!r} must look like 'table.state'")
        if not isinstance(data, dict):
            raise LedgerError("journal data must be a JSON object")
        try:
            text = canonical(data)
        except (TypeError, ValueError) as exc:
            raise LedgerError(f"journal data for {kind} is not JSON: {exc}") from None
        stamp = self.wall_clock()
        if stamp != self._wall[0]:  # entries of one instant (one transaction) share the text
            self._wall = (stamp, wall_text(stamp))
        wall = self._wall[1]
        with self.db.transaction(f"journaling {kind}"):
            if self._last is not None and self._last[0] == self.db.rollbacks:
                last = self._last[1:]
            else:
                last = self.db.execute(
                    "SELECT seq, hash FROM journal ORDER BY seq DESC LIMIT 1"
                ).fetchone() or (0, GENESIS)
            entry = chained(last, kind, data, text, float(now), wall, key or self.db.seal_key)
            self.db.execute(INSERT_ENTRY, entry.row(text))
            self.db.execute(UPSERT_HEAD, (f"{entry.seq} {entry.hash}",))
            self._last = (self.db.rollbacks, entry.seq, entry.hash)
        return entry

    def tail(self, count: int, kinds: set[str] | None = None) -> list[Entry]:
        """The last ``count`` entries (of the given kinds), oldest first."""
        where, params = _kind_filter(kinds)
        rows = self.db.execute(
            f"SELECT {_COLUMNS} FROM journal {where} ORDER BY seq DESC LIMIT ?",
            (*params, count),
        ).fetchall()
        return [Entry.from_row(r) for r in reversed(rows)]

    def entries(self, kinds: set[str] | None = None, start: int = 1) -> Iterator[Entry]:
        where, params = _kind_filter(kinds, start)
        cursor = self.db.execute(f"SELECT {_COLUMNS} FROM journal {where} ORDER BY seq", params)
        for row in cursor:
            yield Entry.from_row(row)

    def last_written(self) -> tuple[int, str] | None:
        """The sequence number and hash of the last entry this writer appended."""
        return None if self._last is None else self._last[1:]

    def head(self) -> tuple[int, str]:
        row = self.db.execute("SELECT value FROM meta WHERE key = 'journal_head'").fetchone()
        if row is None:
            return 0, GENESIS
        seq, digest = row[0].split()
        return int(seq), digest


def _kind_filter(kinds: set[str] | None, start: int = 1) -> tuple[str, tuple[Any, ...]]:
    clauses, params = ["seq >= ?"], [start]
    if kinds:
        clauses.append(f"kind IN ({', '.join('?' * len(kinds))})")
        params.extend(sorted(kinds))
    return "WHERE " + " AND ".join(clauses), tuple(params)


def _switch_key(
    seq: int, kind: str, data: str, key: LedgerKey | None, keyring: Keyring | None
) -> tuple[LedgerKey | None, str | None]:
    """The key chaining from entry ``seq`` on, and a problem when it cannot be known."""
    try:
        key_id = json.loads(data).get("key")
    except (ValueError, AttributeError):
        return key, None  # the hash check reports the entry
    if key_id is None:
        return key, None
    if keyring is None:
        return key, (
            f"entry {seq} ({kind}) starts chaining with ledger key {key_id}: the journal can "
            "be verified only with the ledger's keyring (--key, or report day's --ledger-key;"
            " as the daemon's user)"
        )
    found = keyring.get(key_id)
    if found is None:
        return key, f"entry {seq} ({kind}) names ledger key {key_id}, not in {keyring.path}"
    return found, None


def check_chain(
    rows: Iterable[tuple[Any, ...]], head: tuple[int, str], keyring: Keyring | None = None
) -> ChainReport:
    """Check journal rows ``(seq, kind, mono, wall, data, prev_hash, hash)`` in sequence order
    against each other and against the recorded ``head`` (its sequence number and hash);
    names the first bad entry (see the module docstring). Entries from a ``ledger.created`` /
    ``ledger.keyed`` entry naming a key on are checked with that key from ``keyring``. Shared
    with the linked pools' journals (``controller.books.linked.verify``), which are unkeyed."""
    prev, expected, count = GENESIS, 1, 0
    key: LedgerKey | None = None
    for seq, kind, mono, wall, data, prev_hash, digest_ in rows:
        problem = None
        if kind in KEY_KINDS:
            key, problem = _switch_key(seq, kind, data, key, keyring)
            if problem:
                return ChainReport(count, expected - 1, [problem], seq, walked=False)
        if seq != expected:
            problem = (
                f"entry {expected} is missing: the journal jumps from {expected - 1} to {seq} "
                "(entries were deleted)"
                if seq > expected
                else f"entry {seq}: sequence numbers must start at 1"
            )
            bad = expected
        elif entry_hash(prev_hash, seq, kind, mono, wall, data, key) != digest_:
            problem = f"entry {seq} ({kind}) was altered: its content does not match its hash"
            bad = seq
        elif prev_hash != prev:
            problem = (
                f"entry {seq} does not link to entry {seq - 1}: entry {seq - 1} was rewritten "
                "or entries were inserted, removed or reordered there"
            )
            bad = seq - 1
        if problem:
            return ChainReport(count, expected - 1, [problem], bad, walked=False)
        prev, expected, count = digest_, expected + 1, count + 1
    problems, first_bad = [], None
    head_seq, head_hash = head
    last = expected - 1
    if head_seq > last:
        problems.append(
            f"entries {last + 1}..{head_seq} are missing from the end of the journal (deleted)"
        )
        first_bad = last + 1
    elif (head_seq, head_hash) != (last, prev):
        problems.append(
            f"the journal head records entry {head_seq} but the journal ends at entry {last} "
            "with a different hash (the head or the last entries were altered)"
        )
        first_bad = last
    return ChainReport(count, last, problems, first_bad)


Progress = Callable[[int], None]  # told how many more entries were walked (a progress bar)
PROGRESS_STEP = 1000


def counted(rows: Iterable[Any], progress: Progress | None) -> Iterator[Any]:
    """``rows`` unchanged, telling ``progress`` every :data:`PROGRESS_STEP` rows."""
    if progress is None:
        yield from rows
        return
    n = 0
    for n, row in enumerate(rows, 1):
        if n % PROGRESS_STEP == 0:
            progress(PROGRESS_STEP)
        yield row
    progress(n % PROGRESS_STEP)


def verify_chain(journal: Journal, progress: Progress | None = None) -> ChainReport:
    """Check every entry of the journal; see the module docstring. ``progress`` is told how
    many entries were checked as the walk goes."""
    db = journal.db
    cursor = db.execute(f"SELECT {_COLUMNS} FROM journal ORDER BY seq")
    try:
        with db.reading("verifying the journal"):
            report = check_chain(counted(cursor, progress), journal.head(), db.keyring)
    finally:
        cursor.close()
    if not report.walked:
        return report
    problems = list(report.problems)
    if report.entries == 0 and not problems:
        problems.append("the journal is empty: a ledger starts with a ledger.created entry")
    names = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'trigger'")}
    problems.extend(
        f"the safeguard trigger {g} is missing (removed to edit history?)"
        for g in GUARDS
        if g not in names
    )
    return ChainReport(report.entries, report.head, problems, report.first_bad)

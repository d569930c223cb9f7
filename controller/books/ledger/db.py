"""Opening the ledger's SQLite database, its transactions and its sealed rows.

Two ways in:

- :func:`open_writer`: the one process that changes money (the daemon, or a technician command
  while the daemon is stopped). It takes an exclusive ``flock`` on ``<ledger>.lock`` first and
  refuses with :class:`LedgerLockedError` (naming the holder's PID) when another process has it;
  then WAL, ``synchronous=FULL`` (a commit is on the medium when COMMIT returns) and the
  schema migrations.
- :func:`open_reader`: read-only, no lock, no migration, never a write; what the CLI uses to
  read a live ledger beside the daemon or a dead controller's SD card. A WAL database on
  read-only media cannot be opened in place when its ``-shm`` file is missing, so the reader
  falls back to ``immutable=1`` when there is no WAL file to read, or to a private copy of the
  database and its WAL when there is one (committed transactions still in the WAL are never
  ignored).

:meth:`Database.transaction` is ``BEGIN IMMEDIATE`` ... ``COMMIT``; nested uses join the
outer transaction, so a caller can put a money event and its own journal entries in one
commit. Any failure rolls the whole transaction back and SQLite errors become ledger errors
with a technician's message (:func:`translate`); disk full is :class:`LedgerFullError`.
"""

from __future__ import annotations

import contextlib
import json
import os
import sqlite3
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any
from urllib.parse import quote

from controller.books.ledger.errors import (
    LedgerCorruptError,
    LedgerError,
    LedgerFullError,
    LedgerIOError,
    LedgerLockedError,
    LedgerVersionError,
)
from controller.books.ledger.keys import Keyring, LedgerKey, LedgerKeyError, digest
from controller.books.ledger.paths import NOT_A_LEDGER
from controller.books.ledger.schema import MIGRATIONS, SCHEMA_VERSION, SEALED
from controller.files import FileRefused, check_existing
from controller.pidlock import LockHeld, release_lock, take_lock


def translate(exc: sqlite3.Error, path: Path, doing: str) -> LedgerError:
    """The ledger error a technician can act on for a SQLite error."""
    code = getattr(exc, "sqlite_errorcode", None)
    if code == sqlite3.SQLITE_FULL:
        return LedgerFullError(
            f"{path}: the disk is full while {doing}; nothing of it was recorded "
            "(free space on the ledger's filesystem, then retry)"
        )
    if code == sqlite3.SQLITE_NOTADB:
        return LedgerCorruptError(f"{path} {NOT_A_LEDGER} (or its header is damaged)")
    if code == sqlite3.SQLITE_CORRUPT:
        return LedgerCorruptError(f"{path}: the database is damaged ({exc}) while {doing}")
    if code in (sqlite3.SQLITE_IOERR, sqlite3.SQLITE_READONLY, sqlite3.SQLITE_CANTOPEN):
        return LedgerIOError(f"{path}: storage error while {doing}: {exc}")
    return LedgerError(f"{path}: {exc} while {doing}")


_KEY_WHERE = {table: " AND ".join(f"{k} = ?" for k in keys) for table, (keys, _) in SEALED.items()}


def seal(table: str, values: Sequence[Any], key: LedgerKey | None = None) -> str:
    """The checksum of a sealed row over the table name and the values in order:
    HMAC-SHA-256 under the ledger key (``keys.py``), SHA-256 for an unkeyed ledger."""
    text = table + "\x1e" + "\x1e".join(map(repr, values))  # repr: None != 'None'
    return digest(text, key)


KEYS_META = "ledger_keys"  # meta row: JSON [[seq, key_id], ...], where each key chains from


def key_history(db: Database) -> list[tuple[int, str]]:
    """Where each ledger key starts chaining the journal (a cache of the journal's
    ``ledger.created`` / ``ledger.keyed`` entries; verify checks it against them)."""
    row = db.execute("SELECT value FROM meta WHERE key = ?", (KEYS_META,)).fetchone()
    if row is None:
        return []
    try:
        return [(int(seq), str(key_id)) for seq, key_id in json.loads(row[0])]
    except (ValueError, TypeError) as exc:
        raise LedgerCorruptError(f"{db.path}: the meta row {KEYS_META} is damaged: {exc}") from None


def use_keyring(db: Database, keyring: Keyring | None) -> None:
    """Seal with the key the ledger is chained with now. A keyed ledger needs its keyring
    (LedgerKeyError otherwise, for a writer; a reader notes that seals cannot be checked)."""
    db.keyring = keyring
    history = key_history(db)
    if not history:
        db.seal_key = None
        return
    key_id = history[-1][1]
    if keyring is None:
        if not db.readonly:
            raise LedgerKeyError(
                f"{db.path} is sealed with ledger key {key_id}: give its keyring "
                "([ledger] key, --key or $CROUPIER_LEDGER_KEY)"
            )
        db.unverifiable = (
            f"the ledger is sealed with key {key_id}: its seals and journal can be checked "
            "only with the keyring (--key, as the daemon's user)"
        )
        return
    db.seal_key = keyring.require(key_id)


class Database:
    """A connection with the ledger's transaction discipline and row sealing."""

    def __init__(self, conn: sqlite3.Connection, path: Path, *, readonly: bool) -> None:
        self.conn = conn
        self.path = path
        self.readonly = readonly
        self._depth = 0
        self.rollbacks = 0  # counts failed transactions, so caches of this writer can tell
        self._lock_fd: int | None = None
        self._upserts: dict[str, str] = {}  # SQL built once per table (hot path)
        self._selects: dict[tuple[str, str], str] = {}
        self._cleanup: Path | None = None
        self.seal_key: LedgerKey | None = None  # the key rows are sealed with now
        self.keyring: Keyring | None = None
        self.unverifiable: str | None = None  # a keyed ledger read without its keyring
        self.after_commit: list[Callable[[], None]] = []  # e.g. publish the journal head
        self.on_close: list[Callable[[], None]] = []

    def close(self) -> None:
        for hook in self.on_close:
            hook()
        self.on_close.clear()
        self.conn.close()
        if self._lock_fd is not None:
            release_lock(lock_path(self.path), self._lock_fd)  # removed, then the flock dropped
            self._lock_fd = None
        if self._cleanup is not None:
            import shutil  # a private copy was read (below): rare

            shutil.rmtree(self._cleanup, ignore_errors=True)

    @property
    def in_transaction(self) -> bool:
        return self._depth > 0

    def transaction(self, doing: str) -> Transaction:
        """One atomic, durable unit; nested calls join the outermost one."""
        return Transaction(self, doing)

    def _rollback(self) -> None:
        self.rollbacks += 1
        if self.conn.in_transaction:
            self.conn.execute("ROLLBACK")

    def _execute(self, sql: str, doing: str) -> None:
        try:
            self.conn.execute(sql)
        except sqlite3.Error as exc:
            raise translate(exc, self.path, doing) from exc

    @contextlib.contextmanager
    def reading(self, doing: str) -> Iterator[None]:
        """Translate SQLite errors raised inside (also while iterating over a cursor, where
        a damaged page is usually met) into ledger errors naming ``doing``."""
        try:
            yield
        except sqlite3.Error as exc:
            raise translate(exc, self.path, doing) from exc

    def execute(self, sql: str, params: Sequence[Any] = ()) -> sqlite3.Cursor:
        try:
            return self.conn.execute(sql, params)
        except sqlite3.Error as exc:
            raise translate(exc, self.path, "reading" if self.readonly else "writing") from exc

    # -- sealed rows ------------------------------------------------------------------------

    def put(self, table: str, row: dict[str, Any]) -> None:
        """Insert or replace a sealed row (all its columns) with a fresh checksum."""
        keys, cols = SEALED[table]
        names = (*keys, *cols)
        sql = self._upserts.get(table)
        if sql is None:
            updates = ", ".join(f"{c} = excluded.{c}" for c in (*cols, "checksum"))
            sql = (
                f"INSERT INTO {table} ({', '.join(names)}, checksum) "
                f"VALUES ({', '.join('?' * (len(names) + 1))}) "
                f"ON CONFLICT ({', '.join(keys)}) DO UPDATE SET {updates}"
            )
            self._upserts[table] = sql
        values = [row[n] for n in names]
        self.execute(sql, [*values, seal(table, values, self.seal_key)])

    def get(self, table: str, key: Sequence[Any]) -> dict[str, Any] | None:
        """A sealed row by primary key, checked against its checksum (LedgerCorruptError)."""
        rows = self.select(table, _KEY_WHERE[table], key)
        return rows[0] if rows else None

    def select(
        self, table: str, where: str, params: Sequence[Any] = (), *, check: bool = True
    ) -> list[dict[str, Any]]:
        """Sealed rows matching ``where``; each is checked against its checksum unless
        ``check`` is false (a technician re-sealing a row must be able to read it)."""
        keys, cols = SEALED[table]
        names = (*keys, *cols)
        sql = self._selects.get((table, where))
        if sql is None:
            sql = self._selects[table, where] = (
                f"SELECT {', '.join(names)}, checksum FROM {table} WHERE {where}"
            )
        rows = self.execute(sql, params).fetchall()
        for row in rows:
            if check and seal(table, row[:-1], self.seal_key) != row[-1]:
                raise LedgerCorruptError(
                    f"{self.path}: {table} row {'/'.join(map(str, row[: len(keys)]))} does not "
                    "match its checksum (changed outside the ledger, or damaged)"
                )
        return [dict(zip(names, row[:-1], strict=True)) for row in rows]

    def bad_seals(self, table: str, where: str = "1") -> Iterator[tuple[Any, ...]]:
        """Primary keys of the rows of ``table`` (matching ``where``) whose checksum does not
        match."""
        keys, cols = SEALED[table]
        cursor = self.execute(
            f"SELECT {', '.join((*keys, *cols))}, checksum FROM {table} WHERE {where}"
        )
        for row in cursor:
            if seal(table, row[:-1], self.seal_key) != row[-1]:
                yield tuple(row[: len(keys)])


class Transaction:
    """``BEGIN IMMEDIATE`` ... ``COMMIT``, or ROLLBACK on any exception; an inner one joins the
    outermost (a class, not a generator: it runs twice per money event)."""

    __slots__ = ("db", "doing")

    def __init__(self, db: Database, doing: str) -> None:
        self.db = db
        self.doing = doing

    def __enter__(self) -> None:
        db = self.db
        db._depth += 1
        if db._depth == 1:
            try:
                db._execute("BEGIN IMMEDIATE", self.doing)
            except BaseException:
                db._depth = 0
                raise

    def __exit__(self, kind: type[BaseException] | None, *rest: object) -> None:
        db = self.db
        db._depth -= 1
        if db._depth:
            return
        try:
            if kind is None:
                db._execute("COMMIT", self.doing)
                for hook in db.after_commit:
                    hook()
                return
        except BaseException:
            db._rollback()
            raise
        db._rollback()


def _connect(target: str, path: Path, *, uri: bool = False) -> sqlite3.Connection:
    conn = sqlite3.connect(target, uri=uri, isolation_level=None, check_same_thread=False)
    try:
        conn.execute("SELECT count(*) FROM sqlite_master").fetchone()  # really opens the file
    except sqlite3.Error as exc:
        conn.close()
        raise translate(exc, path, "opening the ledger") from exc
    return conn


def _check_file(path: Path, *, must_exist: bool) -> None:
    """A ledger path is a regular file (or, when it may be created, nothing yet): checked
    before a lock file or a database is made beside it (``/tmp`` would make ``/tmp.lock``;
    ``/dev/null`` would be "a disk I/O error")."""
    try:
        check_existing(path)
    except FileRefused as exc:
        raise LedgerIOError(f"{exc}: a ledger is a database file") from None
    if must_exist and not path.exists():
        raise LedgerError(f"no ledger at {path}")


def lock_path(ledger: Path) -> Path:
    """The ledger's lock file, beside it: the one writer holds an flock on it."""
    return Path(f"{ledger}.lock")


def _lock(path: Path) -> int:
    lock = lock_path(path)
    try:
        return take_lock(lock, 0o640)
    except LockHeld as held:
        raise LedgerLockedError(
            f"{path} is open for writing by another process (pid {held.holder}); stop it "
            "(croupierd) first, or use a read-only command"
        ) from None
    except OSError as exc:
        raise LedgerIOError(f"{lock}: cannot create the ledger lock: {exc}") from exc


def migrate(db: Database, migrations: dict[int, str] = MIGRATIONS) -> int:
    """Bring the schema to the newest version known; return it."""
    target = max(migrations)
    version = db.execute("PRAGMA user_version").fetchone()[0]
    if version > target:
        raise LedgerVersionError(
            f"{db.path} has schema version {version}, newer than this software's {target}: "
            "install the croupier version that wrote it"
        )
    for step in range(version + 1, target + 1):
        try:
            db.conn.executescript(
                f"BEGIN IMMEDIATE;\n{migrations[step]}\nPRAGMA user_version = {step};\nCOMMIT;"
            )
        except sqlite3.Error as exc:
            if db.conn.in_transaction:
                db.conn.execute("ROLLBACK")
            raise translate(exc, db.path, f"migrating the schema to version {step}") from exc
    return target


def open_writer(path: Path, *, create: bool = True) -> Database:
    """Open (creating when allowed) the ledger for writing; see the module docstring."""
    path = Path(path)
    _check_file(path, must_exist=not create)
    if not path.parent.is_dir():
        raise LedgerIOError(f"{path.parent}: no such directory for the ledger")
    fd = _lock(path)
    try:
        conn = _connect(str(path), path)
    except BaseException:
        os.close(fd)
        raise
    db = Database(conn, path, readonly=False)
    db._lock_fd = fd
    try:
        mode = db.execute("PRAGMA journal_mode = WAL").fetchone()[0]
        if mode != "wal":
            raise LedgerIOError(f"{path}: SQLite refused WAL mode (got {mode})")
        db.execute("PRAGMA synchronous = FULL")
        db.execute("PRAGMA busy_timeout = 2000")
        migrate(db)
    except BaseException:
        db.close()
        raise
    return db


def open_reader(path: Path) -> Database:
    """Open the ledger read-only without any lock; see the module docstring."""
    path = Path(path)
    _check_file(path, must_exist=True)
    base = f"file:{quote(str(path.resolve()))}?mode=ro"
    cleanup = None
    try:
        conn = _connect(base, path, uri=True)
    except LedgerIOError:
        wal = Path(f"{path}-wal")
        if not wal.exists() or wal.stat().st_size == 0:
            conn = _connect(base + "&immutable=1", path, uri=True)
        else:  # read-only media holding a WAL without its -shm: read a private copy
            import shutil
            import tempfile

            cleanup = Path(tempfile.mkdtemp(prefix="croupier-ledger-"))
            shutil.copy2(path, cleanup / path.name)
            shutil.copy2(wal, cleanup / wal.name)
            copy = quote(str(cleanup / path.name))
            conn = _connect(f"file:{copy}?mode=ro", path, uri=True)
    db = Database(conn, path, readonly=True)
    db._cleanup = cleanup
    version = db.execute("PRAGMA user_version").fetchone()[0]
    if version != SCHEMA_VERSION:
        db.close()
        if version == 0:
            raise LedgerVersionError(f"{path} is not a croupier ledger (it has no schema)")
        hint = " (open it once with the daemon to migrate it)" if version < SCHEMA_VERSION else ""
        raise LedgerVersionError(
            f"{path} has schema version {version}; this software reads version "
            f"{SCHEMA_VERSION}{hint}"
        )
    return db

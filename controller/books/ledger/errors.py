"""Errors of the ledger, each with a message a technician can act on."""

from __future__ import annotations

from controller.errors import CroupierError


class LedgerError(CroupierError):
    """Base of every ledger error. Nothing of the failed operation was written."""


class LedgerLockedError(LedgerError, BlockingIOError):
    """Another process holds the ledger open for writing."""


class LedgerFullError(LedgerError, OSError):
    """The disk (or the ledger's size limit) is full; the event was not recorded."""


class LedgerIOError(LedgerError, OSError):
    """The storage failed to read or write (SQLite I/O error, read-only medium)."""


class LedgerCorruptError(LedgerError):
    """The database is damaged or a sealed row does not match its checksum."""


class LedgerVersionError(LedgerError):
    """The database was written by a different schema version than this software's."""


class RoundStateError(LedgerError, ValueError):
    """A round event that its state forbids (settle a voided round, void an unknown one)."""


class BadRoundError(LedgerError, ValueError):
    """A round's data is not acceptable: malformed stakes, an unknown pay line, a missing or
    extra payout."""


class RoundConflictError(LedgerError, ValueError):
    """A round ID was reused with different content: idempotency protects only true retries."""


class TableClosedError(LedgerError):
    """The power-up self-check failed: no round may touch money until a technician clears it."""

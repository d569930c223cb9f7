"""Errors of the linked-pool store and client, each with a message a technician can act on.

They derive from :class:`~controller.books.ledger.errors.LedgerError`, so the daemon handles a
linked pool's failure as it handles the local ledger's (a failed ``LedgerResult``); the round
errors themselves (``RoundStateError``, ``RoundConflictError``, ``BadRoundError``) are the
ledger's own.
"""

from __future__ import annotations

from controller.books.ledger.errors import LedgerError


class LinkedStoreError(LedgerError):
    """The store refused or failed an operation for a reason other than the link (a pool that
    does not exist, a pool whose rules differ from the table's profile...)."""


class StoreVersionError(LinkedStoreError):
    """The store's schema version is not the one this software uses."""


class LinkDownError(LedgerError, ConnectionError):
    """The link to the store is down, or went down during the operation.

    Nothing of an operation refused this way was counted: an ``open_round`` whose commit
    outcome is unknown is abandoned by the client before the link is reported up again (its
    stakes must be treated as not taken); a ``void_round`` is kept and applied then
    (``queued``); a ``settle_round`` must be asked again, with the same arguments, once the
    link is back."""

    def __init__(self, message: str, *, queued: bool = False) -> None:
        super().__init__(message)
        self.queued = queued

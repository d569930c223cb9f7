"""Opening the ledger at power-up with every safeguard: what the daemon calls, and only this.

:func:`open_ledger` opens the ledger with the table's keyring, runs the power-up self-check
(software manifest and ledger, ``selfcheck.py``), compares the journal head with the witness's
(``witness.py``) and starts publishing the head after every commit. It returns the ledger, the
self-check status and the **named conditions** that keep the table closed:

- ``selfcheck``: the self-check failed, now or earlier (persisted until a technician clears
  it);
- ``ledger-rollback``: the ledger is behind its witness, or differs from the head the witness
  saw (persisted as a self-check failure too);
- ``witness``: a witness is configured but did not answer at power-up (not persisted). The
  daemon asks it again (:attr:`Opened.witness`, a :class:`PendingWitness`) with backoff on the
  table's clock (``controller.table.witness_retry``) and clears the condition once it answers
  with a head this ledger holds (or turns it into ``ledger-rollback`` when it does not).

The simulated table (``[shuffler] emulate = true``) differs in two ways only: a missing software
manifest skips the software check (journaled ``selfcheck.passed`` with ``software: false``)
instead of failing it, and a missing keyring is created in the state directory. A real table
needs both, provisioned at install (``systemd/install.sh``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from controller.books.ledger.keys import SIM_KEY, create_keyring, load_keyring
from controller.books.ledger.paths import default_key_path
from controller.books.ledger.records import SelfCheckStatus
from controller.books.ledger.selfcheck import default_manifest_path, power_up
from controller.books.ledger.store import Ledger
from controller.books.ledger.witness import (
    Head,
    HeadPublisher,
    HttpWitness,
    Witness,
    WitnessError,
    head_problems,
    ledger_id,
)


@dataclass(frozen=True)
class Safeguards:
    """What the table configuration says about the ledger's safeguards."""

    simulated: bool  # the simulated table: see the module docstring
    table_id: str
    key_path: Path | None = None  # None: $CROUPIER_LEDGER_KEY or /etc/croupier/ledger.key
    witness_url: str | None = None  # an HTTP witness; else
    witness_dsn: str | None = None  # the linked-pool store, when the table has a linked pool
    manifest: Path = field(default_factory=default_manifest_path)


@dataclass
class PendingWitness:
    """A witness to compare the ledger with, and then to publish to: :meth:`ask` it (any
    thread: it touches only the witness, and may take its timeout), then :meth:`compare` on
    the ledger's thread."""

    ledger: Ledger
    table: str
    witness: Witness
    identity: str

    def ask(self) -> Head | None:
        """The head the witness saw last (WitnessError when it does not answer: the
        connection is closed, the next ask opens a new one)."""
        try:
            return self.witness.latest(self.identity)
        except WitnessError:
            self.witness.close()
            raise

    def compare(self, seen: Head | None, now: float) -> list[tuple[str, str]]:
        """``[]`` when the ledger holds the head the witness saw: publishing starts after
        every commit. Otherwise ``ledger-rollback``, recorded as a failed self-check."""
        ledger = self.ledger
        problems = head_problems(ledger, seen)
        if problems:
            self.witness.close()
            ledger.record_selfcheck_failure(problems, now)
            return [("ledger-rollback", problems[0])]
        publisher = HeadPublisher(self.witness, self.identity, self.table)

        def publish() -> None:
            last = ledger.journal.last_written()
            if last is not None:
                publisher.offer(*last)

        publisher.offer(*ledger.journal.head())
        ledger.db.after_commit.append(publish)
        ledger.db.on_close.append(publisher.close)
        return []

    def close(self) -> None:
        self.witness.close()


def unanswered(exc: WitnessError) -> str:
    """The ``witness`` condition's reason."""
    return f"{exc}: a rollback of the ledger cannot be ruled out"


@dataclass
class Opened:
    ledger: Ledger
    status: SelfCheckStatus
    conditions: list[tuple[str, str]]  # (condition, reason): each keeps the table closed
    witness: PendingWitness | None = None  # with ``witness``: ask it again, then compare


def keyring_path(safeguards: Safeguards, state_dir: Path) -> Path:
    """Where the table's ledger keyring is: the configuration's, else the simulated table's
    beside the ledger, else $CROUPIER_LEDGER_KEY or /etc/croupier/ledger.key."""
    if safeguards.key_path is not None:
        return safeguards.key_path
    return state_dir / SIM_KEY if safeguards.simulated else Path(default_key_path())


def open_ledger(
    path: Path,
    now: float,
    wall_clock: Callable[[], float],
    safeguards: Safeguards,
    rules: Mapping[str, Any] | None = None,
) -> Opened:
    """Open and check the ledger (see the module docstring); ``rules``: the table's rules
    record, journaled at a start that passes (``controller.books.ledger.rules``). Raises
    LedgerKeyError when the keyring is missing or unreadable on a real table, and the errors
    of ``Ledger.open``."""
    key_path = keyring_path(safeguards, path.parent)
    if safeguards.simulated and not key_path.exists():
        create_keyring(key_path)
    keyring = load_keyring(key_path)
    ledger = Ledger.open(path, now=now, wall_clock=wall_clock, keyring=keyring)
    try:
        manifest: Path | None = safeguards.manifest
        if safeguards.simulated and not safeguards.manifest.exists():
            manifest = None
        status = power_up(ledger, now, manifest, rules=rules)
        conditions = []
        pending = None
        witness = _witness_for(safeguards)
        if witness is not None:
            pending = PendingWitness(ledger, safeguards.table_id, witness, ledger_id(ledger))
            try:
                conditions += pending.compare(pending.ask(), now)
                pending = None
            except WitnessError as exc:
                conditions.append(("witness", unanswered(exc)))
            status = ledger.selfcheck_status()
        if not status.table_may_open:
            reason = "; ".join(status.failures[:2]) or "self-check failed"
            conditions.insert(0, ("selfcheck", reason))
    except BaseException:
        ledger.close()
        raise
    return Opened(ledger, status, conditions, pending)


def _witness_for(safeguards: Safeguards) -> Witness | None:
    if safeguards.witness_url:
        return HttpWitness(safeguards.witness_url)
    if safeguards.witness_dsn:
        from controller.books.linked.witness import PgWitness  # psycopg only when linked

        return PgWitness(safeguards.witness_dsn)
    return None

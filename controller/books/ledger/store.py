"""The ledger's writer: every money event in one durable transaction with its journal entry.

Money events, each one ``BEGIN IMMEDIATE`` ... ``COMMIT`` (WAL, ``synchronous=FULL``) holding
the journal entry and every row it changes, so a crash leaves each event wholly recorded or
absent:

- :meth:`Ledger.open_round` (the dealer's LOCK): the stakes of every seat, and each pool's
  contribution from its qualifying stakes (PRG-1);
- :meth:`Ledger.void_round` (a misdeal, MD-*): every stake returned, progressive included, and
  each contribution reversed exactly (the stakes placed during the round come with the void,
  as with a settlement; a void at start-up recovery returns those of the opening);
- :meth:`Ledger.settle_round` (showdown): the progressive awards resolved on the pool as it
  stands in the transaction (``controller.engine.pools.awards``), the reset to the seed after a 100%
  award (PRG-5), the hit history, and the table wagers' payouts the caller gives;
- :meth:`Ledger.correct_meter`: a technician sets a pool's displayed amount or reserve;
- :meth:`Ledger.configure_pool`: a pool created or its parameters changed, between rounds only.

Events are idempotent by round ID: repeating one with the same content returns the recorded
result (``retried=True``) without applying it again; different content is refused
(RoundConflictError). The money rows are sealed with checksums and checked whenever they are
read for a change, so a damaged row is never re-sealed as if it were sound: the event fails,
and the failure is recorded as a failed self-check, which keeps the table closed
(:class:`TableClosedError` for every round event) until a technician clears it.

Start-up, as the daemon does it::

    ledger = Ledger.open(path, now=loop.time())   # lock, WAL + FULL, migrations
    status = power_up(ledger, now, manifest)      # controller.books.ledger.selfcheck
    if status.table_may_open:
        voided = ledger.recover(now)              # rounds a crash left open: MD-S2
        ledger.configure_pool(config, now)        # parameter changes, between rounds
"""

from __future__ import annotations

import contextlib
import json
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from controller.books.ledger import inputs, lifecycle, rounds
from controller.books.ledger.db import (
    KEYS_META,
    Database,
    key_history,
    open_writer,
    use_keyring,
)
from controller.books.ledger.errors import (
    LedgerCorruptError,
    LedgerError,
    RoundConflictError,
    RoundStateError,
    TableClosedError,
)
from controller.books.ledger.journal import Entry, Journal, canonical, verify_chain
from controller.books.ledger.keys import Keyring, LedgerKeyError
from controller.books.ledger.paths import DEFAULT_PATH
from controller.books.ledger.reader import LedgerView, config_from_text
from controller.books.ledger.records import (
    RoundOpened,
    RoundSettled,
    RoundVoided,
    SelfCheckState,
    SelfCheckStatus,
    Stakes,
    load_stakes,
)
from controller.books.ledger.schema import SCHEMA_VERSION, SEALED
from controller.books.ledger.verify import replay_journal
from controller.engine.pools.awards import outcome_from_json
from controller.engine.pools.config import PoolConfig, check_change
from controller.engine.pools.meters import (
    Contribution,
    PoolArithmeticError,
    PoolState,
    Reversal,
    correct,
    new_pool,
)

RECOVERY_RULE = "MD-S2"
RECOVERY_CAUSE = "the controller restarted while the round was in play"


class Ledger(LedgerView):
    """The ledger opened for writing by this process (see the module docstring)."""

    def __init__(self, db: Database, wall_clock: Callable[[], float]) -> None:
        self.db = db
        self.journal = Journal(db, wall_clock)
        self._failures: list[str] | None = None
        self._config_texts: dict[str, tuple[PoolConfig, str]] = {}  # name -> as last read

    @classmethod
    def open(
        cls,
        path: str | Path = DEFAULT_PATH,
        *,
        now: float,
        wall_clock: Callable[[], float] = time.time,
        create: bool = True,
        keyring: Keyring | None = None,
    ) -> Ledger:
        """Open the ledger (creating it unless ``create`` is false); a new ledger is keyed
        with ``keyring``'s current key from its first entry. Raises LedgerLockedError when
        another process has it, LedgerVersionError for a newer schema, LedgerKeyError when a
        keyed ledger comes without its keyring or an unkeyed one with a keyring (adopt the key
        first: :meth:`rekey`), LedgerIOError / LedgerFullError."""
        db = open_writer(Path(path), create=create)
        try:
            ledger = cls(db, wall_clock)
            ledger._initialise(now, keyring)
        except BaseException:
            db.close()
            raise
        return ledger

    def _initialise(self, now: float, keyring: Keyring | None) -> None:
        if self.db.execute("SELECT 1 FROM journal LIMIT 1").fetchone() is None:
            with self.db.transaction("creating the ledger"):
                import uuid  # a new ledger only

                data: dict[str, Any] = {"ledger_id": uuid.uuid4().hex, "schema": SCHEMA_VERSION}
                key = None
                if keyring is not None:
                    key = keyring.current
                    data["key"] = key.key_id
                entry = self.journal.write("ledger.created", data, now, key=key)
                if key is not None:
                    self._set_key_history([(entry.seq, key.key_id)])
                    self.db.seal_key = key
                self._put_selfcheck(SelfCheckState.OK, [], entry.wall, entry.seq)
        use_keyring(self.db, keyring)
        if keyring is not None and self.db.seal_key is None:
            raise LedgerKeyError(
                f"{self.db.path} is not keyed: adopt the key once with "
                "`croupier ledger-key adopt` (docs/ledger.md, keyed ledgers)"
            )
        status = self.selfcheck_status()
        self._failures = None if status.table_may_open else status.failures

    def transaction(self) -> contextlib.AbstractContextManager[None]:
        """Group several events and journal entries into one commit (all or nothing)."""
        return self.db.transaction("writing a group of events")

    # -- money events -------------------------------------------------------------------------

    @contextlib.contextmanager
    def _event(self, doing: str, now: float, *, when_closed: bool = False) -> Iterator[None]:
        if not when_closed:
            self._refuse_when_closed(doing)
        outermost = not self.db.in_transaction
        try:
            with self.db.transaction(doing):
                yield
        except PoolArithmeticError as exc:
            raise LedgerError(f"{doing}: {exc}") from None
        except LedgerCorruptError as exc:
            if outermost:
                self.record_selfcheck_failure([str(exc)], now)
            raise

    def _refuse_when_closed(self, doing: str) -> None:
        if self._failures is not None:
            raise TableClosedError(
                f"{doing}: refused, the self-check failed "
                f"({'; '.join(self._failures[:1]) or 'no reason recorded'}); a technician "
                "must clear it (croupier selfcheck clear)"
            )

    def open_round(
        self, round_id: str, stakes: Mapping[Any, Mapping[str, int]], now: float
    ) -> RoundOpened:
        """Record a round's stakes (seat -> wager -> amount) and its pool contributions."""
        rid = inputs.round_id(round_id)
        clean = inputs.seat_wagers(stakes, f"round {rid} stakes", positive=True)
        with self._event(f"opening round {rid}", now):
            existing = self.db.get("rounds", (rid,))
            if existing is not None:
                if self._opening_stakes(existing) != clean:
                    raise RoundConflictError(f"round {rid} was already opened with other stakes")
                return self._opened(existing)
            fed = rounds.contributions(clean, self._pools_for_change())
            data = rounds.opened_data(rid, clean, fed)
            entry = self.journal.write("round.opened", data, now)
            round_row, pool_rows = rounds.opened_rows(rid, clean, fed, data, entry)
            self.db.put("rounds", round_row)
            for row in pool_rows:
                self.db.put("round_pools", row)
            self._put_pools(fed, entry.seq)
        return RoundOpened(
            rid,
            clean,
            {name: m.move for name, m in fed.items()},
            {name: m.after.current for name, m in fed.items()},
            entry.seq,
        )

    def void_round(
        self,
        round_id: str,
        now: float,
        *,
        rule: str,
        cause: str,
        stakes: Mapping[Any, Mapping[str, int]] | None = None,
    ) -> RoundVoided:
        """Void a round (a misdeal, MD-*): return every stake, reverse every contribution.

        ``stakes``: every table stake of the round at the void, as for :meth:`settle_round`
        (those placed during the round: UTH Play, a blackjack double, split or insurance...):
        the opening's must be in it, never lowered, and no progressive stake added or changed
        (PRG-2; BadRoundError otherwise); all are recorded as returned (the journal's
        ``added``), and none feeds a pool: only the opening's contributions are reversed.
        Without it (a void at start-up recovery, :meth:`recover`, which knows only what the
        opening took) the stakes of the opening are returned and the entry says
        ``opening_only``.

        A void repeated (crash recovery, a retried write) returns the recorded result when it
        asks the same: the rule, the cause and, if it gives ``stakes``, the same stakes
        returned (a repeat without them knows only the opening's: not a difference).
        RoundConflictError, naming what differs, when it asks another; RoundStateError for a
        settled or unknown round; BadRoundError for stakes as above."""
        rid = inputs.round_id(round_id)
        inputs.text(rule, "the rule voiding the round")
        inputs.text(cause, "the cause of the void")
        final = (
            None
            if stakes is None
            else inputs.seat_wagers(stakes, f"round {rid} stakes", positive=True)
        )
        with self._event(f"voiding round {rid}", now):
            row = self._round_for_change(rid)
            if row["state"] == rounds.RoundState.SETTLED:
                raise RoundStateError(f"round {rid} is settled: a settled round cannot be voided")
            opened = self._opening_stakes(row)
            added = None
            if final is not None:
                bets = {config.bet for config, _ in self._pools_for_change()}
                added = rounds.added_stakes(rid, opened, final, bets)
            returned = rounds.merged(opened, added or {})
            if row["state"] == rounds.RoundState.VOIDED:
                request = rounds.void_request(rule, cause, None if final is None else returned)
                self._refuse_other_repeat(row, request, "voided")
                return self._voided(row)
            pool_rows = self.db.select("round_pools", "round_id = ?", (rid,))
            moved = rounds.reversals(
                (
                    *self._pool_for_change(rp["pool"]),
                    Contribution.from_json(json.loads(rp["contribution"])),
                )
                for rp in pool_rows
            )
            data = rounds.voided_data(rid, rule, cause, returned, moved, added)
            entry = self.journal.write("round.voided", data, now)
            row = rounds.with_stakes(row, returned)
            self.db.put(
                "rounds",
                rounds.closed_round_row(
                    row, rounds.RoundState.VOIDED, entry, returned, rule, cause
                ),
            )
            for rp in pool_rows:
                reversal = canonical(data["pools"][rp["pool"]])
                self.db.put("round_pools", {**rp, "reversal": reversal})
            self._put_pools(moved, entry.seq)
        return RoundVoided(
            rid,
            rule,
            cause,
            returned,
            {name: m.move for name, m in moved.items()},
            {name: m.after.current for name, m in moved.items()},
            entry.seq,
        )

    def settle_round(
        self,
        round_id: str,
        now: float,
        *,
        hits: Mapping[str, Mapping[Any, str | None]] | None = None,
        hands: Mapping[Any, str] | None = None,
        payouts: Mapping[Any, Mapping[str, int]] | None = None,
        stakes: Mapping[Any, Mapping[str, int]] | None = None,
    ) -> RoundSettled:
        """Settle a round.

        ``hits``: for every pool the round staked, each seat's best line of the pool's pay
        table (seats without a line may be left out; give ``{}`` when nobody hit).
        ``hands``: what each seat held, for the hit history. ``payouts``: what each table
        wager of the round pays (stake returned + winnings, 0 when lost); every staked
        wager that feeds no pool needs one. ``stakes``: every table stake at settlement when
        some were placed during the round (Play, Call...). Progressive awards are the
        ledger's to compute. ``rounds.settle_arguments`` makes all four from the engine's
        RoundResult."""
        rid = inputs.round_id(round_id)
        lines = inputs.pool_hits(hits)
        seat_hands = inputs.hands(hands)
        table_paid = inputs.seat_wagers(payouts or {}, f"round {rid} payouts", positive=False)
        final = (
            None
            if stakes is None
            else inputs.seat_wagers(stakes, f"round {rid} stakes", positive=True)
        )
        with self._event(f"settling round {rid}", now):
            row = self._round_for_change(rid)
            opened = self._opening_stakes(row)
            added = {}
            if final is not None:
                bets = {config.bet for config, _ in self._pools_for_change()}
                added = rounds.added_stakes(rid, opened, final, bets)
            request = rounds.settle_request(lines, seat_hands, table_paid, added)
            if row["state"] == rounds.RoundState.SETTLED:
                return self._settled_again(row, request)
            if row["state"] == rounds.RoundState.VOIDED:
                raise RoundStateError(f"round {rid} was voided ({row['rule']}): nothing to settle")
            pool_rows = self.db.select("round_pools", "round_id = ?", (rid,))
            settled = rounds.awards(
                rid,
                lines,
                (
                    (
                        *self._pool_for_change(rp["pool"]),
                        {int(s): v for s, v in json.loads(rp["stakes"]).items()},
                    )
                    for rp in pool_rows
                ),
            )
            every = rounds.merged(opened, added)
            paid = rounds.payouts(rid, every, table_paid, settled)
            data = rounds.settled_data(rid, request, settled)
            entry = self.journal.write("round.settled", data, now)
            row = rounds.with_stakes(row, every)
            self.db.put(
                "rounds", rounds.closed_round_row(row, rounds.RoundState.SETTLED, entry, paid)
            )
            for rp in pool_rows:
                outcome = canonical(data["pools"][rp["pool"]])
                self.db.put("round_pools", {**rp, "outcome": outcome})
            self._put_pools(settled, entry.seq)
            for move in settled.values():
                self._record_hits(rid, move, seat_hands, entry)
        return RoundSettled(
            rid,
            {name: m.move for name, m in settled.items()},
            paid,
            {name: m.after.current for name, m in settled.items()},
            entry.seq,
        )

    def _record_hits(
        self, rid: str, move: rounds.PoolMove, hands: dict[int, str], entry: Entry
    ) -> None:
        rows = rounds.hit_rows(0, rid, move, hands, entry)
        if rows:
            first = self.db.execute("SELECT coalesce(max(hit_id), 0) + 1 FROM hits").fetchone()[0]
            for n, row in enumerate(rows):
                self.db.put("hits", {**row, "hit_id": first + n})

    def correct_meter(
        self, pool: str, meter: str, value: int, now: float, *, technician: str, reason: str
    ) -> PoolState:
        """A technician's correction of a pool's displayed amount or reserve (journaled).
        Allowed while the self-check has failed: it is how a technician repairs meters."""
        inputs.text(technician, "the technician")
        inputs.text(reason, "the reason for the correction")
        inputs.money(value, f"the new {meter}")
        with self._event(f"correcting {pool} {meter}", now, when_closed=True):
            self._refuse_open_rounds(pool, "correct its meters")
            config, state = self._pool_for_change(pool)
            old = getattr(state, meter, None)
            after = correct(state, config, meter, value)
            entry = self.journal.write(
                "meter.corrected",
                {
                    "pool": pool,
                    "meter": meter,
                    "old": old,
                    "new": value,
                    "technician": technician,
                    "reason": reason,
                },
                now,
            )
            next_id = self.db.execute(
                "SELECT coalesce(max(correction_id), 0) + 1 FROM corrections"
            ).fetchone()[0]
            self.db.put(
                "corrections",
                {
                    "correction_id": next_id,
                    "pool": pool,
                    "meter": meter,
                    "old": old,
                    "new": value,
                    "technician": technician,
                    "reason": reason,
                    "mono": float(now),
                    "wall": entry.wall,
                    "seq": entry.seq,
                },
            )
            self._put_pool(config, after, entry.seq)
        return after

    def retire_pool(
        self,
        pool: str,
        now: float,
        *,
        technician: str,
        reason_code: str,
        reason: str,
        transfer_to: str | None = None,
    ) -> dict[str, PoolState]:
        """Retire a pool (``controller.books.ledger.lifecycle``): its amount and reserve go to
        ``transfer_to`` or are held for the regulator; journaled ``pool.retired``. Refused for
        any reason but closure or a documented malfunction, with a round open on either pool,
        for a retired pool, or when the transfer would lift the other pool above its cap."""
        code = lifecycle.reason(reason_code)
        inputs.text(technician, "the technician")
        inputs.text(reason, "the document of the closure or malfunction")
        with self._event(f"retiring pool {pool}", now):
            retired = lifecycle.retired_pools(self.db)
            for name in (pool, transfer_to):
                if name in retired:
                    raise LedgerError(f"pool {name} was retired (journal entry {retired[name]})")
            if transfer_to == pool:
                raise LedgerError(f"pool {pool} cannot be transferred to itself")
            self._refuse_open_rounds(pool, "retire it")
            config, state = self._pool_for_change(pool)
            amount, reserve = state.current, state.reserve
            after = {
                pool: (config, correct(correct(state, config, "current", 0), config, "reserve", 0))
            }
            if transfer_to is not None:
                self._refuse_open_rounds(transfer_to, "transfer an amount to it")
                to_config, to_state = self._pool_for_change(transfer_to)
                moved = correct(to_state, to_config, "current", to_state.current + amount)
                after[transfer_to] = (
                    to_config,
                    correct(moved, to_config, "reserve", to_state.reserve + reserve),
                )
            entry = self.journal.write(
                "pool.retired",
                {
                    "pool": pool,
                    "to": transfer_to,
                    "amount": amount,
                    "reserve": reserve,
                    "reason_code": code.value,
                    "reason": reason,
                    "technician": technician,
                },
                now,
            )
            for config, state in after.values():
                self._put_pool(config, state, entry.seq)
            lifecycle.store_retired(self.db, {**retired, pool: entry.seq})
        return {name: state for name, (_, state) in after.items()}

    def configure_pool(self, config: PoolConfig, now: float) -> PoolState:
        """Create a pool, or change its parameters between rounds (journaled with the change).
        A cap below the amount displayed is refused (ConfigError), as is any change while a
        round that staked on the pool is open (RoundStateError)."""
        text = canonical(config.to_json())
        with self._event(f"configuring pool {config.name}", now):
            retired = lifecycle.retired_pools(self.db)
            if config.name in retired:
                raise LedgerError(
                    f"pool {config.name} was retired (journal entry "
                    f"{retired[config.name]}): take [pools.{config.name}] out of "
                    "the table configuration"
                )
            row = self.db.get("pools", (config.name,))
            if row is None:
                clash = [c.name for c, _ in self._pools_for_change() if c.bet == config.bet]
                if clash:
                    raise LedgerError(f"pool {clash[0]} already takes the {config.bet} stakes")
                state = new_pool(config)
                entry = self.journal.write(
                    "pool.created", {"pool": config.name, "config": config.to_json()}, now
                )
                self._put_pool(config, state, entry.seq, text)
                return state
            state = PoolState.from_row(row)
            if row["config"] == text:
                return state
            self._refuse_open_rounds(config.name, "change its parameters")
            old = config_from_text(row["config"])
            check_change(old, config, state.current)
            before, after = old.to_json(), config.to_json()
            changed = {k: [before[k], after[k]] for k in after if before.get(k) != after[k]}
            entry = self.journal.write(
                "pool.configured",
                {"pool": config.name, "config": after, "changed": changed},
                now,
            )
            self._put_pool(config, state, entry.seq, text)
        return state

    def rebuild_pools(self, now: float, *, technician: str, reason: str) -> dict[str, PoolState]:
        """Rewrite every pool's meters as the journal's replay computes them, journaled with
        each difference. Allowed while the self-check has failed: it is how a technician
        repairs a damaged pool row, the journal being the record of every money event.
        Refused when the journal itself is broken or does not replay cleanly."""
        inputs.text(technician, "the technician")
        inputs.text(reason, "the reason for rebuilding the pools")
        chain = verify_chain(self.journal)
        if not chain.ok:
            raise LedgerError(f"cannot rebuild from a broken journal: {chain.problems[0]}")
        replay = replay_journal(self)
        if replay.problems:
            raise LedgerError(f"the journal does not replay cleanly: {replay.problems[0]}")
        with self._event("rebuilding the pools from the journal", now, when_closed=True):
            stored = {row["name"]: row for row in self.db.select("pools", "1", check=False)}
            strays = sorted(set(stored) - set(replay.pools))
            if strays:
                raise LedgerError(f"pools {strays} have no history in the journal")
            changes = {}
            for name, (_, state) in sorted(replay.pools.items()):
                new, old = state.to_row(), stored.get(name, {})
                changes[name] = {k: [old.get(k), v] for k, v in new.items() if old.get(k) != v}
            entry = self.journal.write(
                "pools.rebuilt",
                {"technician": technician, "reason": reason, "changes": changes},
                now,
            )
            for config, state in replay.pools.values():
                self._put_pool(config, state, entry.seq)
        return {name: state for name, (_, state) in replay.pools.items()}

    def recover(self, now: float) -> list[RoundVoided]:
        """Void every round a crash left open (MD-S2: a malfunction voids all hands), each in
        its own transaction; returns them so the daemon can announce them. The table's
        knowledge of the round died with the process: each void returns the stakes its
        opening recorded, its entry says ``opening_only`` (docs/ledger.md). Refused
        (TableClosedError) while the self-check has failed: rows it would change may be bad."""
        self._refuse_when_closed("recovering open rounds")
        return [
            self.void_round(rid, now, rule=RECOVERY_RULE, cause=RECOVERY_CAUSE)
            for rid in self.open_round_ids()
        ]

    # -- self-check status ---------------------------------------------------------------------

    def record_selfcheck_failure(self, failures: list[str], now: float) -> SelfCheckStatus:
        """Persist a failed self-check (journaled): the table stays closed across restarts
        until :meth:`clear_selfcheck`."""
        with self.db.transaction("recording a failed self-check"):
            entry = self.journal.write("selfcheck.failed", {"failures": failures}, now)
            self._put_selfcheck(SelfCheckState.FAILED, failures, entry.wall, entry.seq)
        self._failures = list(failures)
        return self.selfcheck_status()

    def clear_selfcheck(
        self,
        now: float,
        *,
        technician: str,
        reason: str,
        reseal: Sequence[tuple[str, tuple[Any, ...]]] = (),
    ) -> SelfCheckStatus:
        """A technician clears a failed self-check (journaled with the failures cleared).
        ``reseal`` lists sealed rows (table, key) the technician accepts as they are now:
        their content is journaled and they get a fresh checksum."""
        inputs.text(technician, "the technician")
        inputs.text(reason, "the reason for clearing the self-check")
        previous = self.selfcheck_status()
        with self.db.transaction("clearing the self-check"):
            accepted = []
            for table, key in reseal:
                keys = SEALED[table][0]
                where = " AND ".join(f"{k} = ?" for k in keys)
                for row in self.db.select(table, where, key, check=False):
                    self.db.put(table, row)
                    accepted.append({"table": table, "row": row})
            entry = self.journal.write(
                "selfcheck.cleared",
                {
                    "technician": technician,
                    "reason": reason,
                    "failures": previous.failures,
                    "resealed": accepted,
                },
                now,
            )
            self._put_selfcheck(SelfCheckState.OK, [], entry.wall, entry.seq)
        self._failures = None
        return self.selfcheck_status()

    # -- the ledger key ------------------------------------------------------------------------

    def rekey(self, keyring: Keyring, now: float, *, technician: str, reason: str) -> str:
        """Chain the journal and seal every row with ``keyring``'s current key from now on:
        an unkeyed ledger adopting its key, or a rotation after a new key was added to the
        keyring (``keys.add_key``). Journaled (``ledger.keyed``, itself chained with the new
        key); refused while the journal does not verify or a row does not match its seal
        (nothing is sealed again that was not sound). Returns the new key ID."""
        inputs.text(technician, "the technician")
        inputs.text(reason, "the reason for re-keying the ledger")
        new = keyring.current
        old = self.db.seal_key
        if old is not None and old.key_id == new.key_id:
            raise LedgerKeyError(f"the ledger is already keyed with {new.key_id}: add a key first")
        self.db.keyring = keyring
        chain = verify_chain(self.journal)
        if not chain.ok:
            raise LedgerError(f"cannot re-key a journal that does not verify: {chain.problems[0]}")
        for table in SEALED:
            bad = next(iter(self.db.bad_seals(table)), None)
            if bad is not None:
                raise LedgerError(
                    f"cannot re-key: {table} row {'/'.join(map(str, bad))} does not match its "
                    "seal (examine it; croupier selfcheck clear --accept-rows)"
                )
        with self.db.transaction("re-keying the ledger"):
            data = {
                "key": new.key_id,
                "previous": old.key_id if old else None,
                "technician": technician,
                "reason": reason,
            }
            entry = self.journal.write("ledger.keyed", data, now, key=new)
            self._set_key_history([*key_history(self.db), (entry.seq, new.key_id)])
            rows = {t: self.db.select(t, "1", check=False) for t in SEALED}
            self.db.seal_key = new
            for table, table_rows in rows.items():
                for row in table_rows:
                    self.db.put(table, row)
        return new.key_id

    def _set_key_history(self, history: list[tuple[int, str]]) -> None:
        self.db.execute(
            "INSERT INTO meta (key, value) VALUES (?, ?) "
            "ON CONFLICT (key) DO UPDATE SET value = excluded.value",
            (KEYS_META, json.dumps(history)),
        )

    def _put_selfcheck(
        self, state: SelfCheckState, failures: list[str], wall: str, seq: int
    ) -> None:
        self.db.put(
            "selfcheck",
            {
                "id": 1,
                "state": state.value,
                "failures": json.dumps(failures),
                "since_wall": wall,
                "seq": seq,
            },
        )

    # -- rows -----------------------------------------------------------------------------------

    def _pool_from_row(self, row: dict[str, Any]) -> tuple[PoolConfig, PoolState]:
        config = config_from_text(row["config"])
        self._config_texts[config.name] = (config, row["config"])
        return config, PoolState.from_row(row)

    def _pools_for_change(self) -> list[tuple[PoolConfig, PoolState]]:
        """Every pool that takes contributions (a retired pool takes none)."""
        retired = lifecycle.retired_pools(self.db)
        return [
            self._pool_from_row(row)
            for row in self.db.select("pools", "1 ORDER BY name")
            if row["name"] not in retired
        ]

    def _pool_for_change(self, name: str) -> tuple[PoolConfig, PoolState]:
        row = self.db.get("pools", (name,))
        if row is None:
            raise LedgerError(f"no pool {name!r} in {self.db.path}")
        return self._pool_from_row(row)

    def _put_pools(self, moves: dict[str, rounds.PoolMove], seq: int) -> None:
        for move in moves.values():
            self._put_pool(move.config, move.after, seq)

    def _put_pool(
        self, config: PoolConfig, state: PoolState, seq: int, text: str | None = None
    ) -> None:
        if text is None:
            known = self._config_texts.get(config.name)
            text = known[1] if known and known[0] is config else canonical(config.to_json())
        row = state.to_row()
        row["config"] = text
        row["seq"] = seq
        self.db.put("pools", row)

    def _round_for_change(self, rid: str) -> dict[str, Any]:
        row = self.db.get("rounds", (rid,))
        if row is None:
            raise RoundStateError(f"no round {rid} in the ledger")
        return row

    def _refuse_open_rounds(self, pool: str, doing: str) -> None:
        row = self.db.execute(
            "SELECT r.round_id FROM rounds r JOIN round_pools p ON p.round_id = r.round_id "
            "WHERE r.state = 'open' AND p.pool = ? LIMIT 1",
            (pool,),
        ).fetchone()
        if row:
            raise RoundStateError(f"round {row[0]} is open on pool {pool}: {doing} between rounds")

    # -- results of events already recorded (idempotent retries) -------------------------------

    def _round_pools(self, rid: str, column: str) -> dict[str, dict[str, Any]]:
        return {
            rp["pool"]: json.loads(rp[column])
            for rp in self.db.select("round_pools", "round_id = ?", (rid,))
        }

    def _opening_stakes(self, row: dict[str, Any]) -> Stakes:
        """The stakes a round was opened with (a closed round's row also holds those placed
        during the round)."""
        if row["state"] == rounds.RoundState.OPEN:
            return load_stakes(row["stakes"])
        opened = next(self.journal.entries(start=row["open_seq"]))
        return {int(seat): wagers for seat, wagers in opened.data["stakes"].items()}

    def _opened(self, row: dict[str, Any]) -> RoundOpened:
        pools = self._round_pools(row["round_id"], "contribution")
        return RoundOpened(
            row["round_id"],
            self._opening_stakes(row),
            {name: Contribution.from_json(c) for name, c in pools.items()},
            {name: c["current"] for name, c in pools.items()},
            row["open_seq"],
            retried=True,
        )

    def _voided(self, row: dict[str, Any]) -> RoundVoided:
        pools = self._round_pools(row["round_id"], "reversal")
        return RoundVoided(
            row["round_id"],
            row["rule"],
            row["cause"],
            load_stakes(row["paid"]),
            {name: Reversal.from_json(r) for name, r in pools.items()},
            {name: r["current"] for name, r in pools.items()},
            row["close_seq"],
            retried=True,
        )

    def _refuse_other_repeat(self, row: dict[str, Any], request: dict[str, Any], done: str) -> None:
        """A closed round's event repeated: RoundConflictError naming each thing ``request``
        asks differently from what the round's closing entry recorded
        (:func:`~controller.books.ledger.rounds.refuse_other_repeat`)."""
        recorded = next(self.journal.entries(start=row["close_seq"])).data
        rounds.refuse_other_repeat(f"round {row['round_id']}", recorded, request, done)

    def _settled_again(self, row: dict[str, Any], request: dict[str, Any]) -> RoundSettled:
        rid = row["round_id"]
        self._refuse_other_repeat(row, request, "settled")
        pools = self._round_pools(rid, "outcome")
        return RoundSettled(
            rid,
            {name: outcome_from_json(o) for name, o in pools.items()},
            load_stakes(row["paid"]),
            {name: o["current"] for name, o in pools.items()},
            row["close_seq"],
            retried=True,
        )

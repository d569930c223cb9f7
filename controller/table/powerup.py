"""The table's books at power-up, synchronous: open the ledger with its safeguards (and the
rules the table plays under, :func:`rules_record`), void the rounds a crash interrupted
(MD-S2), configure the pools, and read what the table core starts from. The asyncio shell
(:mod:`controller.table.runner`) runs this on its ledger thread; the deterministic simulator
(:mod:`controller.rig.sim`) calls it directly after a simulated crash.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from controller.books.ledger.powerup import PendingWitness, Safeguards, open_ledger
from controller.books.ledger.selfcheck import software_roots
from controller.books.ledger.store import Ledger
from controller.table.tableconfig import TableConfig


@dataclass
class Books:
    ledger: Ledger
    conditions: list[tuple[str, str]]  # (condition, reason): each keeps the table closed
    recovered: list[str] = field(default_factory=list)  # rounds voided at power-up (MD-S2)
    pools: dict[str, tuple[int, int]] = field(default_factory=dict)  # bet -> (amount, seed)
    last_round: int = 0  # the number of the table's last round in the ledger
    witness: PendingWitness | None = None  # silent at power-up: to be asked again


def safeguards_of(config: TableConfig) -> Safeguards:
    return Safeguards(
        simulated=config.shuffler.emulator is not None,
        table_id=config.table_id,
        key_path=Path(config.ledger_key) if config.ledger_key else None,
        witness_url=config.witness_url,
        witness_dsn=next((s.dsn for s in config.linked.values()), None),
    )


def rules_record(config: TableConfig) -> dict[str, Any]:
    """What the table plays under, as the journal keeps it (``controller.books.ledger.rules``):
    the profile (``origin`` ``shipped`` when its file is one the software manifest covers,
    named as the manifest names it; else ``override``, by its path: a file in
    ``/etc/croupier/profiles``, ``$CROUPIER_PROFILE_PATH`` or named by ``[table] profile``)
    and the wager limits, which cap a stake and so change what a round pays (BJ-1, TRX-1).
    ``[limits] stake_max`` only refuses a request, and the pools are journaled on their own
    (``pool.configured``)."""
    profile = config.profile
    path = Path(profile.path).resolve()
    shipped = software_roots()["profiles"].resolve()
    is_shipped = path.parent == shipped
    return {
        "profile": {
            "name": profile.name,
            "version": profile.version,
            "game": profile.game,
            "origin": "shipped" if is_shipped else "override",
            "file": f"profiles/{path.name}" if is_shipped else str(path),
            "sha256": profile.sha256,
        },
        "limits": {
            wager: {"min": limit.low, "max": limit.high}
            for wager, limit in sorted(config.limits.items())
        },
    }


def open_books(
    config: TableConfig,
    path: Path,
    now: float,
    wall_clock: Callable[[], float],
    safeguards: Safeguards,
) -> Books:
    """Raises the errors of :func:`~controller.books.ledger.powerup.open_ledger` and of the
    recovery (the ledger is closed then)."""
    opened = open_ledger(path, now, wall_clock, safeguards, rules_record(config))
    ledger = opened.ledger
    books = Books(ledger, list(opened.conditions), witness=opened.witness)
    try:
        if opened.status.table_may_open:
            books.recovered = [v.round_id for v in ledger.recover(now)]
            for pool in config.pools.values():
                ledger.configure_pool(pool, now)
        for name, (pool_cfg, state) in ledger.pools().items():
            if name in config.pools:
                books.pools[pool_cfg.bet] = (state.current, pool_cfg.seed)
        books.last_round = last_round(ledger, config.table_id)
    except BaseException:
        if books.witness is not None:
            books.witness.close()
        ledger.close()
        raise
    return books


def last_round(ledger: Ledger, table_id: str) -> int:
    prefix = f"{table_id}-"
    row = ledger.db.execute(
        "SELECT max(CAST(substr(round_id, ?) AS INTEGER)) FROM rounds WHERE round_id LIKE ?",
        (len(prefix) + 1, prefix + "%"),
    ).fetchone()
    return int(row[0] or 0)

"""Reading the ledger: pools and meters, rounds, hit history, corrections, self-check status.

:class:`LedgerView` holds the queries; the writer (:class:`~controller.books.ledger.store.Ledger`)
and the read-only :class:`LedgerReader` both have them. The reader opens the database without
the writer's lock and never writes, so it serves a technician beside the running daemon or on
a dead controller's SD card (see ``db.open_reader``). Reads never check row checksums (that is
the self-check's and verify's job): a damaged ledger stays readable.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from functools import lru_cache
from pathlib import Path
from typing import Any, Self

from controller.books.ledger.db import Database, open_reader, use_keyring
from controller.books.ledger.errors import LedgerError
from controller.books.ledger.journal import Journal
from controller.books.ledger.keys import Keyring
from controller.books.ledger.paths import DEFAULT_PATH
from controller.books.ledger.records import (
    HitRecord,
    RoundRow,
    SelfCheckState,
    SelfCheckStatus,
    load_stakes,
)
from controller.books.ledger.schema import SEALED
from controller.engine.pools.config import PoolConfig
from controller.engine.pools.meters import METER_COLUMNS, PoolState, identity_problems

_POOL_COLUMNS = ("name", *SEALED["pools"][1])
_HIT_COLUMNS = (
    "hit_id, pool, round_id, seat, line, hand, stake, amount, from_pool, share, envy, cycle, wall"
)


@lru_cache(maxsize=64)
def config_from_text(text: str) -> PoolConfig:
    """A stored pool configuration (memoised: the same text always gives the same value)."""
    return PoolConfig.from_json(json.loads(text))


class LedgerView:
    db: Database
    journal: Journal

    def close(self) -> None:
        self.db.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def pool_rows(self) -> list[dict[str, Any]]:
        cursor = self.db.execute(f"SELECT {', '.join(_POOL_COLUMNS)} FROM pools ORDER BY name")
        return [dict(zip(_POOL_COLUMNS, row, strict=True)) for row in cursor]

    def pools(self) -> dict[str, tuple[PoolConfig, PoolState]]:
        return {
            row["name"]: (config_from_text(row["config"]), PoolState.from_row(row))
            for row in self.pool_rows()
        }

    def pool(self, name: str) -> tuple[PoolConfig, PoolState]:
        pools = self.pools()
        if name not in pools:
            known = ", ".join(pools) or "none"
            raise LedgerError(f"no pool {name!r} in {self.db.path} (pools: {known})")
        return pools[name]

    def meters(self) -> list[dict[str, Any]]:
        """Every pool's configuration, meters and meter identities, for people and scripts."""
        result = []
        for config, state in self.pools().values():
            row = state.to_row()
            result.append(
                {
                    "pool": config.name,
                    "bet": config.bet,
                    "seed": config.seed,
                    "contribution_rate": str(config.contribution_rate),
                    "reserve_rate": str(config.reserve_rate),
                    "cap": config.cap,
                    "meters": {k: row[k] for k in METER_COLUMNS if k != "name"},
                    "problems": identity_problems(state, config),
                }
            )
        return result

    def round(self, round_id: str) -> RoundRow | None:
        row = self.db.execute(
            "SELECT round_id, state, stakes, staked, opened_wall, closed_wall, rule, cause, "
            "paid, paid_total FROM rounds WHERE round_id = ?",
            (round_id,),
        ).fetchone()
        if row is None:
            return None
        pools = {}
        for pool, contribution, reversal, outcome in self.db.execute(
            "SELECT pool, contribution, reversal, outcome FROM round_pools WHERE round_id = ?",
            (round_id,),
        ):
            pools[pool] = {
                "contribution": json.loads(contribution),
                "reversal": json.loads(reversal) if reversal else None,
                "outcome": json.loads(outcome) if outcome else None,
            }
        rid, state, stakes, staked, opened, closed, rule, cause, paid, paid_total = row
        return RoundRow(
            rid,
            state,
            load_stakes(stakes),
            staked,
            opened,
            closed,
            rule,
            cause,
            load_stakes(paid),
            paid_total,
            pools,
        )

    def last_closed_round(self) -> RoundRow | None:
        """The round settled or voided last (``None``: no round has closed yet)."""
        row = self.db.execute(
            "SELECT round_id FROM rounds WHERE close_seq IS NOT NULL ORDER BY close_seq DESC"
            " LIMIT 1"
        ).fetchone()
        return None if row is None else self.round(row[0])

    def open_round_ids(self) -> list[str]:
        rows = self.db.execute(
            "SELECT round_id FROM rounds WHERE state = 'open' ORDER BY open_seq"
        ).fetchall()
        return [r[0] for r in rows]

    def round_counts(self) -> dict[str, int]:
        rows = self.db.execute("SELECT state, count(*) FROM rounds GROUP BY state").fetchall()
        return {state: count for state, count in rows}

    def hits(self, pool: str | None = None, limit: int = 100) -> list[HitRecord]:
        """The hit history, newest first (never pruned; ``limit`` only shortens the answer)."""
        where, params = ("WHERE pool = ?", (pool,)) if pool else ("", ())
        rows = self.db.execute(
            f"SELECT {_HIT_COLUMNS} FROM hits {where} ORDER BY hit_id DESC LIMIT ?",
            (*params, limit),
        )
        return [HitRecord(*row) for row in rows]

    def corrections(self, limit: int = 100) -> list[dict[str, Any]]:
        cols = ("correction_id", "pool", "meter", "old", "new", "technician", "reason", "wall")
        rows = self.db.execute(
            f"SELECT {', '.join(cols)} FROM corrections ORDER BY correction_id DESC LIMIT ?",
            (limit,),
        )
        return [dict(zip(cols, r, strict=True)) for r in rows]

    def selfcheck_status(self) -> SelfCheckStatus:
        row = self.db.execute(
            "SELECT state, failures, since_wall, seq FROM selfcheck WHERE id = 1"
        ).fetchone()
        if row is None:
            missing = ["the self-check status row is missing"]
            return SelfCheckStatus(SelfCheckState.FAILED, missing, "", 0)
        state, failures, since, seq = row
        if state not in tuple(SelfCheckState):  # the schema's CHECK bypassed: not ok, so closed
            unknown = [f"the self-check status row's state is {state!r}"]
            return SelfCheckStatus(SelfCheckState.FAILED, unknown, since, seq)
        return SelfCheckStatus(SelfCheckState(state), json.loads(failures), since, seq)


class LedgerReader(LedgerView):
    """The ledger opened read-only (no lock, no migration, no write)."""

    def __init__(self, db: Database, wall_clock: Callable[[], float] = time.time) -> None:
        self.db = db
        self.journal = Journal(db, wall_clock)

    @classmethod
    def open(cls, path: str | Path = DEFAULT_PATH, keyring: Keyring | None = None) -> LedgerReader:
        """Open read-only; ``keyring`` is needed to check a keyed ledger's seals and chain
        (without it, reading works and verify says what it could not check)."""
        db = open_reader(Path(path))
        try:
            use_keyring(db, keyring)
        except BaseException:
            db.close()
            raise
        return cls(db)

"""A linked pool's row read back from PostgreSQL, checked before anything is paid or shown.

The store is another party's database: its owner, an insider with its password, or a bug at
another table can write any value the column types allow. The schema's checks
(``current >= 0``) are not limits: a pool whose ``current`` was set to 10^15 paid it as a
jackpot into the table's ledger, and a malformed ``carry`` or ``config`` raised a bare
ValueError or JSONDecodeError into the daemon. Every reader of a pool row (the table's
money transactions, its join, ``pool status``, ``pool verify``) goes through
:func:`pool_row`; anything outside the limits is one :class:`LinkedStoreError` naming the
pool and the column, and the operation fails with nothing paid (the table closes its link
with that reason, as for a refused stake row).

Limits: ``current``, ``reserve`` and ``cycle_start`` (the seed of the cycle) whole minor units
0..``MONEY_MAX``; every other meter an integer (the corrections may be negative); each carry
``num/den`` with ``0 <= num < den <= CARRY_DEN_MAX``; ``config`` a pool configuration as
``pool init`` writes it.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from controller.books.ledger.reader import config_from_text
from controller.books.linked.errors import LinkedStoreError
from controller.books.linked.schema import POOL_METERS
from controller.engine.pools.config import PoolConfig
from controller.engine.pools.meters import Carry, PoolState
from controller.validation import MONEY_MAX, ConfigError

AMOUNTS = ("current", "reserve", "cycle_start")  # paid or shown: money, 0..MONEY_MAX
CARRIES = ("carry", "reserve_carry")
CARRY_DEN_MAX = 10**12  # a contribution rate's denominators multiplied: far below this


def pool_row(name: str, config_text: Any, meters: Sequence[Any]) -> tuple[PoolConfig, PoolState]:
    """The pool's configuration and meters from its row (``meters`` in
    :data:`POOL_METERS` order); LinkedStoreError naming the column for a value outside the
    limits (module docstring)."""
    return pool_config(name, config_text), pool_state(name, meters)


def pool_config(name: str, text: Any) -> PoolConfig:
    if not isinstance(text, str):
        raise LinkedStoreError(f"pool {name} in the store: config is not text")
    try:
        return config_from_text(text)
    except (ValueError, TypeError, KeyError, AttributeError, ZeroDivisionError, ConfigError):
        raise LinkedStoreError(
            f"pool {name} in the store: config is not a pool configuration ({_short(text)})"
        ) from None


def pool_state(name: str, meters: Sequence[Any]) -> PoolState:
    values: dict[str, Any] = {"name": name}
    for column, value in zip(POOL_METERS, meters, strict=True):
        if column in CARRIES:
            values[column] = _carry(name, column, value)
        elif type(value) is not int:
            raise LinkedStoreError(
                f"pool {name} in the store: {column} {_short(value)} is not whole"
            )
        elif column in AMOUNTS and not 0 <= value <= MONEY_MAX:
            raise LinkedStoreError(
                f"pool {name} in the store: {column} {value} is outside 0..{MONEY_MAX} minor units"
            )
        else:
            values[column] = value
    return PoolState(**values)


def _carry(name: str, column: str, value: Any) -> Carry:
    parts = value.split("/") if isinstance(value, str) and len(value) <= 40 else []
    if len(parts) == 2 and all(p.isdigit() and p.isascii() for p in parts):
        num, den = int(parts[0]), int(parts[1])
        if 0 <= num < den <= CARRY_DEN_MAX:
            return Carry(num, den)
    raise LinkedStoreError(
        f"pool {name} in the store: {column} {_short(value)} is not a fraction 0 <= n/d < 1"
    )


def _short(value: Any) -> str:
    text = value if isinstance(value, str) else json.dumps(value, default=str)
    return repr(text[:40] + ("..." if len(text) > 40 else ""))

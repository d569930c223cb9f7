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
``pool init`` writes it: at most ``CONFIG_MAX`` characters of JSON, the pool's own name, its
rates and band written as ``pool init`` writes fractions (digits, ``n/d``: ``Fraction("1e9999999")``
takes half a minute), the settings :func:`controller.engine.pools.config.pool_config` accepts
(the seed and cap within 0..``MONEY_MAX``, the rate within the band, rate + reserve at most
the stake), the rules of the kinds a profile gives them (the stake and envy bonus money, the
award, share scope and multiple-hits policy of their choices, ``linked`` and
``envy_to_winner`` true or false). The rule values themselves are compared with the table's
profile when it joins (:mod:`controller.books.linked.client`).
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Any

from controller.books.ledger.reader import config_from_text
from controller.books.linked.errors import LinkedStoreError
from controller.books.linked.schema import POOL_METERS
from controller.engine.pools.config import PoolConfig
from controller.engine.pools.config import pool_config as checked_config
from controller.engine.pools.meters import Carry, PoolState
from controller.engine.profiles import AWARD_POLICIES, MULTIPLE_HITS, SHARE_SCOPES
from controller.validation import MONEY_MAX, ConfigError

AMOUNTS = ("current", "reserve", "cycle_start")  # paid or shown: money, 0..MONEY_MAX
CARRIES = ("carry", "reserve_carry")
CARRY_DEN_MAX = 10**12  # a contribution rate's denominators multiplied: far below this
CONFIG_MAX = 16384  # characters of a pool's config (pool init writes about 1,000)
# A fraction as PoolConfig.to_json writes it: an integer or n/d (no exponent, no decimals)
FRACTION_TEXT = re.compile(r"[0-9]{1,20}(/[0-9]{1,20})?\Z")
FRACTIONS = ("contribution_rate", "reserve_rate")


def pool_row(name: str, config_text: Any, meters: Sequence[Any]) -> tuple[PoolConfig, PoolState]:
    """The pool's configuration and meters from its row (``meters`` in
    :data:`POOL_METERS` order); LinkedStoreError naming the column for a value outside the
    limits (module docstring)."""
    return pool_config(name, config_text), pool_state(name, meters)


def pool_config(name: str, text: Any) -> PoolConfig:
    """The pool's configuration from its ``config`` column; LinkedStoreError unless it is
    one ``pool init`` could have written (module docstring)."""
    if not isinstance(text, str) or len(text) > CONFIG_MAX:
        raise LinkedStoreError(
            f"pool {name} in the store: config is not text of at most {CONFIG_MAX} characters"
        )
    try:
        _check_text_fractions(json.loads(text))
        config = config_from_text(text)
        why = _config_problem(name, config)
    except (
        ValueError,
        TypeError,
        KeyError,
        AttributeError,
        IndexError,
        ZeroDivisionError,
        RecursionError,
        ConfigError,
    ):
        why = "is not a pool configuration"
    if why is not None:
        raise LinkedStoreError(f"pool {name} in the store: config {why} ({_short(text)})")
    return config


def _check_text_fractions(data: Any) -> None:
    """ValueError unless every fraction of ``data`` (rates, band, pool percentages) is
    written as ``pool init`` writes it: Fraction() of an exponent is unbounded work."""
    band = data["contribution_band"]
    pays = data["paytable"]
    if not isinstance(band, list) or not isinstance(pays, dict):
        raise ValueError("band or pay table")
    texts = [data[key] for key in FRACTIONS] + band
    texts += [p[:-1] for p in pays.values() if isinstance(p, str) and p.endswith("%")]
    if not all(isinstance(t, str) and FRACTION_TEXT.match(t) for t in texts):
        raise ValueError("a fraction not written as n/d")


def _config_problem(name: str, config: PoolConfig) -> str | None:
    """What makes ``config`` one ``pool init`` could not have written, or None."""
    r = config.rules
    if config.name != name:
        return f"names the pool {_short(config.name)}"
    try:
        checked_config(
            name,
            r,
            seed=config.seed,
            contribution_rate=config.contribution_rate,
            reserve_rate=config.reserve_rate,
            cap=config.cap,
        )
    except ConfigError as exc:
        return f"is not a pool configuration: {exc.problems[0][1] if exc.problems else exc}"
    low, high = r.contribution_band
    money = {"seed": config.seed, "cap": config.cap or 0, "stake": r.stake}
    money["envy_bonus"] = r.envy_bonus
    for key, value in money.items():
        if type(value) is not int or not 0 <= value <= MONEY_MAX:
            return f"{key} {_short(value)} is outside 0..{MONEY_MAX} minor units"
    choices = (
        (r.award, AWARD_POLICIES),
        (r.share_scope, SHARE_SCOPES),
        (r.multiple_hits, MULTIPLE_HITS),
        (r.linked, (True, False)),
        (r.envy_to_winner, (True, False)),
    )
    if (
        not 0 <= low <= high <= 1
        or r.stake <= 0
        or not isinstance(r.bet, str)
        or any(type(value) is not type(of[0]) or value not in of for value, of in choices)
    ):
        return "has a rule no profile gives"
    return None


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

"""A linked pool in the table configuration: ``[pools.NAME]`` with a ``dsn``.

A pool entry of the table configuration is local (the table's SQLite ledger, the default) or
linked (a PostgreSQL store shared by several tables, PRG-6). The ``dsn`` key makes it linked::

    [pools.jumbo7]
    dsn = "host=pools.example.net dbname=croupier user=table_sofia_07 sslmode=verify-full"
    pool = "jumbo7-bg"          # the pool's name in the store (default: the entry's name)
    connect_timeout = 5         # seconds to connect (libpq: 2 at least)
    operation_timeout = 5       # seconds a money transaction may take before the link is down
    heartbeat = 5               # seconds between checks of an idle link
    reconnect_max = 30          # longest wait between reconnection attempts, seconds

A linked pool's seed, rates, cap and rules are the store's (``croupier pool init``); they have
no place here. :func:`linked_settings` reads such an entry through the configuration loader's
:class:`~controller.validation.Section` and records every problem with its key and reason.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from controller.engine.pools.config import NAME_PATTERN
from controller.validation import Problems, Section

TABLE_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._:-]{0,39}\Z")
LOCAL_ONLY = ("seed", "contribution_rate", "reserve_rate", "cap")


@dataclass(frozen=True)
class LinkedSettings:
    name: str  # the entry's name in the table configuration: how the table calls the pool
    dsn: str
    pool: str  # the pool's name in the store
    connect_timeout: float = 5.0
    operation_timeout: float = 5.0
    heartbeat: float = 5.0
    reconnect_min: float = 0.5
    reconnect_max: float = 30.0

    def connection_params(self, application_name: str) -> dict[str, Any]:
        """libpq parameters added to the DSN: timeouts and TCP keepalives that notice a dead
        link within about two heartbeats even when no packet says so."""
        beat = max(1, round(self.heartbeat))
        return {
            "connect_timeout": max(2, round(self.connect_timeout)),
            "application_name": application_name,
            "keepalives": 1,
            "keepalives_idle": beat,
            "keepalives_interval": beat,
            "keepalives_count": 2,
            "tcp_user_timeout": int(self.operation_timeout * 1000),
        }


def is_linked(entry: Any) -> bool:
    """Whether a ``[pools.NAME]`` entry describes a linked pool (it has a ``dsn``)."""
    return isinstance(entry, dict) and "dsn" in entry


def dsn_problem(dsn: str) -> str | None:
    """Why libpq would not accept this connection string, or None."""
    try:
        from psycopg import conninfo
    except ImportError as exc:  # no libpq and no psycopg-binary wheel for this machine
        return f"cannot use a linked pool here: {exc} (install libpq5 or psycopg[binary])"
    try:
        conninfo.conninfo_to_dict(dsn)
    except Exception as exc:  # psycopg.ProgrammingError: libpq's parser said no
        return f"not a PostgreSQL connection string: {str(exc).strip()}"
    return None


def _seconds(low: float, high: float) -> Any:
    def check(value: float) -> str | None:
        return None if low <= value <= high else f"must be {low} to {high} seconds, got {value}"

    return check


def linked_settings(name: str, section: Section) -> LinkedSettings | None:
    """Read a linked pool entry (the section of ``pools.NAME``); None when it has problems,
    which are all recorded in ``section.problems``. Marks every key it knows, then reports
    the others (``section.finish()``)."""
    problems_before = len(section.problems.items)
    dsn = section.get("dsn", str)
    if dsn is not None:
        reason = dsn_problem(dsn)
        if reason:
            section.problems.add(section.key("dsn"), reason)
    pool = section.get(
        "pool",
        str,
        name,
        lambda v: (
            None
            if NAME_PATTERN.match(v)
            else "a pool name is 1-40 lower-case letters, digits, '-' or '_'"
        ),
    )
    number = (int, float)
    values = {
        "connect_timeout": section.get("connect_timeout", number, 5.0, _seconds(2, 60)),
        "operation_timeout": section.get("operation_timeout", number, 5.0, _seconds(0.5, 60)),
        "heartbeat": section.get("heartbeat", number, 5.0, _seconds(1, 300)),
        "reconnect_max": section.get("reconnect_max", number, 30.0, _seconds(1, 3600)),
    }
    for key in LOCAL_ONLY:
        if section.has(key):
            section.get(key, (bool, int, float, str, dict, list))  # reported with a reason:
            section.problems.add(
                section.key(key),
                "a linked pool's parameters are the store's: set them with `croupier pool "
                "init`, not in the table's configuration",
            )
    section.finish()
    if len(section.problems.items) > problems_before or dsn is None or pool is None:
        return None
    return LinkedSettings(name=name, dsn=dsn, pool=pool, **{k: float(v) for k, v in values.items()})


def check_linked_entry(
    name: str, entry: Any, source: str = "table configuration"
) -> LinkedSettings:
    """:func:`linked_settings` on a plain dict; raises ConfigError listing every problem."""
    problems = Problems(source)
    settings = linked_settings(name, Section(entry, f"pools.{name}", problems))
    problems.raise_if_any()
    assert settings is not None
    return settings


def table_id_problem(table: Any) -> str | None:
    """Why a table ID cannot name a table in a linked pool's store, or None."""
    if isinstance(table, str) and TABLE_ID.match(table):
        return None
    return (
        f"table ID {table!r}: 1-40 letters, digits, '.', '_', ':' or '-', starting with a "
        "letter or digit (unique among every table that joins the pool)"
    )

"""The ``[host]`` table of the table configuration: which of the host's conditions the daemon
checks before the table may open (the checks themselves, asyncio, are
:mod:`controller.table.host_checks`). A module of its own so that reading a configuration
(``croupier config check``) does not load the daemon's event loop."""

from __future__ import annotations

from dataclasses import dataclass

from controller.validation import Section


@dataclass(frozen=True)
class HostSettings:
    require_clock_sync: bool = True
    allow_volatile_ledger: bool = False


def read_host_settings(sec: Section | None, simulated: bool) -> HostSettings:
    """The ``[host]`` table; defaults: checks on for a real table, off for a simulated one."""
    if sec is None:
        return HostSettings(not simulated, simulated)
    clock = sec.get("require_clock_sync", bool, default=not simulated)
    volatile = sec.get("allow_volatile_ledger", bool, default=simulated)
    sec.finish()
    return HostSettings(bool(clock), bool(volatile))

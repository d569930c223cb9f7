"""What the round machine (:mod:`controller.table.machine`) takes from the table's
configuration. A module of its own so that reading a configuration (``croupier config check``)
does not load the machine, its events and the seat model."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from controller.engine.wagers import Limit

PENETRATION_RANGE = (50, 90)  # percent: the limits of ``[shuffler] shoe_penetration``


@dataclass(frozen=True)
class MachineSettings:
    table_id: str
    packet_timeout: float = 10.0  # seconds without a packet during a deal: MD-S2
    settled_display: float = 15.0  # seconds SETTLED stays before the table reopens
    limits: Mapping[str, Limit] = field(default_factory=dict)  # the table's [limits]
    shoe_penetration: int = 75  # percent of a shoe dealt before it is shuffled again

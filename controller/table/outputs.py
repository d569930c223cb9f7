"""What the status lamps and the sign show, as functions of the table's state (pure).

Status lamps (DESIGN.md, drivers/gpio): ``green`` is lit from the verified deal (UTH-11: the
dealer may go on) to the end of the round; ``red`` blinks fast on a misdeal (VOID) and burns
while the table is closed by a fault; the ``beacon`` flashes in JACKPOT until a technician
acknowledges it. The seat lamps are the GPIO layer's (stake placed / locked / excluded /
winner).

The sign shows the pools (PRG-1: always visible), ``PROGRESSIVE CLOSED`` while the table is
closed, ``OFFLINE`` while a linked pool is unreachable, and the JACKPOT scene with the award.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from controller.table.events import Condition
from controller.table.machine import TableState
from display.scenes import Mode, Pool, SignState

if TYPE_CHECKING:
    from controller.table.machine import TableMachine
    from controller.table.tableconfig import TableConfig

GREEN_STATES = (TableState.VERIFIED, TableState.SHOWDOWN, TableState.SETTLED, TableState.JACKPOT)
QUIET_CONDITIONS = {Condition.STARTUP}  # closing reasons that are not faults


def lamp_patterns(machine: TableMachine) -> dict[str, str]:
    state = machine.state
    faults = set(machine.conditions) - QUIET_CONDITIONS
    if state is TableState.VOID:
        red = "fast"
    elif state is TableState.CLOSED and faults:
        red = "on"
    elif Condition.PROGRESSIVE_LINK in faults:
        red = "slow"  # a linked pool is offline: no progressive stakes taken, the table plays
    else:
        red = "off"
    return {
        "green": "on" if state in GREEN_STATES else "off",
        "red": red,
        "beacon": "fast" if state is TableState.JACKPOT else "off",
    }


def sign_label(pool_name: str) -> str:
    """A pool's name as the sign can draw it (capitals, digits, '-')."""
    return pool_name.upper().replace("_", "-")


def sign_inputs(machine: TableMachine) -> tuple[object, ...]:
    """Everything :func:`sign_state` reads from the machine: while it compares equal the sign
    state is the same, so it need not be built (and checked) again after every input."""
    return (
        machine.state,
        Condition.PROGRESSIVE_LINK in machine.conditions,
        _jackpot_won(machine),
        tuple(machine.pools.items()),
    )


def _jackpot_won(machine: TableMachine) -> int | None:
    """The award the JACKPOT scene shows (``None`` outside JACKPOT)."""
    if machine.state is not TableState.JACKPOT or machine.last_result is None:
        return None
    paid: int = sum(p.get("jackpot_paid", 0) for p in machine.last_result.pools.values())
    return paid


def sign_state(machine: TableMachine, config: TableConfig) -> SignState:
    currency = config.profile.money.currency
    pools = tuple(
        Pool(sign_label(name), machine.pools[pool.bet][0])
        for name, pool in config.pools.items()
        if pool.bet in machine.pools
    )
    if Condition.PROGRESSIVE_LINK in machine.conditions:
        return SignState(pools, currency, Mode.OFFLINE)
    won = _jackpot_won(machine)
    if won is not None:
        return SignState(pools, currency, Mode.JACKPOT, jackpot=won)
    if machine.state is TableState.CLOSED:
        return SignState(pools, currency, Mode.CLOSED)
    return SignState(pools, currency, Mode.OPEN)

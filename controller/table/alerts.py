"""Alerts for the pit: what a floor supervisor must see and acknowledge (pure).

Theory of operation. The table's conditions (the machine's blocking conditions, its state,
the seats excluded for a sensor fault, the shuffle audit's alarm) go in as one
:class:`TableConditions`; :meth:`AlertBook.update` turns them into alerts, each named by its
:class:`AlertKind` and a subject (the seat of a stuck sensor, the round of a jackpot...).
An alert follows the usual alarm-management life (ISA-18.2)::

    condition appears   -> ACTIVE          (on screen, needs an acknowledgement)
    acknowledged        -> ACKNOWLEDGED    (still on screen while the condition holds)
    condition clears    -> CLEARED         (stays on screen until acknowledged)
    ACKNOWLEDGED + clears, or CLEARED + acknowledged -> gone
    CLEARED + the condition returns -> ACTIVE again (the same alert)

So nothing that happened disappears before an authorised person has seen it. A link down or
a closed table becomes an alert only once it has lasted :data:`ON_DELAY` seconds (an alarm
on-delay: the shuffler link comes up a moment after every start, and a blip that the link's
retransmission absorbs is no job for the floor); its ``raised`` time is when it began. The
book is brought up to date after every table event and whenever it is read. Acknowledging
needs the technician credential (checked by the control command, which journals who did it);
this module only keeps the book. Time (wall clock, for people) is an input; no I/O.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from enum import StrEnum
from typing import Any

from controller.errors import CroupierError
from controller.table.events import Condition
from controller.table.machine import TableState


class AlertKind(StrEnum):
    LINK_DOWN = "link-down"  # the shuffler link, or a linked pool's (subject says which)
    JACKPOT_PENDING = "jackpot-pending"  # a 100% award waits for a technician (PRG-5)
    SELFCHECK_FAILED = "selfcheck-failed"
    STUCK_SENSOR = "stuck-sensor"  # a seat excluded for a stuck or chattering sensor
    CLOCK_NOT_SYNCHRONISED = "clock-not-synchronised"
    SHUFFLE_AUDIT_ALARM = "shuffle-audit-alarm"
    TABLE_CLOSED = "table-closed"


class AlertState(StrEnum):
    ACTIVE = "active"
    ACKNOWLEDGED = "acknowledged"
    CLEARED = "cleared"


class AlertError(CroupierError, LookupError):
    """An acknowledgement names no alert on the book."""


# seconds a condition must last before it is an alert (kinds not named: at once)
ON_DELAY: dict[AlertKind, float] = {AlertKind.LINK_DOWN: 5.0, AlertKind.TABLE_CLOSED: 5.0}

# machine condition -> (alert kind, subject)
CONDITION_ALERTS: dict[Condition, tuple[AlertKind, str]] = {
    Condition.LINK: (AlertKind.LINK_DOWN, "shuffler"),
    Condition.PROGRESSIVE_LINK: (AlertKind.LINK_DOWN, "linked pool"),
    Condition.SELFCHECK: (AlertKind.SELFCHECK_FAILED, "table"),
    Condition.CLOCK: (AlertKind.CLOCK_NOT_SYNCHRONISED, "table"),
}


@dataclass(frozen=True)
class TableConditions:
    """What the alerts are derived from; :func:`conditions_of` reads it off the machine.
    ``state`` is a :class:`TableState` (its value is taken too, and checked: ValueError)."""

    state: TableState
    round_id: str | None = None
    conditions: dict[Condition, str] = field(default_factory=dict)  # -> its detail
    excluded: dict[int, str] = field(default_factory=dict)  # seat -> sensor fault
    audit_alarm: bool = False

    def __post_init__(self) -> None:
        object.__setattr__(self, "state", TableState(self.state))


@dataclass(frozen=True)
class Alert:
    id: int
    kind: AlertKind
    subject: str
    detail: str
    state: AlertState
    raised: float  # wall clock, seconds
    acknowledged_by: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "kind": self.kind.value,
            "subject": self.subject,
            "detail": self.detail,
            "state": self.state.value,
            "raised": self.raised,
            "acknowledged_by": self.acknowledged_by,
        }


def derive(conditions: TableConditions) -> dict[tuple[AlertKind, str], str]:
    """The alerts the conditions call for: (kind, subject) -> detail."""
    wanted: dict[tuple[AlertKind, str], str] = {}
    if Condition.STARTUP in conditions.conditions:
        return wanted  # the daemon is still starting: nothing has been seen yet
    for name, detail in conditions.conditions.items():
        if name in CONDITION_ALERTS:
            wanted[CONDITION_ALERTS[name]] = detail or name
    if conditions.state is TableState.JACKPOT:
        wanted[AlertKind.JACKPOT_PENDING, conditions.round_id or "round"] = (
            "a 100% award waits for a technician's acknowledgement (PRG-5)"
        )
    for seat, reason in sorted(conditions.excluded.items()):
        wanted[AlertKind.STUCK_SENSOR, f"seat {seat}"] = reason or "sensor fault"
    if conditions.audit_alarm:
        wanted[AlertKind.SHUFFLE_AUDIT_ALARM, "shuffler"] = (
            "the shuffle audit's tests reject a uniform shuffle"
        )
    if conditions.state is TableState.CLOSED:
        reasons = [f"{n}: {d}" if d else n for n, d in conditions.conditions.items()]
        wanted[AlertKind.TABLE_CLOSED, "table"] = "; ".join(reasons) or "closed"
    return wanted


class AlertBook:
    """The alerts of one table; :meth:`update` after every change, :meth:`acknowledge` on a
    credentialed request. Alert IDs count up from 1 for the daemon's life."""

    def __init__(self) -> None:
        self._alerts: dict[tuple[AlertKind, str], Alert] = {}
        self._pending: dict[tuple[AlertKind, str], float] = {}  # -> since (on-delay)
        self._next_id = 1

    def alerts(self) -> list[Alert]:
        return sorted(self._alerts.values(), key=lambda a: a.id)

    def update(self, conditions: TableConditions, now: float) -> bool:
        """Apply the current conditions; True if any alert changed."""
        wanted = derive(conditions)
        changed = False
        for key, alert in list(self._alerts.items()):
            if key in wanted:
                new = alert
                if alert.state == AlertState.CLEARED:
                    new = replace(alert, state=AlertState.ACTIVE)
                if new.detail != wanted[key]:
                    new = replace(new, detail=wanted[key])
                if new != alert:
                    self._alerts[key], changed = new, True
            elif alert.state == AlertState.ACKNOWLEDGED:
                del self._alerts[key]
                changed = True
            elif alert.state == AlertState.ACTIVE:
                self._alerts[key] = replace(alert, state=AlertState.CLEARED)
                changed = True
        self._pending = {k: t for k, t in self._pending.items() if k in wanted}
        for key, detail in wanted.items():
            if key in self._alerts:
                continue
            kind, subject = key
            since = self._pending.setdefault(key, now)
            if now - since >= ON_DELAY.get(kind, 0.0):
                del self._pending[key]
                self._alerts[key] = Alert(
                    self._next_id, kind, subject, detail, AlertState.ACTIVE, since
                )
                self._next_id += 1
                changed = True
        return changed

    def find(self, alert_id: int) -> Alert:
        for alert in self._alerts.values():
            if alert.id == alert_id:
                return alert
        known = ", ".join(str(a.id) for a in self.alerts()) or "none"
        raise AlertError(f"no alert {alert_id} on this table (alerts: {known})")

    def acknowledge(self, alert_id: int, who: str) -> Alert:
        """Acknowledge one alert; returns it as it was acknowledged. An acknowledged alert
        whose condition has cleared leaves the book. AlertError if there is no such alert
        or it is acknowledged already."""
        alert = self.find(alert_id)
        if alert.state == AlertState.ACKNOWLEDGED:
            raise AlertError(
                f"alert {alert_id} was acknowledged already (by {alert.acknowledged_by})"
            )
        key = (alert.kind, alert.subject)
        done = replace(alert, acknowledged_by=who)
        if alert.state == AlertState.CLEARED:
            del self._alerts[key]
        else:
            done = replace(done, state=AlertState.ACKNOWLEDGED)
            self._alerts[key] = done
        return done


def conditions_of(machine: Any, audit_alarm: bool = False) -> TableConditions:
    """The conditions of a :class:`~controller.table.machine.TableMachine`."""
    return TableConditions(
        state=machine.state,
        round_id=machine.round.round_id if machine.round is not None else None,
        conditions=dict(machine.conditions),
        excluded=machine.seats.excluded(),
        audit_alarm=audit_alarm,
    )

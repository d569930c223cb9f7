"""The gaming day: which instants belong to the report of a date (table configuration
``[report] gaming_day_start`` and ``timezone``).

A gaming day starts at the boundary (e.g. 06:00) local time on its date and ends at the
boundary of the next date, so a day across a daylight-saving change lasts 23 or 25 hours.
Pure: the caller gives the instant it means by "now".
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from controller.errors import CroupierError

BOUNDARY = re.compile(r"^([01][0-9]|2[0-3]):([0-5][0-9])\Z")
DAY = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}")  # YYYY-MM-DD only (not 20261126, not 2026-1-5)
# The first gaming day a report may be asked for (no table kept books before); the last is
# the one in progress. controller/cli/report_cmd.py repeats it for its parse-time check.
FIRST_DAY = date(2000, 1, 1)


class GamingDayError(CroupierError, ValueError):
    """A gaming-day setting or date that cannot be used (bad boundary, unknown time zone)."""


def parse_day(text: object) -> date:
    """A report's date as written, ``YYYY-MM-DD``; GamingDayError otherwise."""
    if not isinstance(text, str) or not DAY.fullmatch(text):
        raise GamingDayError("a date must be YYYY-MM-DD, e.g. 2026-11-23")
    try:
        return date.fromisoformat(text)
    except ValueError:
        raise GamingDayError(f"{text} is not a date (YYYY-MM-DD)") from None


@dataclass(frozen=True)
class GamingDayRule:
    start: time  # local time of the boundary
    zone: ZoneInfo

    @classmethod
    def parse(cls, boundary: str, timezone: str) -> GamingDayRule:
        match = BOUNDARY.match(boundary)
        if not match:
            raise GamingDayError(f"gaming_day_start {boundary!r} must be HH:MM (00:00..23:59)")
        try:
            zone = ZoneInfo(timezone)
        except (ZoneInfoNotFoundError, ValueError):
            raise GamingDayError(
                f"timezone {timezone!r} is not a known time zone (e.g. Europe/Athens, UTC)"
            ) from None
        return cls(time(int(match[1]), int(match[2])), zone)

    def bounds(self, day: date) -> tuple[datetime, datetime]:
        """The first instant of ``day`` and the first instant of the next one, in UTC."""
        start = datetime.combine(day, self.start, self.zone).astimezone(UTC)
        end = datetime.combine(day + timedelta(days=1), self.start, self.zone).astimezone(UTC)
        return start, end

    def day_of(self, instant: datetime) -> date:
        """The gaming day an instant belongs to."""
        local = instant.astimezone(self.zone)
        day = local.date()
        return day if local.time() >= self.start else day - timedelta(days=1)

    def last_complete(self, now: datetime) -> date:
        """The last gaming day that has ended at ``now`` (the default report)."""
        return self.day_of(now) - timedelta(days=1)

    def check_reportable(self, day: date, now: datetime) -> None:
        """GamingDayError unless ``day`` is from :data:`FIRST_DAY` to the gaming day in
        progress at ``now`` (a day not started has no report, even an empty one)."""
        current = self.day_of(now)
        if day < FIRST_DAY:
            raise GamingDayError(f"{day.isoformat()} is before {FIRST_DAY.isoformat()}")
        if day > current:
            raise GamingDayError(
                f"gaming day {day.isoformat()} has not started (the one in progress is "
                f"{current.isoformat()})"
            )

    def describe(self) -> str:
        return f"{self.start:%H:%M} {self.zone.key}"

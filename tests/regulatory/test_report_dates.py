"""``report day --date`` and the daemon's ``report.day`` ``date``: YYYY-MM-DD only, from
2000-01-01 to the gaming day in progress; anything else is a usage error naming --date (a bad
request at the socket), never Python's wording, an OverflowError or a signed report of a day
that has not begun."""

from __future__ import annotations

import asyncio
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from types import SimpleNamespace

import pytest

from controller.books.reports.gaming_day import GamingDayError, GamingDayRule, parse_day
from controller.table.control.wire import ControlError
from controller.table.reporting import day_report
from controller.table.tableconfig import load_table_config
from tests.regulatory.test_report_key_files import report

SIM_CONFIG = Path(__file__).resolve().parents[2] / "config" / "sim.toml"
RULE = GamingDayRule.parse("06:00", "Europe/Athens")
NOW = datetime(2026, 11, 25, 12, 0, tzinfo=UTC)


def _day(capsys, *words: str) -> tuple[int, str]:
    return report(capsys, "day", *words)


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("9999-12-31", "is outside 2000-01-01 .. "),
        ("2030-01-01", "is outside 2000-01-01 .. "),
        ("1999-12-31", "is outside 2000-01-01 .. "),
        ("2026-1-5", "'2026-1-5' is not a date: write YYYY-MM-DD"),
        ("20261126", "'20261126' is not a date: write YYYY-MM-DD"),
        ("2026-02-30", "is not a date: write YYYY-MM-DD"),
        ("２０２６-11-23", "is not a date"),  # fullwidth digits: \d would take them
    ],
)
def test_a_bad_date_is_a_usage_error_naming_the_option(capsys, tmp_path, text, says) -> None:
    code, said = _day(capsys, "--date", text, "--config", str(SIM_CONFIG), "--db", "x")
    assert code == 2 and said.count("\n") == 1, said
    assert "argument --date" in said and says in said
    assert "fromisoformat" not in said and "internal error" not in said


def test_a_day_that_has_not_begun_is_refused_with_the_configuration(capsys, tmp_path) -> None:
    """Tomorrow in UTC passes the parse (the table's zone may be ahead); the table's own rule
    refuses it when that day has not begun, before any key or ledger is looked for."""
    config = load_table_config(SIM_CONFIG)
    from controller.table.reporting import report_context

    rule = report_context(config).rule
    now = datetime.now(UTC)
    ahead = rule.day_of(now) + timedelta(days=1)
    if ahead > now.date() + timedelta(days=1):
        pytest.skip("the table's day is already past tomorrow in UTC")
    code, said = _day(
        capsys,
        "--date",
        ahead.isoformat(),
        "--config",
        str(SIM_CONFIG),
        "--state-dir",
        str(tmp_path),
    )
    assert code == 2 and said.count("\n") == 1 and "--date" in said, said
    assert "has not started" in said


def test_the_rule_takes_the_days_from_2000_to_the_one_in_progress() -> None:
    RULE.check_reportable(date(2000, 1, 1), NOW)
    RULE.check_reportable(date(2026, 11, 25), NOW)  # in progress: marked so, not refused
    for day, says in ((date(1999, 12, 31), "before"), (date(2026, 11, 26), "not started")):
        with pytest.raises(GamingDayError, match=says):
            RULE.check_reportable(day, NOW)
    with pytest.raises(GamingDayError, match="not started"):
        RULE.check_reportable(date(9999, 12, 31), NOW)
    assert parse_day("2026-11-23") == date(2026, 11, 23)
    for text in ("20261123", "2026-1-5", "2026-11-23T00:00", 20261123, None):
        with pytest.raises(GamingDayError, match="YYYY-MM-DD"):
            parse_day(text)


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("9999-12-31", "has not started"),
        ("2030-01-01", "has not started"),
        ("1999-12-31", "before 2000-01-01"),
        ("20261126", "YYYY-MM-DD"),
        ("2026-1-5", "YYYY-MM-DD"),
    ],
)
def test_the_daemon_refuses_a_bad_date_as_a_bad_request(text, says) -> None:
    runner = SimpleNamespace(
        config=load_table_config(SIM_CONFIG), wall_clock=lambda: NOW.timestamp()
    )
    with pytest.raises(ControlError, match=says) as caught:
        asyncio.run(day_report(runner, {"date": text}))
    assert caught.value.code == "bad-request" and "'date'" in str(caught.value)

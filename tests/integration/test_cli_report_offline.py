"""``croupier report day`` read from a keyed ledger's file, the daemon stopped (a dead
controller's SD card, an auditor's copy): the keyring is found where the daemon finds it, or
named with ``--ledger-key``, so the journal is checked and the report signed. Before, the
report was refused ("the journal can be verified only with the keyring") and its only --key
was the report's signing key."""

from __future__ import annotations

import json
from datetime import UTC, datetime

import pytest

from controller.books.ledger.keys import SIM_KEY
from controller.books.reports.gaming_day import GamingDayRule
from controller.cli.main import main

pytestmark = pytest.mark.integration


def test_the_day_report_of_a_stopped_tables_ledger(make_sim_table, capsys, tmp_path):
    table = make_sim_table(state_dir=tmp_path / "state")
    table.call("round.stake", seat=1, stakes={"ante": 1000, "blind": 1000}, decision="4x")
    table.call("round.lock")
    table.wait_for_state("verified")
    table.call("round.confirm")
    table.wait_for_state("settled")
    table.stop()
    offline = ["report", "day", "--config", str(table.config_path), "--json"]
    # the gaming day in progress by the table's own rule: between midnight and the day's
    # start (06:00) the calendar's date has not begun as a gaming day (it failed at 00:05)
    settings = table.config.report
    rule = GamingDayRule.parse(settings.gaming_day_start, settings.timezone)
    today = rule.day_of(datetime.now(UTC)).isoformat()
    offline += ["--state-dir", str(table.state_dir), "--date", today]

    assert main(offline) == 0, capsys.readouterr().err
    report = json.loads(capsys.readouterr().out)["report"]
    assert report["table"] == table.config.table_id

    moved = tmp_path / "elsewhere.key"  # an auditor's copy: the keyring named
    (table.state_dir / SIM_KEY).rename(moved)
    assert main(offline) == 1
    assert "keyring" in capsys.readouterr().err
    assert main([*offline, "--ledger-key", str(moved)]) == 0, capsys.readouterr().err

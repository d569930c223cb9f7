"""The gaming-day meter report (issue 18 point 1): figures against what the ledger answered
event by event, the reconciliation that refuses a day that does not add up, the day's
bounds in local time."""

from datetime import date, datetime

import pytest
from regulatory_fixtures import DAY, NOW, RULE, SetWall, context, new_ledger, play_history

from controller.books.ledger.reader import LedgerReader
from controller.books.reports.day import ReconciliationError, build_day_report
from controller.books.reports.gaming_day import GamingDayError, GamingDayRule


@pytest.fixture
def history(tmp_path):
    wall = SetWall()
    path = tmp_path / "ledger.sqlite3"
    with new_ledger(path, wall) as ledger:
        facts = play_history(ledger, wall)
    return path, facts


def report_of(path, day=DAY):
    with LedgerReader.open(path) as reader:
        return build_day_report(reader, day, context(), now=NOW)


def test_figures_match_what_the_ledger_answered(history):
    path, facts = history
    report = report_of(path)
    (pool,) = report["pools"]
    assert pool["opening"]["displayed"] == facts.opening
    assert pool["closing"]["displayed"] == facts.closing
    assert pool["contributions"] == facts.contributions
    assert pool["awards"]["from_pool"] == facts.awards_from_pool
    assert pool["awards"]["count"] == len(pool["hits"]) == facts.hits
    assert pool["adjustment_total"]["displayed"] == facts.corrections == 1234
    assert pool["adjustments"][0]["reason"] == "display fault ticket 42"
    assert pool["resets"] == 1  # the royal flush reset the pool to its seed (PRG-5)
    seeds = pool["seeds"]["by_house"] + pool["seeds"]["by_reserve"]
    assert seeds == 500_000
    assert facts.closing == (
        facts.opening + facts.contributions - facts.awards_from_pool + seeds + facts.corrections
    )
    assert report["rounds"] == {
        "opened": 3,
        "settled": 2,
        "voided": 1,
        "voided_by_rule": {"MD-S1": 1},
        "open_at_end": 0,
    }
    wagers = {w["wager"]: w for w in report["wagers"]}
    for wager in ("ante", "blind"):
        assert wagers[wager]["handle"] == facts.handle[wager]
        assert wagers[wager]["paid"] == facts.paid[wager]
    # envy bonuses (PRG-4) are paid on the progressive stake
    assert wagers["progressive"]["paid"] == facts.paid["progressive"] + facts.paid["envy"]
    assert wagers["ante"]["hold"] == 2000 and wagers["ante"]["hold_percent"] == "40.00"
    assert report["reconciled"] and report["complete"]


def test_days_before_and_after_are_their_own(history):
    path, facts = history
    before = report_of(path, date(2026, 11, 22))
    after = report_of(path, date(2026, 11, 24))
    assert before["pools"][0]["closing"]["displayed"] == facts.opening
    assert after["pools"][0]["opening"]["displayed"] == facts.closing
    assert before["rounds"]["settled"] == after["rounds"]["settled"] == 1
    empty = report_of(path, date(2026, 11, 21))
    assert empty["rounds"]["opened"] == 0 and empty["wagers"] == []
    assert empty["pools"][0]["opening"] == empty["pools"][0]["closing"]


def test_theoretical_hold_comes_from_the_exact_par_sheet(history):
    path, _ = history
    figure = context().par["trips"]
    # UTH Trips (3:1 trips .. 50:1 royal, UTH-9): the published exact edge is 3.4980%
    assert f"{float(figure.house_edge):.6f}" == "0.034979"
    progressive = {w["wager"]: w for w in report_of(path)["wagers"]}["progressive"]
    pool = report_of(path)["pools"][0]
    p = context().par["progressive"]
    expected = p.house_edge - p.jackpot_probability * pool["opening"]["displayed"] / 100
    assert progressive["theoretical_hold_percent"] == f"{float(expected) * 100:.2f}"


def _tamper(path, sql):
    import sqlite3

    conn = sqlite3.connect(path)
    conn.execute(sql)
    conn.commit()
    conn.close()


@pytest.mark.parametrize(
    "sql, named",
    [
        # a contribution row says more went to the pool than the journal's replay
        (
            "UPDATE round_pools SET contribution = json_set(contribution, '$.to_current', 999) "
            "WHERE round_id = 'day-1'",
            "contributions from the rows",
        ),
        # an award row says less was taken from the pool
        ("UPDATE hits SET from_pool = 1 WHERE line = 'royal-flush'", "won_from_pool"),
        # a correction row rewritten after the fact
        ("UPDATE corrections SET new = new + 5", "corrections"),
        # the stored meter no longer matches the journal
        ("UPDATE pools SET current = current + 1", "pools table"),
    ],
)
def test_a_day_that_does_not_reconcile_is_refused(history, sql, named):
    path, _ = history
    _tamper(path, sql)
    with pytest.raises(ReconciliationError) as caught:
        # the stored pools are compared with the replay for the day that runs to the end
        report_of(path, date(2026, 11, 24) if sql.startswith("UPDATE pools") else DAY)
    assert any(named in p for p in caught.value.problems), caught.value.problems
    assert "does not reconcile" in str(caught.value)


def test_a_broken_journal_refuses_every_day(history):
    path, _ = history
    _tamper(path, "DROP TRIGGER journal_no_update")
    _tamper(path, "UPDATE journal SET data = replace(data, '500', '501') WHERE seq = 6")
    with pytest.raises(ReconciliationError, match="journal"):
        report_of(path, date(2026, 11, 21))


def test_gaming_day_bounds_follow_local_time():
    start, end = RULE.bounds(date(2026, 7, 1))  # EEST, UTC+3
    assert start.isoformat() == "2026-07-01T03:00:00+00:00"
    assert (end - start).total_seconds() == 24 * 3600
    start, end = RULE.bounds(date(2026, 10, 24))  # clocks go back on the 25th at 04:00
    assert (end - start).total_seconds() == 25 * 3600
    start, end = RULE.bounds(date(2026, 3, 28))  # forward on the 29th
    assert (end - start).total_seconds() == 23 * 3600
    at = datetime.fromisoformat("2026-11-24T03:59:59+00:00")
    assert RULE.day_of(at) == DAY and RULE.last_complete(at) == date(2026, 11, 22)


@pytest.mark.parametrize(
    "start, zone, named",
    [("6:00", "UTC", "HH:MM"), ("24:00", "UTC", "HH:MM"), ("06:00", "Mars/Base", "time zone")],
)
def test_bad_gaming_day_settings_are_named(start, zone, named):
    with pytest.raises(GamingDayError, match=named):
        GamingDayRule.parse(start, zone)


def test_the_report_names_the_rules_the_day_was_played_under(tmp_path):
    """The rules in force at the day's start and every change in it (journaled at a start,
    docs/ledger.md), in the JSON, the CSV rows and the PDF's closing paragraph."""
    from controller.books.ledger.rules import rules_digest
    from controller.books.ledger.selfcheck import power_up
    from controller.books.reports.render import _rules_played, rows

    wall = SetWall()
    profile = {"name": "uth-gr", "version": 1, "origin": "shipped", "file": "profiles/uth-gr.toml"}
    before = {"profile": {**profile, "sha256": "a" * 64}, "limits": {}}
    during = {**before, "limits": {"ante": {"min": 500, "max": 9000}}}
    path = tmp_path / "ledger.sqlite3"
    with new_ledger(path, wall) as ledger:
        wall.at("2026-11-22T12:00:00+00:00")  # the gaming day before
        power_up(ledger, 1.0, None, rules=before)
        wall.at("2026-11-23T12:00:00+00:00")  # DAY, 14:00 Athens
        power_up(ledger, 2.0, None, rules=during)
    report = report_of(path)
    assert [r["rules_sha256"] for r in report["rules"]] == [
        rules_digest(before),
        rules_digest(during),
    ]
    assert report["rules"][1]["limits"] == {"ante": {"min": 500, "max": 9000}}
    seq = str(report["rules"][1]["seq"])
    assert ["rules", seq, "rules_sha256", rules_digest(during)] in rows(report)
    assert ["rules", seq, "limits.ante", "500..9000"] in rows(report)
    assert rules_digest(during) in _rules_played(report)
    next_day = report_of(path, date(2026, 11, 24))  # nothing changed: the rules in force
    assert [r["rules_sha256"] for r in next_day["rules"]] == [rules_digest(during)]

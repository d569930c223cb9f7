"""The daemon's log words each condition by what it does (controller.table.journald): only a
condition that closes the table says "table closed"."""

from __future__ import annotations

import logging

import pytest

from controller.table.events import AppendJournal, Condition
from controller.table.journald import log_effect
from controller.table.machine import ADVISORY, PROGRESSIVE_ONLY


def logged(caplog: pytest.LogCaptureFixture, name: Condition, detail: str) -> str:
    caplog.clear()
    log_effect(AppendJournal("condition", {"name": name, "blocking": True, "detail": detail}))
    (record,) = caplog.records
    return record.getMessage()


@pytest.mark.parametrize(
    ("name", "words"),
    [
        (Condition.CLOCK, "table closed: clock: no NTP"),
        (
            Condition.PROGRESSIVE_LINK,
            "progressive closed (no progressive stakes): progressive-link: no NTP",
        ),
        (Condition.LAMPS, "the table plays on: lamps: no NTP"),
    ],
)
def test_each_condition_says_what_it_does(caplog, name, words):
    caplog.set_level(logging.INFO, logger="croupierd.table")
    assert logged(caplog, name, "no NTP") == words


def test_only_conditions_that_close_the_table_say_so(caplog):
    caplog.set_level(logging.INFO, logger="croupierd.table")
    for name in Condition:
        closes = name not in PROGRESSIVE_ONLY | ADVISORY
        assert logged(caplog, name, "x").startswith("table closed") == closes, name

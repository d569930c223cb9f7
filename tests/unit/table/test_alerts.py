"""The pit's alerts (controller.table.alerts): derived from the table's conditions, kept until
acknowledged, acknowledged once."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from controller.table.alerts import (
    ON_DELAY,
    AlertBook,
    AlertError,
    AlertKind,
    AlertState,
    TableConditions,
    derive,
)

OPEN = TableConditions("open")
LINK_DOWN = TableConditions("closed", conditions={"link": "shuffler not reachable"})


def kinds(book: AlertBook) -> list[tuple[str, str, str]]:
    return [(a.kind.value, a.subject, a.state.value) for a in book.alerts()]


def test_each_condition_names_its_alert() -> None:
    wanted = derive(
        TableConditions(
            "jackpot",
            round_id="SIM-1-7",
            conditions={
                "selfcheck": "manifest differs",
                "clock": "not synchronised",
                "progressive-link": "store unreachable",
            },
            excluded={3: "sensor stuck for 2 rounds"},
            audit_alarm=True,
        )
    )
    assert set(wanted) == {
        (AlertKind.SELFCHECK_FAILED, "table"),
        (AlertKind.CLOCK_NOT_SYNCHRONISED, "table"),
        (AlertKind.LINK_DOWN, "linked pool"),
        (AlertKind.JACKPOT_PENDING, "SIM-1-7"),
        (AlertKind.STUCK_SENSOR, "seat 3"),
        (AlertKind.SHUFFLE_AUDIT_ALARM, "shuffler"),
    }
    assert wanted[AlertKind.STUCK_SENSOR, "seat 3"] == "sensor stuck for 2 rounds"


def test_a_closed_table_is_an_alert_with_its_reasons() -> None:
    wanted = derive(LINK_DOWN)
    assert wanted[AlertKind.TABLE_CLOSED, "table"] == "link: shuffler not reachable"
    assert wanted[AlertKind.LINK_DOWN, "shuffler"] == "shuffler not reachable"


def test_nothing_is_raised_while_the_daemon_starts() -> None:
    assert derive(TableConditions("closed", conditions={"startup": "", "link": "x"})) == {}


def test_a_link_down_is_an_alert_once_it_lasted_the_on_delay_raised_when_it_began() -> None:
    book = AlertBook()
    delay = ON_DELAY[AlertKind.LINK_DOWN]
    assert not book.update(LINK_DOWN, 100.0)
    assert not book.update(LINK_DOWN, 100.0 + delay - 0.1)
    assert book.update(LINK_DOWN, 100.0 + delay)
    assert [(a.kind, a.raised) for a in book.alerts()] == [
        (AlertKind.LINK_DOWN, 100.0),
        (AlertKind.TABLE_CLOSED, 100.0),
    ]


def test_a_blip_shorter_than_the_on_delay_raises_nothing() -> None:
    book = AlertBook()
    book.update(LINK_DOWN, 100.0)
    book.update(OPEN, 102.0)
    book.update(LINK_DOWN, 103.0)  # a new blip: the delay counts again
    assert not book.update(LINK_DOWN, 103.0 + ON_DELAY[AlertKind.LINK_DOWN] - 0.1)
    assert book.alerts() == []


def test_a_jackpot_is_an_alert_at_once() -> None:
    book = AlertBook()
    assert book.update(TableConditions("jackpot", round_id="T-3"), 5.0)
    assert [(a.kind, a.subject) for a in book.alerts()] == [(AlertKind.JACKPOT_PENDING, "T-3")]


def raised(book: AlertBook, conditions: TableConditions, now: float) -> None:
    """Conditions held past every on-delay."""
    book.update(conditions, now)
    book.update(conditions, now + max(ON_DELAY.values()))


def test_a_cleared_condition_stays_until_acknowledged() -> None:
    book = AlertBook()
    raised(book, LINK_DOWN, 95.0)
    assert kinds(book) == [("link-down", "shuffler", "active"), ("table-closed", "table", "active")]
    assert book.update(OPEN, 101.0)
    assert kinds(book) == [
        ("link-down", "shuffler", "cleared"),
        ("table-closed", "table", "cleared"),
    ]
    assert not book.update(OPEN, 102.0)  # nothing new
    acked = book.acknowledge(1, "alice")
    assert acked.acknowledged_by == "alice" and acked.state == AlertState.CLEARED
    assert kinds(book) == [("table-closed", "table", "cleared")]


def test_an_acknowledged_alert_stays_while_its_condition_holds() -> None:
    book = AlertBook()
    raised(book, LINK_DOWN, 95.0)
    book.acknowledge(1, "bob")
    assert kinds(book)[0] == ("link-down", "shuffler", "acknowledged")
    with pytest.raises(AlertError, match="acknowledged already"):
        book.acknowledge(1, "carol")
    book.update(LINK_DOWN, 101.0)
    assert book.alerts()[0].state == AlertState.ACKNOWLEDGED
    book.update(OPEN, 102.0)
    assert [a.kind for a in book.alerts()] == [AlertKind.TABLE_CLOSED]


def test_a_returning_condition_reactivates_its_unacknowledged_alert() -> None:
    book = AlertBook()
    raised(book, LINK_DOWN, 95.0)
    book.update(OPEN, 101.0)
    book.update(LINK_DOWN, 102.0)  # back on the book at once: it was never acknowledged
    assert [(a.id, a.state, a.raised) for a in book.alerts()] == [
        (1, AlertState.ACTIVE, 95.0),
        (2, AlertState.ACTIVE, 95.0),
    ]


def test_after_acknowledgement_and_clearing_a_new_occurrence_is_a_new_alert() -> None:
    book = AlertBook()
    raised(book, LINK_DOWN, 95.0)
    book.acknowledge(1, "alice")
    book.acknowledge(2, "alice")
    book.update(OPEN, 101.0)
    assert book.alerts() == []
    raised(book, LINK_DOWN, 102.0)
    assert [a.id for a in book.alerts()] == [3, 4]


def test_unknown_alert_names_the_ones_there_are() -> None:
    book = AlertBook()
    raised(book, LINK_DOWN, 1.0)
    with pytest.raises(AlertError, match=r"no alert 9 on this table \(alerts: 1, 2\)"):
        book.acknowledge(9, "alice")


conditions = st.builds(
    TableConditions,
    state=st.sampled_from(["open", "closed", "jackpot", "dealing"]),
    round_id=st.one_of(st.none(), st.just("T-1")),
    conditions=st.dictionaries(
        st.sampled_from(["link", "progressive-link", "selfcheck", "clock", "deck"]),
        st.text(max_size=5),
        max_size=4,
    ),
    excluded=st.dictionaries(st.integers(1, 7), st.text(max_size=5), max_size=3),
    audit_alarm=st.booleans(),
)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(conditions, st.lists(st.integers(1, 12), max_size=3)), max_size=12))
def test_the_book_never_loses_an_unacknowledged_alert(steps) -> None:
    """Whatever happens, every alert the conditions call for is on the book, and an alert
    leaves only after an acknowledgement."""
    book = AlertBook()
    for step, (cond, acks) in enumerate(steps):
        before = {a.id: a for a in book.alerts()}
        raised(book, cond, step * 100.0)
        on_book = {(a.kind, a.subject) for a in book.alerts()}
        assert set(derive(cond)) <= on_book
        after = {a.id for a in book.alerts()}
        for gone in set(before) - after:
            assert before[gone].state == AlertState.ACKNOWLEDGED
        for alert_id in acks:
            try:
                book.acknowledge(alert_id, "tester")
            except AlertError:
                assert alert_id not in {a.id for a in book.alerts() if a.state != "acknowledged"}

"""The debouncer against a plain oracle: whenever the polls come, it reports exactly the levels
that held for the interval, in order, at the instant each settled."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from drivers.gpio.debounce import Debouncer

INTERVAL = 30.0  # the property test counts in whole milliseconds: exact in floating point


def oracle(start: bool, edges: list[tuple[float, bool]], end: float) -> list[tuple[bool, float]]:
    """Walk the raw signal: a level that differs from the debounced one and lasts INTERVAL
    (until the next edge, or the end) settles INTERVAL after it began."""
    changes, level = [], start
    for i, (t, raw) in enumerate(edges):
        until = edges[i + 1][0] if i + 1 < len(edges) else end
        if raw != level and until - t >= INTERVAL:
            level = raw
            changes.append((raw, t + INTERVAL))
    return changes


@st.composite
def signals(draw):
    start = draw(st.booleans())
    gaps = draw(st.lists(st.integers(1, 80), max_size=25))  # between raw edges
    polls = draw(st.lists(st.booleans(), min_size=len(gaps), max_size=len(gaps)))
    edges, t, level = [], 0.0, start
    for gap in gaps:
        t += gap
        level = not level
        edges.append((t, level))
    return start, edges, polls


@given(signals())
def test_every_settled_level_is_reported_however_late_the_polls(signal):
    start, edges, polls = signal
    d = Debouncer(start, INTERVAL)
    seen = []
    for (t, level), poll_now in zip(edges, polls, strict=True):
        d.edge(level, t)
        if poll_now:  # a busy loop polls only now and then
            seen += d.poll(t)
    end = (edges[-1][0] if edges else 0.0) + 1000.0
    seen += d.poll(end)
    expected = oracle(start, edges, end)
    assert seen == expected
    assert d.level == (expected[-1][0] if expected else start)


def test_a_release_and_a_new_press_fed_before_any_poll_are_both_reported():
    """The rig releases CONFIRM and presses it again 70 ms later; the daemon's loop was busy
    and handles both edges before it polls: the release held for 70 ms, so it counts."""
    d = Debouncer(True, INTERVAL)
    d.edge(False, 1000.0)
    d.edge(True, 1070.0)
    assert d.deadline() == 1030.0  # already due: the loop polls at once
    assert d.poll(1071.0) == [(False, 1030.0)]
    assert d.poll(1101.0) == [(True, 1100.0)]


def test_a_bounce_shorter_than_the_interval_is_still_filtered():
    d = Debouncer(False, INTERVAL)
    d.edge(True, 1000.0)
    d.edge(False, 1010.0)
    assert d.poll(2000.0) == [] and d.deadline() is None

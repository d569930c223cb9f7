"""The keys and the autoplay of ``make demo``'s live view (:class:`controller.rig.live.LiveTable`)
on a real simulated table, as a technician's tour of issue 17 met them: autoplay after a
manual round that left seats excluded, after the ``k`` key's ``kill -9``, and after an
autoplay that stopped with the robot's stakes on the sensors."""

from __future__ import annotations

import time
from collections.abc import Callable

import pytest

from controller.rig.dealer import Dealer
from controller.rig.errors import RigFailure
from controller.rig.live import LiveTable
from controller.rig.table import SimTable

AUTOPLAY_WAIT = 60.0  # seconds for a few rounds of autoplay on a loaded machine


def live_table(table: SimTable, said: list[str]) -> LiveTable:
    """Nobody watches (no pauses); everything the rig says is kept in ``said``."""
    return LiveTable(table, watched=False, seed=17, on_message=said.append)


def manual_round(live: LiveTable, seats: str) -> None:
    """Stakes on ``seats`` by hand, LOCK, CONFIRM twice, the stakes left on their sensors: at
    the round's end they have been held across a round, and the table excludes the seats."""
    for key in seats:
        live.key(key)
    live.table.wait_until(
        lambda: all(live.table.status()["seats"][s]["stake"] for s in seats), "the stakes"
    )
    live.key("l")
    live.table.wait_for_state("verified", "void")
    live.key("c")
    live.table.wait_for_state("settled", "jackpot", "open")
    live.key("c")
    live.table.wait_until(
        lambda: all(live.table.status()["seats"][s]["excluded"] for s in seats),
        f"seats {seats} excluded",
    )


def autoplay_rounds(live: LiveTable, rounds: int) -> None:
    """Autoplay by its key until ``rounds`` more rounds are played, then stop it by its key."""
    start = live.rounds
    live.key("a")
    end = time.monotonic() + AUTOPLAY_WAIT
    while live.rounds < start + rounds and live.autoplaying and time.monotonic() < end:
        time.sleep(0.05)
    if live.autoplaying:
        live.key("a")
    live.wait_autoplay()


def played_seats(said: list[str]) -> list[int]:
    """The seats of every round autoplay reported (``SIM-1-000002: seats [4, 6] settled``)."""
    seats: list[int] = []
    for line in said:
        if line.startswith("SIM-1-") and ": seats [" in line:
            listed = line.split(": seats [", 1)[1].split("]", 1)[0]
            seats += [int(s) for s in listed.split(",")]
    return seats


def test_autoplay_leaves_out_the_seats_excluded_by_a_manual_round(
    make_sim_table: Callable[..., SimTable],
):
    """Issue 17's tour: after ``2 3 l c c a`` autoplay staked the excluded seats 2 and 3 and
    sat at round 1 until it timed out waiting for their stakes to be sensed."""
    said: list[str] = []
    live = live_table(make_sim_table(), said)
    manual_round(live, "23")
    autoplay_rounds(live, 3)
    assert live.errors == 0, said
    assert live.rounds >= 3, said
    assert not {2, 3} & set(played_seats(said)), said
    assert "autoplay leaves out excluded seat(s) 2, 3 (STUCK); x clears" in said, said


def test_autoplay_says_at_once_when_every_seat_is_excluded(
    make_sim_table: Callable[..., SimTable],
):
    said: list[str] = []
    live = live_table(make_sim_table(), said)
    manual_round(live, "123456")
    started = time.monotonic()
    live.key("a")
    live.wait_autoplay()
    assert time.monotonic() - started < 5.0  # not after a wait for stakes that never come
    assert live.rounds == 0 and live.errors == 1
    assert said[-1].startswith("autoplay cannot play: every seat is excluded (STUCK sensor"), said
    assert said[-1].endswith("x clears them")


def test_autoplay_goes_on_after_the_k_key_kills_the_daemon(
    make_sim_table: Callable[..., SimTable],
):
    """Issue 17's tour: ``k`` during autoplay gave ``autoplay stopped: control socket error:
    [Errno 104] Connection reset by peer``. The kill is the key's job (the round in play is
    voided at start-up, MD-S2); autoplay waits for the restart and plays on."""
    said: list[str] = []
    live = live_table(make_sim_table(), said)
    live.key("a")
    live.table.wait_until(lambda: live.rounds >= 1, "a first round", timeout=AUTOPLAY_WAIT)
    live.key("k")  # the view's thread kills and restarts the daemon, as the key does
    assert any(line.startswith("restarted; voided at start-up") for line in said), said
    killed_at = live.rounds
    end = time.monotonic() + AUTOPLAY_WAIT
    while live.rounds < killed_at + 2 and live.autoplaying and time.monotonic() < end:
        time.sleep(0.05)
    live.key("a")
    live.wait_autoplay()
    assert live.errors == 0, said
    assert not any(line.startswith("autoplay stopped") for line in said), said
    assert live.rounds >= killed_at + 2, said
    restarted = next(n for n, line in enumerate(said) if line.startswith("restarted;"))
    assert all(n > restarted for n, line in enumerate(said) if "cut short by the kill" in line)


def test_an_autoplay_stopped_mid_round_leaves_no_stake_for_the_next(
    make_sim_table: Callable[..., SimTable], monkeypatch: pytest.MonkeyPatch
):
    """Issue 17's tour: after ``x`` then ``a``, ``autoplay stopped: the table did not open:
    open {}`` while the table was OPEN: an earlier autoplay had stopped on an error with its
    stakes on the sensors (there: waiting for stakes on excluded seats; here: a cable pulled
    once the stakes are sensed), and the next robot dealer did not know they were its own
    (the table sensed them: OPEN, but not ready for a round)."""
    said: list[str] = []
    pulled: list[str] = []
    place = Dealer.place

    def place_then_cable_pulled(self: Dealer, seats: tuple[int, ...]) -> None:
        place(self, seats)  # the stakes on their sensors, sensed: then the wait fails once
        if not pulled:
            pulled.append("once")
            raise RigFailure("the rig's cable was pulled")

    monkeypatch.setattr(Dealer, "place", place_then_cable_pulled)
    live = live_table(make_sim_table(), said)
    live.key("a")
    live.wait_autoplay()
    assert said[-1] == "autoplay stopped: the rig's cable was pulled", said
    table = live.table
    table.wait_until(
        lambda: not any(i["stake"] for i in table.status()["seats"].values()),
        "the robot's stakes lifted when its autoplay stopped",
    )
    live.key("x")  # as in the tour: nothing excluded to clear
    autoplay_rounds(live, 2)
    assert live.errors == 1 and live.rounds >= 2, said

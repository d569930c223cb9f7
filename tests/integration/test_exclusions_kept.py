"""A seat excluded for a stuck sensor stays excluded across a ``kill -9`` and restart of the
daemon, until a technician clears it (controller/table/exclusions.py). Before, the restarted
daemon counted the stuck sensor as a stake placed at start-up and the next LOCK took a
progressive stake from it (PRG-2)."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from controller.rig.dealer import Dealer

pytestmark = pytest.mark.integration


def play_round(dealer: Dealer, seats: tuple[int, ...], lift: tuple[int, ...]) -> dict:
    """Stakes on ``seats``, LOCK, the deal, CONFIRM; ``lift`` collected before the round
    ends; the status once the table is open again."""
    dealer.place(seats)
    status = dealer.press("lock", lambda s: s["state"] != "open")
    dealer.wait(lambda s: s["state"] == "verified", "the deal")
    for seat in lift:
        dealer.table.io.lift_stake(seat)
        dealer.placed.discard(seat)
    dealer.press("confirm", lambda s: s["state"] != "verified")
    dealer.wait(lambda s: s["state"] == "settled", "the settlement")
    dealer.press("confirm", lambda s: s["state"] != "settled")
    dealer.wait(lambda s: s["state"] == "open", "the table to open")
    return status


def kept_now(path: Path, awaited: dict) -> dict:
    """The file's seats once it holds ``awaited`` or after 10 s (the daemon writes it on its
    I/O thread, after the status that shows the change)."""
    deadline = time.monotonic() + 10.0
    while True:
        found = json.loads(path.read_text()) if path.exists() else None
        if found == awaited or time.monotonic() > deadline:
            return found
        time.sleep(0.02)


def test_a_stuck_seat_stays_excluded_after_a_restart_until_cleared(make_sim_table):
    table = make_sim_table()
    dealer = Dealer(table)
    play_round(dealer, (1, 3), lift=(1,))  # seat 3's stake stays on its sensor: stuck
    excluded = table.status()["seats"]["3"]["excluded"]
    kept = table.state_dir / "seat-exclusions.json"
    assert excluded and kept_now(kept, {"3": excluded}) == {"3": excluded}

    table.kill()
    table.start()
    table.wait_for_state("open", timeout=30)
    assert table.status()["seats"]["3"]["excluded"] == excluded
    assert "seat 3 is still excluded from before the start" in table.daemon_log(40)

    play_round(dealer, (1,), lift=(1,))
    locks = table.journal("transition")
    taken = [e["progressive"] for e in locks if e.get("to") == "locked"]
    assert taken[-1] == {"1": 100}  # the stuck seat's sensor took no stake after the restart

    table.call("seat.clear", privileged=True, seat=3, technician="rig")
    dealer.wait(lambda s: not s["seats"]["3"]["excluded"], "the seat cleared")
    assert kept_now(kept, {}) == {}

"""``make demo``: the simulated table with its live view, headless and in a terminal (a real
daemon each time), and the view itself."""

from __future__ import annotations

import shlex
import shutil
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from controller.books.ledger.reader import LedgerReader
from controller.engine.cards import parse_cards
from controller.rig.dealer import simple_decision
from controller.rig.table import processes_with
from controller.rig.view import Snapshot, for_terminal, render, too_small, wrapped
from display.geometry import Matrix

DEMO = [sys.executable, "-m", "controller.rig.demo"]


def test_headless_demo_plays_rounds_and_keeps_the_ledger(tmp_path):
    state = tmp_path / "sim" / "state"
    for run in (1, 2):
        done = subprocess.run(
            [*DEMO, "--rounds", "2", "--state-dir", str(state)],
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert done.returncode == 0, done.stdout + done.stderr
        assert "played 2 round(s)" in done.stdout
        assert f"SIM-1-00000{2 * run}" in done.stdout  # the second run goes on from the first
        assert "the sign reads: €" in done.stdout
        assert "keys:" not in done.stdout  # nobody at a keyboard
        assert "autoplay stopped" not in done.stdout
        # the daemon's log in the state directory (it went to its parent), and said where
        assert f"log {state / 'croupierd.log'}" in done.stdout
    with LedgerReader.open(state / "ledger.sqlite3") as ledger:
        assert sum(ledger.round_counts().values()) == 4
    assert (state / "croupierd.log").exists()
    assert not (tmp_path / "sim" / "croupierd.log").exists()


class Tmux:
    """A detached tmux server of its own running one command in a WIDTH x HEIGHT terminal:
    keys go in with send-keys, the screen comes out with capture-pane (what a person sees)."""

    def __init__(self, tmp_path: Path, command: list[str], width: int, height: int) -> None:
        self.base = ["tmux", "-S", str(tmp_path / "tmux.sock"), "-f", "/dev/null"]
        self.tmux(
            "new-session",
            "-d",
            "-x",
            str(width),
            "-y",
            str(height),
            "-e",
            "LANG=C.UTF-8",
            shlex.join(command),
        )
        self.tmux("set-option", "-g", "remain-on-exit", "on")  # the last words stay readable
        self.tmux("set-option", "-g", "window-size", "manual")

    def tmux(self, *args: str) -> str:
        return subprocess.run(
            [*self.base, *args], check=True, capture_output=True, text=True, timeout=30
        ).stdout

    def screen(self) -> str:
        return self.tmux("capture-pane", "-p")

    def keys(self, *keys: str) -> None:
        self.tmux("send-keys", *keys)

    def resize(self, width: int, height: int) -> None:
        self.tmux("resize-window", "-x", str(width), "-y", str(height))

    def wait_for(self, text: str, times: int = 1, timeout: float = 30.0) -> str:
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            shown = self.screen()
            if shown.count(text) >= times:
                return shown
            time.sleep(0.1)
        raise AssertionError(f"{text!r} never shown {times} time(s):\n{self.screen()}")

    def wait_until(self, ok: Callable[[str], bool], timeout: float = 30.0) -> str:
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            if ok(shown := self.screen()):
                return shown
            time.sleep(0.1)
        raise AssertionError(f"the screen never got there:\n{self.screen()}")

    def pane_dead(self) -> bool:
        return self.tmux("display-message", "-p", "#{pane_dead}").strip() == "1"

    def close(self) -> None:
        subprocess.run([*self.base, "kill-server"], capture_output=True, timeout=30)


def sensor_row(shown: str) -> list[str]:
    """The sensor states of seats 1..6 as the screen shows them."""
    rows = [line.split()[1:] for line in shown.splitlines() if line.startswith("sensor ")]
    return rows[0] if rows else []


@pytest.mark.skipif(
    shutil.which("tmux") is None, reason="tmux is not installed (apt-get install tmux)"
)
def test_terminal_demo_fits_80x24_follows_resizes_and_stops_cleanly_on_ctrl_c(tmp_path):
    state = tmp_path / "state"
    term = Tmux(tmp_path, [*DEMO, "--state-dir", str(state)], 80, 24)
    try:
        shown = term.wait_for("OPEN")
        lines = shown.splitlines()
        assert len(lines) <= 24 and all(len(line) <= 80 for line in lines)
        assert "keys: 1-6 stake" in shown and "the sign reads:" in shown  # what matters stays
        for key in "25":
            term.keys(key)
            term.wait_for(f"stake placed on seat {key}")
        shown = term.wait_until(lambda s: sensor_row(s).count("placed") == 2)
        assert sensor_row(shown)[1] == sensor_row(shown)[4] == "placed"  # whole (issue 17)
        term.keys("l")
        term.wait_for("VERIFIED")
        term.wait_for("status lamps: green on")  # the green lamp's pin, as the rig reads it
        term.resize(100, 45)  # a bigger terminal: the sign's LEDs come back
        shown = term.wait_for("+" + "-" * 64 + "+")
        assert len(shown.splitlines()) <= 45
        term.keys("c")
        term.wait_for("last round SIM-1-000001: settled")
        term.resize(80, 24)  # back to 80x24: redrawn without the LEDs, the keys still there
        shown = term.wait_until(lambda s: s.startswith("Croupier") and "+---" not in s)
        assert "keys: 1-6 stake" in shown and len(shown.splitlines()) <= 24
        term.resize(60, 15)  # below 80x24: what size it needs, not seats cut off (issue 17)
        shown = term.wait_for("terminal too small: 60x15")
        assert "80x24" in shown and "seat " not in shown
        term.resize(80, 24)  # and the view again
        shown = term.wait_until(lambda s: s.startswith("Croupier"))
        assert "keys: 1-6 stake" in shown and "too small" not in shown
        term.keys("C-c")
        end = time.monotonic() + 30
        while not term.pane_dead():
            assert time.monotonic() < end, "the demo did not exit within 30 s of Ctrl-C"
            time.sleep(0.1)
        last_words = term.tmux("capture-pane", "-p", "-S", "-100")  # with what scrolled off
        assert "stopping the table" in last_words and "stopped (Ctrl-C)" in last_words
    finally:
        term.close()
    # the daemon names its state directory (so does the tmux server, still going away)
    left = processes_with("controller.table.daemon", str(state))
    assert not left, f"the demo left its daemon running: {left}"
    with LedgerReader.open(state / "ledger.sqlite3") as ledger:
        assert ledger.round_counts() == {"settled": 1}


def test_the_view_fits_80_columns_and_shows_the_table():
    status = {
        "state": "void",
        "table": "SIM-1",
        "profile": "uth-gr",
        "round": "SIM-1-000007",
        "pools": {"main": 500_045},
        "pool_wagers": {"main": "progressive"},
        "conditions": {"deck": "deck out of play"},
        "verdict": {"status": "misdeal", "rule": "MD-S1", "reason": "seat:2 received 3"},
        "seats": {str(s): {"stake": s == 2, "excluded": None} for s in range(1, 7)},
        "sensors": {str(s): "locked" if s == 2 else "awaiting" for s in range(1, 7)},
        "shuffler": {"link": "up", "deck": "52 of 52 cards"},
    }
    last = {
        "round_id": "SIM-1-000007",
        "state": "voided",
        "rule": "MD-S1",
        "cause": "seat:2 received 3 card(s)",
        "paid": {"2": {"progressive": 100}},
        "paid_total": 100,
    }
    frame = Matrix(64).static("€5,000.45", "right")
    lines = render(Snapshot(status, frame, "€5,000.45", {"seat2": "on", "red": "blink"}, last))
    text = "\n".join(lines)
    assert all(len(line) <= 80 for line in lines)
    assert "VOID" in lines[0] and "SIM-1-000007" in lines[0]
    assert "verdict: misdeal MD-S1" in text and "CLOSED by deck" in text
    assert "stakes returned: seat 2 EUR 1.00" in text
    assert "the sign reads: €5,000.45" in text and text.count("#") > 40  # the LEDs
    # the pool by the name `croupier meters --pool` takes, with the wager that feeds it
    assert "pool main (progressive wager) EUR 5,000.45" in text
    snap = Snapshot(
        status, frame, "€5,000.45", {"seat2": "on"}, last, messages=["one", "two", "three", "four"]
    )
    short = render(snap, height=24)  # an 80x24 terminal: the LEDs and details give way
    assert len(short) <= 24 < len(render(snap))
    assert short[0].startswith("Croupier") and short[-1].strip().endswith("q quit")
    assert any(line.startswith("the sign reads:") for line in short)
    assert any(line.startswith("verdict: misdeal MD-S1") for line in short)
    assert all(len(line) <= 60 for line in render(snap, width=60, height=24))


def test_the_last_round_shows_each_payment_with_its_currency():
    """Issue 17: the seat lines read ``play 80.00 (UTH-7)`` under ``paid EUR 50.00``."""
    status = {
        "state": "settled",
        "table": "SIM-1",
        "profile": "uth-gr",
        "round": None,
        "pools": {},
        "seats": {},
        "shuffler": {},
    }
    last = {
        "round_id": "SIM-1-000003",
        "state": "settled",
        "paid": {"2": {"play": 8000, "trips": 2500}},
        "paid_total": 10500,
        "seats": [
            {
                "seat": 2,
                "hand": "straight",
                "wagers": {
                    "play": {"result": "win", "paid": 8000, "rule": "UTH-7"},
                    "trips": {"result": "win", "paid": 2500, "rule": "UTH-9", "line": "straight"},
                    "blind": {"result": "lose", "paid": 0, "rule": "UTH-7"},
                },
            }
        ],
    }
    text = "\n".join(render(Snapshot(status, None, None, {}, last)))
    assert "paid EUR 105.00" in text
    assert "seat 2 straight: play EUR 80.00 (UTH-7), trips EUR 25.00 (straight)," in text
    assert "no pool" in text


def test_long_lines_wrap_at_commas():
    lines = wrapped("  seat 1 pair:", [f"wager{n} 1,000.00 (UTH-{n})" for n in range(8)])
    assert len(lines) > 1 and all(len(line) <= 80 for line in lines)
    assert lines[1].startswith("    wager")


def test_simple_decision_is_legal_uth4():
    assert simple_decision(parse_cards("As 2d"), parse_cards("3c 7d 9h Js Qs")) == "4x"
    assert simple_decision(parse_cards("8s 2d"), parse_cards("3c 7d 9h Js Qs")) == "fold"
    assert simple_decision(parse_cards("8s 2d"), parse_cards("8c 7d 9h Js Qs")) == "2x"


def test_makefile_demo_runs_the_simulated_table():
    makefile = (Path(__file__).resolve().parents[3] / "Makefile").read_text()
    assert "-m controller.rig.demo" in makefile


def table_status(**seats_excluded: str) -> dict:
    """An open table's status: seats 2 and 3 with a stake placed, ``seat4="reason"`` excluded."""
    excluded = {k.removeprefix("seat"): v for k, v in seats_excluded.items()}
    return {
        "state": "open",
        "table": "SIM-1",
        "profile": "uth-gr",
        "round": None,
        "pools": {"progressive": 500_000},
        "conditions": {},
        "seats": {
            str(s): {"stake": s in (2, 3), "excluded": excluded.get(str(s))} for s in range(1, 7)
        },
        "sensors": {
            str(s): "excluded"
            if str(s) in excluded
            else ("stake placed" if s in (2, 3) else "awaiting")
            for s in range(1, 7)
        },
        "shuffler": {"link": "up", "deck": "52 of 52 cards"},
    }


def seat_row(lines: list[str], label: str) -> list[str]:
    row = next(line for line in lines if line.startswith(label))
    return row.removeprefix(label).split()


def test_the_sensor_row_cuts_no_word_at_80x24():
    """Issue 17's tour: ``stake placed`` showed as ``stake pla``; each state now fits its
    column whole (``stake placed`` deliberately as ``placed``), at 80x24 as at any width."""
    snap = Snapshot(table_status())
    for lines, width in ((render(snap), 80), (render(snap, width=79, height=24), 79)):
        assert all(len(line) <= width for line in lines)
        assert seat_row(lines, "sensor") == [
            "awaiting",
            "placed",
            "placed",
            "awaiting",
            "awaiting",
            "awaiting",
        ]
        assert seat_row(lines, "seat") == ["1", "2", "3", "4", "5", "6"]


def test_an_excluded_seat_says_why():
    """The seat's column gives the reason in one word, a line below the seats in the daemon's
    words with what clears it (issue 17: only ``excluded`` was shown)."""
    stuck = "seat 4: STUCK sensor (stake held across 1 round(s)) -> excluded"
    lines = render(Snapshot(table_status(seat4=stuck, seat5=stuck, seat6="chatter")))
    assert seat_row(lines, "sensor")[3:] == ["STUCK", "STUCK", "CHATTER"]
    text = "\n".join(lines)
    assert "seats 4, 5 excluded: STUCK sensor (stake held across 1 round(s)); x clears" in text
    assert "seat 6 excluded: chatter; x clears" in text
    assert all(len(line) <= 80 for line in lines)
    short = render(Snapshot(table_status(seat4=stuck), messages=["a"] * 4), width=79, height=24)
    assert any(line.startswith("seat 4 excluded: STUCK sensor") for line in short)


def test_below_80x24_the_view_says_what_size_it_needs():
    """Issue 17's tour: at 60x15 seats 5 and 6 were cut off without a word."""
    snap = Snapshot(table_status())
    for width, height in ((60, 15), (79, 24), (80, 23), (20, 4)):
        lines = for_terminal(snap, width=width, height=height)
        text = " ".join(lines)
        assert len(lines) <= height and all(len(line) < width for line in lines)
        assert "too small" in text and "80x24" in text, (width, height, lines)
        assert not any(line.startswith("seat") for line in lines)
    assert "60x15" in " ".join(for_terminal(snap, width=60, height=15))
    assert too_small(80, 24) is None and too_small(120, 50) is None
    assert seat_row(for_terminal(snap, width=80, height=24), "seat")[-1] == "6"

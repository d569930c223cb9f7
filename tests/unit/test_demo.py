"""``make demo``: the simulated table with its live view, headless and in a terminal (a real
daemon each time), and the view itself."""

from __future__ import annotations

import os
import pty
import re
import select
import signal
import subprocess
import sys
import time
from pathlib import Path

from daemon_harness import processes_with

from controller.books.ledger.reader import LedgerReader
from controller.engine.cards import parse_cards
from controller.rig.dealer import simple_decision
from controller.rig.view import Snapshot, render, wrapped
from display.geometry import Matrix

DEMO = [sys.executable, "-m", "controller.rig.demo"]


def test_headless_demo_plays_rounds_and_keeps_the_ledger(tmp_path):
    state = tmp_path / "sim" / "state"
    for run in (1, 2):
        done = subprocess.run([*DEMO, "--rounds", "2", "--state-dir", str(state)],
                              stdin=subprocess.DEVNULL, capture_output=True, text=True,
                              timeout=120)  # fmt: skip
        assert done.returncode == 0, done.stdout + done.stderr
        assert "played 2 round(s)" in done.stdout
        assert f"SIM-1-00000{2 * run}" in done.stdout  # the second run goes on from the first
        assert "the sign reads: €" in done.stdout
    with LedgerReader.open(state / "ledger.sqlite3") as ledger:
        assert sum(ledger.round_counts().values()) == 4
    assert (tmp_path / "sim" / "croupierd.log").exists()


def screen(output: bytes) -> str:
    last = output.decode(errors="replace").rsplit("\x1b[H", 1)[-1]
    return re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", last)


def wait_exit(pid: int, timeout: float) -> int:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            return status
        time.sleep(0.05)
    raise AssertionError(f"the demo did not exit within {timeout:g} s of Ctrl-C")


def test_terminal_demo_takes_keys_and_stops_cleanly_on_ctrl_c(tmp_path):
    state = tmp_path / "state"
    pid, fd = pty.fork()
    if pid == 0:  # the child: the demo on a terminal
        os.execv(sys.executable, [*DEMO, "--state-dir", str(state)])
    output, status = b"", None

    def read_until(text: str, times: int = 1, timeout: float = 30.0) -> str:
        nonlocal output
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            if select.select([fd], [], [], 0.1)[0]:
                try:
                    output += os.read(fd, 65536)
                except OSError:
                    break
            if screen(output).count(text) >= times:
                return screen(output)
        raise AssertionError(f"{text!r} never shown {times} time(s):\n{screen(output)}")

    try:
        read_until("OPEN")
        for key in "25":
            os.write(fd, key.encode())
            read_until(f"stake placed on seat {key}")
        read_until("stake pla", times=2)  # both sensors settled, as a dealer would see
        os.write(fd, b"l")
        read_until("VERIFIED")
        read_until("status lamps: green on")  # the green lamp's pin, as the rig reads it
        os.write(fd, b"c")
        read_until("last round SIM-1-000001: settled")
        os.write(fd, b"\x03")  # Ctrl-C
        read_until("stopping the table")
        status = wait_exit(pid, timeout=30.0)
    finally:
        if status is None:  # a failed check: stop the demo as Ctrl-C would
            os.kill(pid, signal.SIGINT)
            os.waitpid(pid, 0)
        os.close(fd)
    assert os.waitstatus_to_exitcode(status) == 0
    assert not processes_with(str(state)), "the demo left its daemon running"
    with LedgerReader.open(state / "ledger.sqlite3") as ledger:
        assert ledger.round_counts() == {"settled": 1}


def test_the_view_fits_80_columns_and_shows_the_table():
    status = {
        "state": "void", "table": "SIM-1", "profile": "uth-gr", "round": "SIM-1-000007",
        "pools": {"progressive": 500_045}, "conditions": {"deck": "deck out of play"},
        "verdict": {"status": "misdeal", "rule": "MD-S1", "reason": "seat:2 received 3"},
        "seats": {str(s): {"stake": s == 2, "excluded": None} for s in range(1, 7)},
        "sensors": {str(s): "locked" if s == 2 else "awaiting" for s in range(1, 7)},
        "shuffler": {"link": "up", "deck": "52 of 52 cards"},
    }  # fmt: skip
    last = {"round_id": "SIM-1-000007", "state": "voided", "rule": "MD-S1",
            "cause": "seat:2 received 3 card(s)", "paid": {"2": {"progressive": 100}},
            "paid_total": 100}  # fmt: skip
    frame = Matrix(64).static("€5,000.45", "right")
    lines = render(Snapshot(status, frame, "€5,000.45", {"seat2": "on", "red": "blink"}, last))
    text = "\n".join(lines)
    assert all(len(line) <= 80 for line in lines)
    assert "VOID" in lines[0] and "SIM-1-000007" in lines[0]
    assert "verdict: misdeal MD-S1" in text and "CLOSED by deck" in text
    assert "stakes returned: seat 2 EUR 1.00" in text
    assert "the sign reads: €5,000.45" in text and text.count("#") > 40  # the LEDs


def test_long_lines_wrap_at_commas():
    lines = wrapped("  seat 1 pair:", [f"wager{n} 1,000.00 (UTH-{n})" for n in range(8)])
    assert len(lines) > 1 and all(len(line) <= 80 for line in lines)
    assert lines[1].startswith("    wager")


def test_simple_decision_is_legal_uth4():
    assert simple_decision(parse_cards("As 2d"), parse_cards("3c 7d 9h Js Qs")) == "4x"
    assert simple_decision(parse_cards("8s 2d"), parse_cards("3c 7d 9h Js Qs")) == "fold"
    assert simple_decision(parse_cards("8s 2d"), parse_cards("8c 7d 9h Js Qs")) == "2x"


def test_makefile_demo_runs_the_simulated_table():
    makefile = (Path(__file__).resolve().parents[2] / "Makefile").read_text()
    assert "-m controller.rig.demo" in makefile

"""``croupier par`` shows a progress bar on a terminal (stderr) and none with ``--json``, when
stderr is not a terminal, or when stdout is not (``par ... > sheet.txt``, ``| less``); the sheet
printed is the same either way."""

from __future__ import annotations

import io
import json

import pytest

from controller.cli import progress
from controller.cli.main import main


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def run_par(
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    *argv: str,
    tty: bool,
    stdout_tty: bool = True,
) -> tuple[str, str]:
    err = Terminal() if tty else io.StringIO()
    out = Terminal() if stdout_tty else io.StringIO()
    monkeypatch.setattr(progress.sys, "stderr", err)
    monkeypatch.setattr(progress.sys, "stdout", out)
    assert main(["par", "--profile", "ch-bg", *argv]) == 0
    return out.getvalue(), err.getvalue()


def test_a_terminal_gets_a_bar(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]):
    out, err = run_par(monkeypatch, capsys, tty=True)
    assert "PAR ch-bg" in err and "100%" in err
    assert out.startswith("PAR sheet of profile ch-bg")


def test_no_bar_off_a_terminal_or_with_json(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    out, err = run_par(monkeypatch, capsys, tty=False)
    assert err == "" and out.startswith("PAR sheet")
    out, err = run_par(monkeypatch, capsys, "--json", tty=True)
    assert err == ""
    assert json.loads(out)["profile"] == "ch-bg"


def test_no_bar_when_the_sheet_goes_to_a_file_or_a_pager(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    out, err = run_par(monkeypatch, capsys, tty=True, stdout_tty=False)
    assert err == "" and out.startswith("PAR sheet")


def test_a_short_bar_counts_plainly_and_gives_the_rate_per_second(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """15 rounds: "1/15" and "N rounds/s", not "1.00/15.0" and "1.49s/ rounds"."""
    import argparse
    import time

    err = Terminal()
    monkeypatch.setattr(progress.sys, "stderr", err)
    monkeypatch.setattr(progress.sys, "stdout", Terminal())
    with progress.progress_bar(
        argparse.Namespace(json=False), total=15, unit="rounds", what="soak"
    ) as step:
        assert step is not None
        time.sleep(0.2)  # a rate under ten a second
        step(1)
    shown = err.getvalue()
    assert "1/15" in shown and " rounds/s]" in shown and "s/ rounds" not in shown, shown

"""``croupier par`` shows a progress bar on a terminal (stderr) and none with ``--json`` or
when stderr is not a terminal; the sheet printed is the same either way."""

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
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], *argv: str, tty: bool
) -> tuple[str, str]:
    err = Terminal() if tty else io.StringIO()
    monkeypatch.setattr(progress.sys, "stderr", err)
    assert main(["par", "--profile", "ch-bg", *argv]) == 0
    return capsys.readouterr().out, err.getvalue()


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

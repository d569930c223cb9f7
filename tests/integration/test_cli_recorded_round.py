"""``croupier round show|settle`` against a real daemon, as surveillance and a dispute use
them: a played round is shown with its cards and settled again by the engine, its amounts as
money; with no round recorded the answer is one line. (``round settle`` failed on every round
with a KeyError before: its reply carries the profile inside the result.)"""

from __future__ import annotations

import pytest

from controller.cli.main import main

pytestmark = pytest.mark.integration

CREDENTIAL = "1234"  # config/sim.toml's technician credential (sim only)


def croupier(table, capsys, *argv: str) -> tuple[int, str, str]:
    status = main(["--socket", str(table.control_socket), *argv])
    out, err = capsys.readouterr()
    return status, out, err


def test_a_played_round_is_shown_and_settled_again(make_sim_table, capsys, monkeypatch):
    monkeypatch.setenv("CROUPIER_CREDENTIAL", CREDENTIAL)
    table = make_sim_table()
    table.call("round.stake", seat=1, stakes={"ante": 1000, "blind": 1000}, decision="4x")
    table.call("round.lock")
    table.wait_for_state("verified")
    table.call("round.confirm")
    table.wait_for_state("settled")

    status, out, err = croupier(table, capsys, "round", "show", "last")
    assert (status, err) == (0, ""), err
    assert out.startswith("round ") and "stake  " in out and "EUR " in out

    status, out, err = croupier(table, capsys, "round", "settle", "last")
    assert (status, err) == (0, ""), err
    assert "the engine's settlement matches the table's" in out
    assert "seat 1:" in out and "EUR " in out


def test_no_recorded_round_is_one_line(make_sim_table, capsys, monkeypatch):
    monkeypatch.setenv("CROUPIER_CREDENTIAL", CREDENTIAL)
    table = make_sim_table()
    for action in ("show", "settle"):
        status, out, err = croupier(table, capsys, "round", action, "last")
        assert status == 1 and out == "" and err.count("\n") == 1, err
        assert "Traceback" not in err and "internal error" not in err, err

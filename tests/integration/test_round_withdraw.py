"""``croupier round withdraw SEAT`` against a real daemon, and the rig's robot dealer taking
back the tablet stakes of a round cut short before LOCK (``make demo``'s autoplay stopped
between its entries and LOCK left them for the next round)."""

from __future__ import annotations

import pytest

from controller.cli.main import main
from controller.rig.dealer import Dealer

pytestmark = pytest.mark.integration


def run(table, capsys, *argv: str) -> tuple[int, str, str]:
    status = main(["--socket", str(table.control_socket), *argv])
    out, err = capsys.readouterr()
    return status, out, err


def test_an_entry_is_withdrawn_and_a_seat_with_none_is_refused(make_sim_table, capsys):
    table = make_sim_table()
    assert run(table, capsys, "round", "stake", "2", "ante=1000", "blind=1000")[0] == 0
    status, out, _ = run(table, capsys, "round", "withdraw", "2")
    assert (status, out) == (0, "seat 2: withdrawn; the seat's stakes now: none\n")
    status, _, err = run(table, capsys, "round", "withdraw", "2")
    assert status == 1 and err.count("\n") == 1 and "seat 2 has no stakes entered" in err
    assert run(table, capsys, "round", "withdraw", "99")[0] == 2  # no such seat here: usage

    dealer = Dealer(table, tablet=True)
    dealer.enter(3, {"ante": 500, "blind": 500})
    dealer.lift()  # a robot dealer stopped before LOCK
    assert dealer.entered == set()
    assert table.journal("wagers-withdrawn") == [{"seat": 2}, {"seat": 3}]

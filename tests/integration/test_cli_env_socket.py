"""$CROUPIER_SOCKET names the daemon for every command that can ask one, as ``--socket``
does: the ledger readers find the ledger of that daemon (they looked at the default path,
/var/lib/croupier, and said there was no ledger there)."""

from __future__ import annotations

import pytest

from controller.cli.main import main

pytestmark = pytest.mark.integration

COMMANDS = [
    ["meters"],
    ["meters", "hits"],
    ["meters", "verify"],
    ["events", "tail"],
    ["events", "verify"],
    ["selfcheck", "status"],
    ["verify-software", "--history"],
    ["report", "day", "--json"],
]


def test_the_environments_socket_is_the_daemon_for_every_ledger_reader(
    make_sim_table, capsys, monkeypatch
):
    table = make_sim_table()
    monkeypatch.setenv("CROUPIER_SOCKET", str(table.control_socket))
    failed = {}
    for argv in COMMANDS:
        status = main(argv)
        _, err = capsys.readouterr()
        if status != 0:
            failed[" ".join(argv)] = err
    assert failed == {}


def test_a_filter_that_matches_nothing_says_so(make_sim_table, capsys, monkeypatch):
    """A mistyped kind or pool is seen: an empty answer names the filter."""
    table = make_sim_table()
    monkeypatch.setenv("CROUPIER_SOCKET", str(table.control_socket))
    assert main(["events", "tail", "--kind", "round.setled"]) == 0
    assert capsys.readouterr().out == "-- no entries of kind round.setled --\n"
    db = ["--db", str(table.ledger_path)]
    assert main(["events", "tail", "--kind", "round.setled", *db]) == 0
    assert capsys.readouterr().out == "-- no entries of kind round.setled --\n"
    # the daemon knows the table's pools: a mistyped one is refused with them (status 2)
    assert main(["meters", "hits", "--pool", "progresive"]) == 2
    assert "no pool 'progresive' at this table (its pools: main)" in capsys.readouterr().err
    assert main(["meters", "hits", "--pool", "progresive", *db]) == 0  # the file: no list
    assert "no hits of pool progresive" in capsys.readouterr().out

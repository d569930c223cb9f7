"""The CLI against a real daemon: a value the daemon refuses as malformed (a seat the table
cannot have, a decision the game does not know, a misdeal rule that does not exist, a stake
beyond what the socket carries) is a usage error, exit status 2 in one line, as argparse's own
refusals (a wager the game does not have too: 'ant', did you mean ante?); a request the
table's rules or state refuse stays a failure, exit status 1. One
table serves each list (a daemon start is seconds)."""

from __future__ import annotations

import pytest

from controller.cli.main import main

pytestmark = pytest.mark.integration

MALFORMED = [
    ("round", "stake", "99", "ante=1000", "blind=1000"),
    ("round", "stake", "1", "ante=99999999999999999999999", "blind=1000"),
    ("round", "decide", "1", "4X"),
    ("round", "misdeal", "MD-ZZ", "a reason"),
    ("round", "cards", "comunity", "As"),
    ("round", "stake", "1", "ant=1000", "blind=1000"),  # UTH-2: the game has no such wager
]
REFUSED = [
    ("round", "expose"),  # no round in play
    ("round", "expose", "--community", "4"),  # MD-X2: no round in play either
    ("round", "lock"),  # no seat in play
    ("round", "confirm"),  # nothing to confirm on an open table
]


def statuses(make_sim_table, capsys, commands: list[tuple[str, ...]]) -> dict[str, int]:
    table = make_sim_table()
    found = {}
    for argv in commands:
        status = main(["--socket", str(table.control_socket), *argv])
        _, err = capsys.readouterr()
        assert "Traceback" not in err and err.count("\n") == 1, (argv, err)
        found[" ".join(argv)] = status
    return found


def test_a_value_the_daemon_refuses_as_malformed_is_a_usage_error(make_sim_table, capsys):
    found = statuses(make_sim_table, capsys, MALFORMED)
    assert found == {" ".join(argv): 2 for argv in MALFORMED}


def test_a_request_the_table_refuses_is_a_failure(make_sim_table, capsys):
    """The command line is right; the table's rules or state say no."""
    found = statuses(make_sim_table, capsys, REFUSED)
    assert found == {" ".join(argv): 1 for argv in REFUSED}

"""``croupier meters`` and ``events tail`` without ``--db``: the daemon named is asked (its
errors are the command's); the one on the default socket only if it answers, else the file."""

from __future__ import annotations

import socket

import pytest

import controller.cli.ledger_args as ledger_args
from controller.cli.main import main


@pytest.fixture
def stale_default_socket(tmp_path, monkeypatch):
    """The default socket left by a daemon killed with kill -9: nobody listens."""
    path = tmp_path / "control.sock"
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.bind(str(path))
    sock.close()
    monkeypatch.setattr(ledger_args, "DEFAULT_SOCKET", str(path))
    monkeypatch.setattr(ledger_args, "DEFAULT_PATH", str(tmp_path / "ledger.sqlite3"))
    monkeypatch.delenv("CROUPIER_SOCKET", raising=False)
    return path


@pytest.mark.parametrize("argv", [["meters"], ["events", "tail"]], ids=" ".join)
def test_a_stale_default_socket_leaves_the_file_to_read(stale_default_socket, argv, capsys):
    assert main(argv) == 1  # no ledger at the default path (this test's): the file's error
    err = capsys.readouterr().err
    assert "the daemon did not answer" in err and "reading the file" in err
    assert "no ledger at" in err.splitlines()[-1]


@pytest.mark.parametrize("argv", [["meters"], ["events", "tail"]], ids=" ".join)
def test_a_named_socket_that_does_not_answer_is_the_error(stale_default_socket, argv, capsys):
    assert main(["--socket", str(stale_default_socket), *argv]) == 1
    err = capsys.readouterr().err
    assert "reading the file" not in err and "cannot connect" in err


def test_shuffler_reset_asks_the_daemon_croupier_socket_names(tmp_path, monkeypatch, capsys):
    """$CROUPIER_SOCKET names the daemon as --socket does: the reset goes through it (it
    opened /dev/shuffler, which the daemon holds)."""
    monkeypatch.setenv("CROUPIER_SOCKET", str(tmp_path / "none.sock"))
    monkeypatch.setenv("CROUPIER_CREDENTIAL", "1234")
    assert main(["shuffler", "reset", "--technician", "T1"]) == 1
    err = capsys.readouterr().err
    assert "no daemon socket at" in err and "none.sock" in err


@pytest.mark.parametrize("action", [["info"], ["status"], ["deal", "2"]], ids=" ".join)
def test_socket_before_a_shuffler_action_on_the_port_is_refused(action, capsys):
    """`croupier --socket S shuffler info` talked to /dev/shuffler, the --socket ignored:
    the action does not take --socket (controller.cli.main, a global option not offered)."""
    with pytest.raises(SystemExit) as done:
        main(["--socket", "/nonexistent/s.sock", "shuffler", *action])
    err = capsys.readouterr().err
    assert done.value.code == 2 and err.count("\n") == 1
    assert f"croupier shuffler {action[0]}: --socket is not an option" in err

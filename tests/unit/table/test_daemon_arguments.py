"""croupierd's command line, read with the CLI's parser (controller.arguments): a bad state or
runtime directory is a usage error naming its option (exit status 2), not "cannot run the
table: [Errno 17]"; a typo gets a suggestion; ``-V`` and the help's defaults and examples as
``croupier``'s. Nothing here starts a table: every refusal comes before the ledger opens."""

from __future__ import annotations

import os
import signal
from pathlib import Path

import pytest

from controller.files import FileRefused, check_directory
from controller.table import daemon
from controller.table.journald import NOTICE, priority

SIM = str(Path(__file__).resolve().parents[3] / "config" / "sim.toml")


def run(capsys, *argv: str) -> tuple[int, str, str]:
    try:
        status = daemon.main(list(argv))
    except SystemExit as exc:  # argparse: --help, --version, a usage error
        status = int(exc.code or 0)
    out, err = capsys.readouterr()
    return status, out, err


@pytest.mark.parametrize("option", ["--state-dir", "--runtime-dir"])
@pytest.mark.parametrize(
    ("where", "why"),
    [
        ("/etc/passwd", "/etc/passwd is a regular file, not a directory"),
        ("/etc/passwd/below", "/etc/passwd is a regular file, not a directory"),
        ("", "an empty path: name a directory"),
    ],
    ids=["a-file", "below-a-file", "empty"],
)
def test_a_directory_that_is_a_file_is_a_usage_error_naming_the_option(
    capsys, tmp_path, option, where, why
):
    others = {"--state-dir": str(tmp_path / "s"), "--runtime-dir": str(tmp_path / "r")}
    others[option] = where
    argv = ["--config", SIM, *(w for pair in others.items() for w in pair)]
    status, out, err = run(capsys, *argv)
    assert status == 2, err
    assert err.count("\n") == 1, err  # one line
    assert f"croupierd: argument {option}: " in err and why in err, err
    assert "Errno" not in err and "cannot run the table" not in err


def test_a_directory_that_cannot_be_made_is_a_usage_error_naming_the_option(capsys, tmp_path):
    status, _, err = run(
        capsys, "--config", SIM, "--state-dir", "/proc/x", "--runtime-dir", str(tmp_path / "r")
    )
    assert status == 2, err
    assert err == (
        "croupierd: --state-dir /proc/x: cannot make it: No such file or directory"
        " (see croupierd --help)\n"
    )


def test_a_directory_this_user_cannot_write_is_refused_with_the_reason(monkeypatch, tmp_path):
    """As a user, not root (root may write anywhere: os.access stands in for the user)."""
    monkeypatch.setattr(os, "access", lambda path, mode: False)
    with pytest.raises(FileRefused, match=rf"{tmp_path}: permission denied .*cannot write in it"):
        check_directory(tmp_path)
    with pytest.raises(FileRefused, match=rf"permission denied .*cannot make it in {tmp_path}\)$"):
        check_directory(tmp_path / "new" / "state")


def test_a_mistyped_option_gets_the_clis_suggestion(capsys):
    status, _, err = run(capsys, "--confg", "x")
    assert status == 2
    assert err == (
        "croupierd: unrecognized option '--confg'; did you mean --config? (see croupierd --help)\n"
    )


@pytest.mark.parametrize("flag", ["-V", "--version"])
def test_version_as_croupiers(capsys, flag):
    from controller import __version__

    assert run(capsys, flag) == (0, f"croupierd {__version__}\n", "")


def test_help_names_the_defaults_and_shows_examples(capsys):
    status, out, _ = run(capsys, "--help")
    assert status == 0
    flat = " ".join(out.split())
    assert "(default /etc/croupier/table.toml)" in flat
    assert "(default /var/lib/croupier)" in flat
    assert "(default /run/croupier)" in flat
    assert "examples:" in out and "croupierd --config config/sim.toml" in out
    assert "exit status:" in out


def test_a_stop_signal_is_logged_by_name_at_notice(caplog):
    """journalctl says why the daemon stopped (systemd's SIGTERM, a closed session's SIGHUP);
    a second signal while stopping is not logged again."""
    import asyncio

    stop = asyncio.Event()
    with caplog.at_level(NOTICE, logger="croupierd"):
        daemon.stop_on(signal.SIGHUP, stop)
        daemon.stop_on(signal.SIGTERM, stop)
    assert stop.is_set()
    assert [(r.levelno, r.getMessage()) for r in caplog.records] == [(NOTICE, "stopping on SIGHUP")]
    assert priority(NOTICE) == 5  # syslog's notice: journalctl -p notice shows it

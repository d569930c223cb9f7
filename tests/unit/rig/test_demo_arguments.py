"""``make demo ARGS=...``: every bad value is one line naming its option, exit status 2,
before any table starts (a Traceback of ``mkdir`` once); ``--rounds 0`` is refused, not 5
rounds; ``--fresh`` removes only a state directory that is the demo's."""

from __future__ import annotations

from pathlib import Path

import pytest

from controller.rig import demo
from controller.rig.table import REPO_CONFIG

HELP = "(see make demo ARGS=--help)\n"


def run(capsys, *argv: str) -> tuple[int, str, str]:
    try:
        status = demo.main(list(argv))
    except SystemExit as exc:  # argparse: a usage error
        status = int(exc.code or 0)
    out, err = capsys.readouterr()
    return status, out, err


@pytest.mark.parametrize(
    ("argv", "said"),
    [
        (["--state-dir", "/proc/x"], "--state-dir /proc/x: cannot make it: No such file or"),
        (["--state-dir", "/etc/passwd"], "argument --state-dir: /etc/passwd is a regular file"),
        (["--state-dir", "/etc/passwd/x"], "argument --state-dir: /etc/passwd/x: /etc/passwd"),
        (["--state-dir", ""], "argument --state-dir: an empty path"),
        (["--config", "/nonexistent.toml"], "argument --config: /nonexistent.toml: no such file"),
        (["--config", "/etc"], "argument --config: /etc is a directory"),
        (["--rounds", "0"], "argument --rounds: '0' is not a number of rounds (1 or more)"),
        (["--rounds", "-3"], "argument --rounds: '-3' is not a number of rounds"),
        (["--confg", "x"], "unrecognized option '--confg'; did you mean --config?"),
    ],
    ids=lambda v: " ".join(v) if isinstance(v, list) else None,
)
def test_a_bad_value_is_one_line_naming_the_option(capsys, argv, said):
    status, out, err = run(capsys, *argv)
    assert status == 2, err
    assert err.startswith(f"make demo: {said}"), err
    assert err.endswith(HELP) and err.count("\n") == 1, err
    assert out == ""


def test_fresh_removes_only_a_state_directory_holding_a_ledger(capsys, tmp_path):
    """``--state-dir ~ --fresh`` removed a home directory: rmtree, errors ignored."""
    kept = tmp_path / "notes.txt"
    kept.write_text("mine")
    status, _, err = run(capsys, "--state-dir", str(tmp_path), "--fresh")
    assert status == 2
    assert (
        err == f"make demo: --fresh: {tmp_path} holds no ledger: not the demo's; not removed {HELP}"
    )
    assert kept.read_text() == "mine"
    assert demo.make_state_dir(tmp_path / "new", fresh=True) is None  # nothing there yet
    state = tmp_path / "state"
    state.mkdir()
    (state / "ledger.sqlite3").write_bytes(b"")
    (state / "croupierd.log").write_text("old")
    assert demo.make_state_dir(state, fresh=True) is None
    assert state.is_dir() and not any(state.iterdir())


def test_a_refused_configuration_is_named_as_the_file_given(capsys, tmp_path):
    uth = Path(REPO_CONFIG).parent / "uth-gr.toml"
    status, _, err = run(capsys, "--config", str(uth), "--state-dir", str(tmp_path / "s"))
    assert status == 1
    assert f"\n{uth}: shuffler.firmware_allow[0]: " in err, err
    assert "croupier-rig-" not in err

"""The technician CLI on a ledger file: meters, hits, events, self-check, corrections."""

import json
import subprocess
import sys
from pathlib import Path

import pytest
from ledger_fixtures import FakeWall, jumbo_pool, uth_pool

from controller.books.ledger.keys import create_keyring, load_keyring
from controller.books.ledger.reader import LedgerReader
from controller.books.ledger.store import Ledger
from controller.books.ledger.verify import verify_ledger
from controller.cli.main import main


@pytest.fixture
def db(db_path):
    with Ledger.open(db_path, now=0.0, wall_clock=FakeWall()) as ledger:
        ledger.configure_pool(uth_pool(), 0.0)
        ledger.open_round("r1", {1: {"progressive": 100}, 2: {"progressive": 100}}, 1.0)
        ledger.settle_round("r1", 2.0, hits={"uth": {2: "full-house"}}, hands={2: "Qs Qd Qh 9c 9d"})
        ledger.open_round("r2", {1: {"progressive": 100}}, 3.0)
    return str(db_path)


def run_json(capsys, *argv):
    assert main([*argv, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_meters_json_and_human(db, capsys):
    data = run_json(capsys, "meters", "--db", db)
    (pool,) = data["pools"]
    assert pool["meters"]["current"] == 500_045 and pool["meters"]["won_fixed"] == 1000
    assert data["rounds"] == {"open": 1, "settled": 1}
    assert data["selfcheck"]["table_may_open"] is True
    assert (data["currency"], data["minor_units"]) == ("EUR", 2)  # the integers stay minor units
    assert main(["meters", "--db", db]) == 0
    out = capsys.readouterr().out
    assert "amount displayed" in out and "EUR 5,000.45" in out and "self-check: OK" in out
    assert "500,045" not in out
    assert main(["meters", "hits", "--db", db]) == 0
    assert "EUR 10.00" in capsys.readouterr().out


def test_db_given_before_the_action_is_kept(db, capsys):
    assert run_json(capsys, "meters", "--db", db, "verify")["ok"] is True


def test_hits_and_events(db, capsys):
    (hit,) = run_json(capsys, "meters", "hits", "--db", db)
    assert (hit["seat"], hit["line"], hit["amount"], hit["hand"]) == (
        2,
        "full-house",
        1000,
        "Qs Qd Qh 9c 9d",
    )
    entries = run_json(capsys, "events", "tail", "--db", db, "-n", "2")
    assert [e["kind"] for e in entries] == ["round.settled", "round.opened"]
    only = run_json(capsys, "events", "tail", "--db", db, "--kind", "pool.created")
    assert [e["seq"] for e in only] == [2]
    verdict = run_json(capsys, "events", "verify", "--db", db)
    assert verdict == {"ok": True, "entries": 5, "first_bad": None, "problems": []}


def test_events_tail_suggests_the_kind_meant(db, capsys):
    """`events tail --kind round.setled` said "no entries" and nothing else, exit 0."""
    assert main(["events", "tail", "--db", db, "--kind", "round.setled"]) == 0
    out, err = capsys.readouterr()
    assert out == "-- no entries of kind round.setled --\n"
    assert err == (
        "croupier events tail: 'round.setled' is not a kind the table journals;"
        " did you mean round.settled?\n"
    )
    assert main(["events", "tail", "--db", db, "--kind", "pool.created"]) == 0
    assert capsys.readouterr().err == ""


def test_verify_reports_the_counts(db, capsys):
    data = run_json(capsys, "meters", "verify", "--db", db)
    assert data["ok"] and data["entries"] == 5 and data["pools"] == {"uth": 500_045}


def test_correction_and_rebuild_take_the_writer_lock(db, capsys):
    argv = [
        "meters",
        "correct",
        "uth",
        "reserve",
        "250",
        "--db",
        db,
        "--technician",
        "T-4",
        "--reason",
        "opening float",
    ]
    assert main(argv) == 1
    assert "round r2 is open on pool uth" in capsys.readouterr().err
    with Ledger.open(db, now=0.0) as ledger:
        ledger.recover(1.0)
    corrected = run_json(capsys, *argv)
    assert corrected["reserve"] == 250 and corrected["reserve_corrections"] == 250
    rebuilt = run_json(
        capsys, "meters", "rebuild", "--db", db, "--technician", "T-4", "--reason", "check"
    )
    assert rebuilt["uth"]["reserve"] == 250


def test_selfcheck_commands(db, capsys, tmp_path):
    manifest = tmp_path / "m.json"
    made = run_json(capsys, "selfcheck", "manifest", "--output", str(manifest))
    assert made["files"] > 10
    assert run_json(capsys, "selfcheck", "run", "--db", db, "--manifest", str(manifest))["ok"]
    full = run_json(capsys, "selfcheck", "run", "--db", db, "--no-software", "--full")
    assert full == {"ok": True, "failures": []}
    assert main(["selfcheck", "run", "--db", db, "--manifest", str(tmp_path / "none")]) == 1
    assert "FAIL [software]" in capsys.readouterr().out
    assert run_json(capsys, "selfcheck", "status", "--db", db)["state"] == "ok"
    cleared = run_json(
        capsys,
        "selfcheck",
        "clear",
        "--db",
        db,
        "--no-software",
        "--technician",
        "T-5",
        "--reason",
        "routine",
    )
    assert cleared["table_may_open"]


def test_errors_are_one_line_with_status_1(db, tmp_path, capsys):
    assert main(["meters", "--db", str(tmp_path / "none.sqlite3")]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "no ledger at" in err
    assert (
        main(
            [
                "meters",
                "correct",
                "nope",
                "current",
                "1",
                "--db",
                db,
                "--technician",
                "T",
                "--reason",
                "r",
            ]
        )
        == 1
    )
    assert "no pool 'nope'" in capsys.readouterr().err


def test_a_writer_command_is_refused_while_the_daemon_holds_the_ledger(db):
    with Ledger.open(db, now=0.0):
        result = subprocess.run(
            [
                sys.executable,
                "-m",
                "controller.cli.main",
                "meters",
                "rebuild",
                "--db",
                db,
                "--technician",
                "T",
                "--reason",
                "r",
            ],
            capture_output=True,
            text=True,
        )
        assert result.returncode == 1
        assert "open for writing by another process" in result.stderr
        assert result.stderr.count("\n") == 1
        reading = subprocess.run(
            [sys.executable, "-m", "controller.cli.main", "meters", "verify", "--db", db],
            capture_output=True,
            text=True,
        )
        assert reading.returncode == 0, reading.stderr


def test_events_tail_follows_the_journal(db):
    """``events tail -f`` prints the entries the writer commits after it started (JSON lines
    with --json), like ``tail -f`` on a log."""
    follow = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "controller.cli.main",
            "events",
            "tail",
            "-n",
            "1",
            "-f",
            "--interval",
            "0.05",
            "--json",
            "--db",
            db,
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        first = json.loads(follow.stdout.readline())
        assert first["kind"] == "round.opened"  # the last entry of the fixture
        with Ledger.open(db, now=0.0, wall_clock=FakeWall()) as ledger:
            ledger.void_round("r2", 4.0, rule="MD-S1", cause="wrong count")
        new = json.loads(follow.stdout.readline())
        assert new["seq"] == first["seq"] + 1 and new["kind"].startswith("round.void")
    finally:
        follow.send_signal(2)  # Ctrl-C ends it quietly
        _, err = follow.communicate(timeout=30)
    assert follow.returncode == 130 and err == ""


def test_long_checks_show_progress_only_on_a_terminal(db):
    import fcntl
    import os
    import pty
    import struct
    import termios

    argv = [sys.executable, "-m", "controller.cli.main", "events", "verify", "--db", db]
    piped = subprocess.run(argv, capture_output=True, text=True, timeout=60)
    assert piped.returncode == 0 and piped.stderr == ""  # no bar into a pipe or a log
    pid, fd = pty.fork()
    if pid == 0:  # an 80x24 terminal (a fresh pty has 0 columns: no room for a bar)
        fcntl.ioctl(0, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 80, 0, 0))
        os.execv(sys.executable, argv)
    seen = b""
    while True:
        try:
            chunk = os.read(fd, 65536)
        except OSError:
            break
        if not chunk:
            break
        seen += chunk
    os.waitpid(pid, 0)
    os.close(fd)
    text = seen.decode(errors="replace")
    assert "journal" in text and "entries/s" in text and "verify: OK" in text


SIM = Path(__file__).resolve().parents[2] / "config" / "sim.toml"  # credential "1234"


@pytest.fixture
def keyed(tmp_path):
    """A keyed ledger with two pools, its keyring in a folder of its own (as on a table:
    /etc/croupier/ledger.key, not beside the ledger)."""
    (tmp_path / "state").mkdir()
    (tmp_path / "keys").mkdir()
    key = tmp_path / "keys" / "ledger.key"
    path = tmp_path / "state" / "ledger.sqlite3"
    with Ledger.open(path, now=0.0, wall_clock=FakeWall(), keyring=create_keyring(key)) as ledger:
        ledger.configure_pool(uth_pool(), 0.0)
        ledger.configure_pool(jumbo_pool(), 0.0)
    return path, key


def retire_argv(path) -> list[str]:
    return [
        *("meters", "retire", "uth", "--reason-code", "closure", "--db", str(path)),
        *("--config", str(SIM), "--technician", "T1", "--reason", "r", "--transfer-to", "j7"),
    ]


@pytest.mark.parametrize("given", ["--key", "env"])
def test_retire_opens_the_ledger_with_the_keyring_of_every_ledger_command(
    keyed, given, monkeypatch, capsys
):
    """`meters retire` opened the ledger with no keyring at all: a keyed ledger was 'sealed
    with ledger key ...: give its keyring', whatever --key or $CROUPIER_LEDGER_KEY said."""
    path, key = keyed
    monkeypatch.setenv("CROUPIER_CREDENTIAL", "1234")
    monkeypatch.delenv("CROUPIER_LEDGER_KEY", raising=False)
    argv = retire_argv(path)
    if given == "--key":
        argv += ["--key", str(key)]
    else:
        monkeypatch.setenv("CROUPIER_LEDGER_KEY", str(key))
    assert main(argv) == 0, capsys.readouterr().err
    assert "pool uth retired (closure): journaled" in capsys.readouterr().out
    with LedgerReader.open(path, load_keyring(key)) as reader:
        assert reader.journal.tail(1)[0].kind == "pool.retired"
        assert verify_ledger(reader).problems == []


def test_retire_finds_the_simulated_tables_keyring_beside_the_ledger(keyed, monkeypatch):
    path, key = keyed
    key.rename(path.parent / "ledger.key")
    monkeypatch.setenv("CROUPIER_CREDENTIAL", "1234")
    monkeypatch.delenv("CROUPIER_LEDGER_KEY", raising=False)
    assert main(retire_argv(path)) == 0


@pytest.mark.parametrize("given", ["--key", "env"])
def test_verify_software_records_in_a_keyed_ledger(keyed, given, monkeypatch, capsys):
    """`verify-software --db` opened the ledger without a keyring (and had no --key): a keyed
    ledger could not record the verification, nor show its history."""
    path, key = keyed
    monkeypatch.delenv("CROUPIER_LEDGER_KEY", raising=False)
    named = ["--key", str(key)] if given == "--key" else []
    if given == "env":
        monkeypatch.setenv("CROUPIER_LEDGER_KEY", str(key))
    argv = ["verify-software", "--seed", "0f1e2d3c", "--db", str(path), *named, "--json"]
    assert main(argv) == 0, capsys.readouterr().err
    assert json.loads(capsys.readouterr().out)["journal_entry"] > 0
    assert main(["verify-software", "--history", "--db", str(path), *named, "--json"]) == 0
    (kept,) = json.loads(capsys.readouterr().out)
    assert kept["seed"] == "0f1e2d3c"

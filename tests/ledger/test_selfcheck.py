"""The power-up self-check: software manifest, sealed rows, a failure that persists until a
technician clears it, meters readable throughout."""

import json
import marshal
import os
import py_compile
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from ledger_fixtures import FakeWall, uth_pool

from controller.books.ledger import selfcheck
from controller.books.ledger.errors import LedgerCorruptError, TableClosedError
from controller.books.ledger.reader import LedgerReader
from controller.books.ledger.store import Ledger
from controller.books.ledger.verify import verify_ledger

SIX = {seat: {"progressive": 100} for seat in range(1, 7)}


@pytest.fixture
def manifest(tmp_path):
    path = tmp_path / "share" / "manifest.json"
    selfcheck.make_manifest(path, "2026-11-01T00:00:00+00:00")
    return path


def reopen(db_path):
    return Ledger.open(db_path, now=0.0, wall_clock=FakeWall())


def tamper(db_path, script):
    conn = sqlite3.connect(db_path)
    conn.executescript(script)
    conn.close()


def test_the_manifest_covers_the_installed_packages_and_profiles(manifest):
    files = json.loads(manifest.read_text())["files"]
    assert "controller/books/ledger/selfcheck.py" in files
    assert "profiles/uth-gr.toml" in files
    assert selfcheck.check_software(manifest) == []


def bytecode_with(pyc: bytes, source: str) -> bytes:
    """``pyc`` (a cache of some source) with the code of ``source`` and its own header: the
    source's mtime and size, which is all Python checks before it runs the cached code."""
    return pyc[:16] + marshal.dumps(compile(source, "pay.py", "exec"))


def run_pay(root):
    code = "import pay; print(pay.ROYAL)"
    env = {"PYTHONPATH": str(root), "PATH": os.environ.get("PATH", "")}
    return subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)


def test_changed_bytecode_beside_an_untouched_source_is_caught(tmp_path, monkeypatch):
    """Python runs __pycache__/pay.*.pyc instead of pay.py when the cache's header names the
    source's mtime and size: a pay table changed there ran while every .py hashed as
    installed. Now every file of a package is in the manifest (an added one too: a sourceless
    .pyc, an extension module, which Python prefers to the .py of the same name)."""
    root = tmp_path / "site"
    package = root / "controller"
    package.mkdir(parents=True)
    source = root / "pay.py"  # a module Python finds on the path, as the packages are
    source.write_text("ROYAL = 50\n")
    pyc = Path(py_compile.compile(str(source), doraise=True))
    (package / "pay.py").write_text(source.read_text())
    (package / "__pycache__").mkdir()
    cached = package / "__pycache__" / pyc.name
    cached.write_bytes(pyc.read_bytes())
    monkeypatch.setattr(selfcheck, "software_roots", lambda: {"controller": package})
    made = tmp_path / "manifest.json"
    files = selfcheck.make_manifest(made, "2026-11-27T00:00:00Z")["files"]
    assert f"controller/__pycache__/{pyc.name}" in files
    assert selfcheck.check_software(made) == []

    forged = bytecode_with(pyc.read_bytes(), "ROYAL = 5000\n")
    pyc.write_bytes(forged)
    assert run_pay(root).stdout == "5000\n"  # the interpreter runs the forged bytecode
    cached.write_bytes(forged)
    (package / "paytable.cpython-311-x86_64-linux-gnu.so").write_bytes(b"\x7fELF")
    assert [f.text for f in selfcheck.check_software(made)] == [
        f"controller/__pycache__/{pyc.name} differs from the installed version",
        "controller/paytable.cpython-311-x86_64-linux-gnu.so was added after the manifest was made",
    ]


def test_changed_missing_and_added_files_are_named(manifest):
    data = json.loads(manifest.read_text())
    data["files"]["controller/engine/cards.py"] = "0" * 64
    del data["files"]["controller/errors.py"]
    data["files"]["controller/gone.py"] = "0" * 64
    manifest.write_text(json.dumps(data))
    texts = [f.text for f in selfcheck.check_software(manifest)]
    assert texts == [
        "controller/engine/cards.py differs from the installed version",
        "controller/errors.py was added after the manifest was made",
        "controller/gone.py is missing (it is in the manifest)",
    ]


def test_a_missing_manifest_fails_with_the_command_to_make_it(tmp_path):
    (failure,) = selfcheck.check_software(tmp_path / "none.json")
    assert "croupier selfcheck manifest" in failure.text


def test_a_sound_table_passes_and_the_pass_is_journaled(ledger, manifest):
    status = selfcheck.power_up(ledger, 1.0, manifest)
    assert status.table_may_open
    assert ledger.journal.tail(1)[0].kind == "selfcheck.passed"


def test_a_corrupted_pool_row_keeps_the_table_closed_until_cleared(db_path, manifest):
    with reopen(db_path) as ledger:
        ledger.configure_pool(uth_pool(), 0.0)
        ledger.open_round("r1", SIX, 1.0)
        ledger.settle_round("r1", 2.0, hits={"uth": {}})
    tamper(db_path, "UPDATE pools SET current = 9999999;")

    with reopen(db_path) as ledger:
        status = selfcheck.power_up(ledger, 1.0, manifest)
        assert not status.table_may_open
        assert "pools row uth does not match its checksum" in status.failures
        with pytest.raises(TableClosedError, match="self-check failed"):
            ledger.open_round("r2", SIX, 2.0)
        with LedgerReader.open(db_path) as reader:  # the meters stay readable
            assert reader.meters()[0]["meters"]["current"] == 9_999_999
            assert not reader.selfcheck_status().table_may_open

    with reopen(db_path) as ledger:  # the failure persists across restarts
        assert not ledger.selfcheck_status().table_may_open
        with pytest.raises(TableClosedError):
            ledger.recover(1.0)
        with pytest.raises(selfcheck.SelfCheckError, match="still fails"):
            selfcheck.clear(ledger, 2.0, technician="T-9", reason="x", manifest=manifest)
        rebuilt = ledger.rebuild_pools(3.0, technician="T-9", reason="row damaged")
        assert rebuilt["uth"].current == 500_090
        status = selfcheck.clear(
            ledger, 4.0, technician="T-9", reason="rebuilt from the journal", manifest=manifest
        )
        assert status.table_may_open
        kinds = [e.kind for e in ledger.journal.tail(3)]
        assert kinds == ["selfcheck.failed", "pools.rebuilt", "selfcheck.cleared"]
        cleared = ledger.journal.tail(1)[0]
        assert cleared.data["technician"] == "T-9"
        assert "pools row uth does not match its checksum" in cleared.data["failures"]
        ledger.open_round("r2", SIX, 5.0)
        assert verify_ledger(ledger).problems == []


def test_a_damaged_hit_row_can_be_accepted_as_it_is(db_path):
    with reopen(db_path) as ledger:
        ledger.configure_pool(uth_pool(), 0.0)
        ledger.open_round("r1", SIX, 1.0)
        ledger.settle_round("r1", 2.0, hits={"uth": {3: "full-house"}}, hands={3: "Ks Kd Kh 2c"})
    tamper(db_path, "UPDATE hits SET hand = 'Ks Kd Kh 2?' WHERE seat = 3;")
    with reopen(db_path) as ledger:
        assert not selfcheck.power_up(ledger, 1.0, None).table_may_open
        status = selfcheck.clear(
            ledger,
            2.0,
            technician="T-9",
            reason="hand text damaged, amount checked",
            manifest=None,
            accept_rows=True,
        )
        assert status.table_may_open
        accepted = ledger.journal.tail(1)[0].data["resealed"]
        assert accepted[0]["table"] == "hits" and accepted[0]["row"]["hand"] == "Ks Kd Kh 2?"
        assert selfcheck.power_up(ledger, 3.0, None).table_may_open


def test_a_failure_that_goes_away_still_needs_a_technician(ledger, tmp_path):
    missing = tmp_path / "manifest.json"
    assert not selfcheck.power_up(ledger, 1.0, missing).table_may_open
    selfcheck.make_manifest(missing, "now")
    assert not selfcheck.power_up(ledger, 2.0, missing).table_may_open
    assert selfcheck.clear(
        ledger, 3.0, technician="T-1", reason="manifest installed", manifest=missing
    ).table_may_open


def test_the_writer_catches_a_row_damaged_while_it_runs(ledger, db_path):
    tamper(db_path, "UPDATE pools SET stakes_in = 5;")
    with pytest.raises(LedgerCorruptError, match="pools row uth does not match its checksum"):
        ledger.open_round("r1", SIX, 1.0)
    assert not ledger.selfcheck_status().table_may_open  # recorded, journaled
    assert ledger.journal.tail(1)[0].kind == "selfcheck.failed"
    with pytest.raises(TableClosedError):
        ledger.open_round("r1", SIX, 2.0)
    ledger.rebuild_pools(3.0, technician="T-2", reason="stakes meter damaged")
    selfcheck.clear(ledger, 4.0, technician="T-2", reason="rebuilt", manifest=None)


def test_the_quick_check_sees_a_broken_journal_tail(ledger, db_path):
    tamper(
        db_path,
        "DROP TRIGGER journal_no_update; UPDATE journal SET kind = 'x' "
        "WHERE seq = (SELECT max(seq) FROM journal);",
    )
    texts = [f.text for f in selfcheck.run_checks(ledger, None)]
    assert texts[0] == "journal entry 2 was altered"
    assert "the safeguard trigger journal_no_update is missing" in texts
    # the fixture's final verify would fail on purpose: put the journal back
    tamper(db_path, "UPDATE journal SET kind = 'pool.created' WHERE seq = 2;")
    tamper(
        db_path,
        "CREATE TRIGGER journal_no_update BEFORE UPDATE ON journal "
        "BEGIN SELECT RAISE(ABORT, 'the journal is append-only'); END;",
    )


def test_a_module_first_imported_after_the_manifest_adds_no_file(tmp_path, monkeypatch):
    """Every file of a package is in the manifest, bytecode too; a module whose .pyc Python
    wrote when it was first imported, after the manifest was made, was an added file and
    failed the power-up check (a development or rig tree, with bytecode writing on)."""
    package = tmp_path / "controller"
    package.mkdir()
    (package / "late.py").write_text("LATE = 1\n")
    monkeypatch.setattr(selfcheck, "software_roots", lambda: {"controller": package})
    made = tmp_path / "manifest.json"
    selfcheck.make_manifest(made, "2026-11-27T00:00:00Z")
    py_compile.compile(str(package / "late.py"), doraise=True)  # what its first import writes
    assert selfcheck.check_software(made) == []

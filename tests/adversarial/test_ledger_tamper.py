"""The tamper catalogue: an insider with the source and write access to the ledger database,
but not the table's key (issue 13, point 5). Each tampering must be detected; what is out of
reach is listed in docs/security.md ("The books and the shuffler link") with the reason.

The attacker uses the project's own functions (``seal``, ``entry_hash``, ``open_writer``) to
re-seal and re-chain what they edit, as the issue's reproduction did. Every ledger here is
keyed (a keyring in the test's directory, mode 0400), as on a real table.
"""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import ClassVar

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "ledger"))  # ledger_fixtures

from ledger_fixtures import FakeWall, uth_pool

from controller.books.ledger import schema
from controller.books.ledger.db import open_writer, seal
from controller.books.ledger.errors import LedgerCorruptError
from controller.books.ledger.journal import entry_hash, verify_chain
from controller.books.ledger.keys import LedgerKeyError, create_keyring, load_keyring
from controller.books.ledger.powerup import Safeguards, open_ledger
from controller.books.ledger.reader import LedgerReader
from controller.books.ledger.selfcheck import make_manifest, run_checks
from controller.books.ledger.store import Ledger
from controller.books.ledger.verify import verify_ledger
from controller.books.surveillance import RoundReusedError, SurveillanceError, SurveillanceStore

UNLOCK = "DROP TRIGGER journal_no_update; DROP TRIGGER journal_no_delete;"
STAKES = {1: {"progressive": 100, "ante": 500, "blind": 500}, 2: {"progressive": 100}}
PAYOUTS = {1: {"ante": 1000, "blind": 500}}


def play(ledger: Ledger, first: int, count: int) -> None:
    for n in range(first, first + count):
        ledger.open_round(f"r{n}", STAKES, n)
        if n % 3:
            ledger.settle_round(f"r{n}", n, hits={"uth": {1: "full-house"}}, payouts=PAYOUTS)
        else:
            ledger.void_round(f"r{n}", n, rule="MD-S1", cause="wrong count")


@pytest.fixture
def keyring(tmp_path):
    return create_keyring(tmp_path / "table.key")


@pytest.fixture
def ledger_file(tmp_path, keyring):
    path = tmp_path / "ledger.sqlite3"
    with Ledger.open(path, now=0.0, wall_clock=FakeWall(), keyring=keyring) as ledger:
        ledger.configure_pool(uth_pool(), 0.0)
        play(ledger, 0, 12)
    return path


def problems(path: Path, keyring) -> list[str]:
    with LedgerReader.open(path, keyring) as reader:
        return verify_ledger(reader).problems


def attacker_db(path: Path):
    """Write access to the file and the source, no key: the project's writer, unkeyed."""
    db = open_writer(path)
    db.conn.executescript(UNLOCK)
    return db


def reseal(db, table: str, key: tuple, **changes) -> None:
    """Edit a sealed row and seal it again with the project's function (no key)."""
    keys, cols = schema.SEALED[table]
    row = db.select(table, " AND ".join(f"{k} = ?" for k in keys), key, check=False)[0]
    row.update(changes)
    values = [row[n] for n in (*keys, *cols)]
    sets = ", ".join(f"{c} = ?" for c in (*cols, "checksum"))
    where = " AND ".join(f"{k} = ?" for k in keys)
    db.execute(
        f"UPDATE {table} SET {sets} WHERE {where}",
        [*(row[c] for c in cols), seal(table, values), *key],
    )


def test_an_untouched_keyed_ledger_verifies(ledger_file, keyring):
    assert problems(ledger_file, keyring) == []
    with LedgerReader.open(ledger_file, keyring) as reader:
        assert run_checks(reader, None) == []


def test_raising_a_payout_and_resealing_it_is_detected(ledger_file, keyring):
    db = attacker_db(ledger_file)
    paid = {"1": {"ante": 100000, "blind": 500, "progressive": 0}}
    reseal(db, "rounds", ("r4",), paid=json.dumps(paid), paid_total=100500)
    db.close()
    found = problems(ledger_file, keyring)
    assert "rounds row r4 does not match its checksum" in found  # no key: the seal is wrong
    assert any(p.startswith("round r4: paid is") for p in found)  # and the journal says otherwise


def test_raising_a_payout_even_with_the_key_is_caught_by_the_journal(ledger_file, keyring):
    """Defence in depth: someone who stole the key re-seals correctly; the untouched
    round.settled entry still disagrees."""
    db = open_writer(ledger_file)
    db.seal_key = keyring.current
    row = db.get("rounds", ("r4",))
    paid = row["paid_total"]
    db.put("rounds", {**row, "paid_total": paid + 99_000})
    db.close()
    found = problems(ledger_file, keyring)
    assert found == [
        f"round r4: paid_total is {paid + 99_000} in the rounds table but {paid} from the journal"
    ]


def test_lowering_a_stake_and_resealing_it_is_detected(ledger_file, keyring):
    db = attacker_db(ledger_file)
    stakes = {"1": {"ante": 100, "blind": 500, "progressive": 100}, "2": {"progressive": 100}}
    reseal(db, "rounds", ("r5",), stakes=json.dumps(stakes, separators=(",", ":")), staked=800)
    db.close()
    found = problems(ledger_file, keyring)
    assert any(p.startswith("round r5: stakes is") for p in found)
    assert any(p.startswith("round r5: staked is 800") for p in found)


def test_deleting_a_round_is_detected(ledger_file, keyring):
    db = attacker_db(ledger_file)
    db.execute("DELETE FROM round_pools WHERE round_id = 'r3'")
    db.execute("DELETE FROM rounds WHERE round_id = 'r3'")
    db.close()
    found = problems(ledger_file, keyring)
    assert "round r3 is in the journal but has no row" in found
    assert "1 round.opened entries without a round row (or rounds opened twice)" in found


@pytest.mark.parametrize("what", ["reorder", "delete", "rewrite"])
def test_rechaining_the_journal_without_the_key_is_detected(ledger_file, keyring, what):
    """Reordered, deleted or rewritten entries, every hash recomputed with the project's
    entry_hash (unkeyed) and the head fixed: the keyed chain fails at the first one."""
    conn = sqlite3.connect(ledger_file)
    conn.executescript(UNLOCK)
    rows = conn.execute("SELECT seq, kind, mono, wall, data FROM journal ORDER BY seq").fetchall()
    if what == "reorder":
        rows[9], rows[10] = rows[10], rows[9]
    elif what == "delete":
        del rows[9]
    else:
        rows[9] = (*rows[9][:4], rows[9][4].replace('"ante":1000', '"ante":9000'))
    conn.execute("DELETE FROM journal")
    prev = "0" * 64
    for seq, (_, kind, mono, wall, data) in enumerate(rows, 1):
        digest = entry_hash(prev, seq, kind, mono, wall, data)
        conn.execute(
            "INSERT INTO journal VALUES (?, ?, ?, ?, ?, ?, ?)",
            (seq, kind, mono, wall, data, prev, digest),
        )
        prev = digest
    conn.execute("UPDATE meta SET value = ? WHERE key = 'journal_head'", (f"{len(rows)} {prev}",))
    conn.commit()
    conn.close()
    with LedgerReader.open(ledger_file, keyring) as reader:
        report = verify_chain(reader.journal)
    assert report.first_bad == 1 and "was altered" in report.problems[0]
    assert problems(ledger_file, keyring)


def test_a_failed_selfcheck_resealed_as_passed_keeps_the_table_closed(
    tmp_path, ledger_file, keyring
):
    with Ledger.open(ledger_file, now=0.0, keyring=keyring) as ledger:
        ledger.record_selfcheck_failure(["pools row uth does not match its checksum"], 20.0)
    db = attacker_db(ledger_file)
    reseal(db, "selfcheck", (1,), state="ok", failures="[]")
    db.close()
    safeguards = Safeguards(
        simulated=True, table_id="T1", key_path=keyring.path, manifest=tmp_path / "none.json"
    )
    opened = open_ledger(ledger_file, 30.0, FakeWall(), safeguards)
    with opened.ledger:
        assert not opened.status.table_may_open
        assert opened.conditions[0][0] == "selfcheck"
        assert "selfcheck row 1 does not match its checksum" in opened.conditions[0][1]


def test_a_failed_selfcheck_resealed_with_the_key_is_caught_against_the_journal(
    ledger_file, keyring
):
    with Ledger.open(ledger_file, now=0.0, keyring=keyring) as ledger:
        ledger.record_selfcheck_failure(["a pool row was edited"], 20.0)
    db = open_writer(ledger_file)
    db.seal_key = keyring.current
    db.put("selfcheck", {**db.get("selfcheck", (1,)), "state": "ok", "failures": "[]"})
    db.close()
    found = problems(ledger_file, keyring)
    assert any("self-check status row says ok but entry" in p for p in found)
    with LedgerReader.open(ledger_file, keyring) as reader:
        assert [f.kind for f in run_checks(reader, None)] == ["selfcheck"]


def test_a_ledger_forged_from_scratch_without_the_key_is_refused(tmp_path, keyring):
    """Rewriting the whole ledger unkeyed (every seal and hash the project's own): the
    daemon's keyring does not match it."""
    forged = tmp_path / "forged.sqlite3"
    with Ledger.open(forged, now=0.0, wall_clock=FakeWall()) as ledger:  # no key
        ledger.configure_pool(uth_pool(), 0.0)
    with pytest.raises(LedgerKeyError, match="is not keyed"):
        Ledger.open(forged, now=1.0, keyring=keyring)
    with LedgerReader.open(forged, keyring) as reader:
        assert any("not keyed although a keyring" in p for p in verify_ledger(reader).problems)


def test_the_key_file_must_be_private(tmp_path):
    ring = create_keyring(tmp_path / "k.key")
    assert (ring.path.stat().st_mode & 0o777) == 0o400
    ring.path.chmod(0o644)
    with pytest.raises(LedgerKeyError, match="mode 0644"):
        load_keyring(ring.path)


def test_key_rotation_keys_forward_and_old_entries_still_verify(ledger_file, keyring):
    from controller.books.ledger.keys import add_key

    with Ledger.open(ledger_file, now=0.0, keyring=keyring) as ledger:
        rotated = add_key(keyring)
        ledger.rekey(rotated, 50.0, technician="tech", reason="yearly rotation")
        play(ledger, 100, 3)
    assert problems(ledger_file, rotated) == []
    with pytest.raises(LedgerKeyError, match="not in the keyring"):
        Ledger.open(ledger_file, now=1.0, keyring=keyring)  # the old keyring alone


# --- rollback and the witness ----------------------------------------------------------------


class WitnessHandler(BaseHTTPRequestHandler):
    heads: ClassVar[dict[str, dict]] = {}

    def do_GET(self):
        head = self.heads.get(self.path)
        self._answer(200 if head else 404, head or {})

    def do_PUT(self):
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        known = self.heads.get(self.path)
        if known and known["seq"] > body["seq"]:
            return self._answer(409, {})
        self.heads[self.path] = {"seq": body["seq"], "hash": body["hash"]}
        self._answer(204, None)

    def _answer(self, code, body):
        data = b"" if body is None else json.dumps(body).encode()
        self.send_response(code)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args):
        pass


@pytest.fixture
def witness():
    """A real HTTP witness on 127.0.0.1 (the test double of an off-table witness)."""
    WitnessHandler.heads = {}
    server = ThreadingHTTPServer(("127.0.0.1", 0), WitnessHandler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


def test_rolling_back_to_an_older_copy_keeps_the_table_closed(tmp_path, keyring, witness):
    path = tmp_path / "ledger.sqlite3"
    guards = Safeguards(
        simulated=True,
        table_id="T1",
        key_path=keyring.path,
        witness_url=witness,
        manifest=tmp_path / "none.json",
    )
    opened = open_ledger(path, 0.0, FakeWall(), guards)
    with opened.ledger as ledger:
        ledger.configure_pool(uth_pool(), 0.0)
        play(ledger, 0, 3)
    shutil.copy(path, tmp_path / "backup.sqlite3")  # an older, self-consistent copy
    opened = open_ledger(path, 10.0, FakeWall(), guards)
    with opened.ledger as ledger:
        assert opened.conditions == []
        play(ledger, 3, 3)
    for suffix in ("-wal", "-shm"):
        Path(f"{path}{suffix}").unlink(missing_ok=True)
    shutil.copy(tmp_path / "backup.sqlite3", path)  # put back
    assert problems(path, keyring) == []  # consistent in itself: only the witness knows
    opened = open_ledger(path, 20.0, FakeWall(), guards)
    with opened.ledger:
        names = [name for name, _ in opened.conditions]
        assert "ledger-rollback" in names and "selfcheck" in names
        assert not opened.status.table_may_open
        assert (
            "an older copy of the ledger was put back" in dict(opened.conditions)["ledger-rollback"]
        )


def test_an_unreachable_witness_keeps_the_table_closed(tmp_path, keyring):
    guards = Safeguards(
        simulated=True,
        table_id="T1",
        key_path=keyring.path,
        witness_url="http://127.0.0.1:9/",  # the discard port: nothing answers
        manifest=tmp_path / "none.json",
    )
    opened = open_ledger(tmp_path / "ledger.sqlite3", 0.0, FakeWall(), guards)
    with opened.ledger:
        assert [name for name, _ in opened.conditions] == ["witness"]
        assert "cannot be ruled out" in opened.conditions[0][1]


def test_a_witness_answering_garbage_is_a_clear_error(tmp_path, keyring, witness):
    WitnessHandler.heads["/heads/x"] = {"seq": "12", "hash": "zz"}
    from controller.books.ledger.witness import HttpWitness, WitnessError

    with pytest.raises(WitnessError, match="seq must be an integer"):
        HttpWitness(witness).latest("x")


# --- the surveillance store, the database file, the software ----------------------------------


def test_a_reused_round_id_never_overwrites_the_surveillance_record(tmp_path):
    store = SurveillanceStore(tmp_path / "surveillance.sqlite3")
    store.add_round("T1-000001", "uth-gr", {"seats": [1]}, {"paid": 10}, 1.0)
    with pytest.raises(RoundReusedError, match="recorded before"):
        store.add_round("T1-000001", "uth-gr", {"seats": [2]}, {"paid": 99}, 2.0)
    assert store.round("T1-000001")["record"] == {"seats": [1]}
    assert store.db.execute("SELECT count(*) FROM reused").fetchone()[0] == 1


def test_verify_on_a_damaged_file_is_one_line_whatever_page_is_hit(
    tmp_path, ledger_file, keyring, capsys
):
    """Every page of the file damaged in turn: verify finds a problem or names the damaged
    file in one line; never a traceback (an uncaught exception fails this test)."""
    from controller.cli.main import main

    data = ledger_file.read_bytes()
    pages = len(data) // 4096
    assert pages > 5
    outcomes = []
    for page in range(1, pages):
        damaged = tmp_path / f"damaged{page}.sqlite3"
        spoiled = bytearray(data)
        spoiled[4096 * page + 100 : 4096 * page + 4000] = b"\x07" * 3900
        damaged.write_bytes(bytes(spoiled))
        capsys.readouterr()
        code = main(["meters", "verify", "--db", str(damaged), "--key", str(keyring.path)])
        err = capsys.readouterr().err
        if err.strip():  # the file itself could not be read: one line naming it
            assert len(err.strip().splitlines()) == 1 and "damaged" in err, err
            assert code == 1
        outcomes.append("damaged" if err.strip() else code)
    assert "damaged" in outcomes  # (0: a page the ledger does not use, e.g. on the free list)


def test_a_damaged_file_fails_the_selfcheck_instead_of_crashing(tmp_path, ledger_file, keyring):
    with LedgerReader.open(ledger_file, keyring) as reader:

        def broken(*args, **kwargs):
            raise LedgerCorruptError("ledger.sqlite3: the database is damaged")

        reader.db.bad_seals = broken
        failures = run_checks(reader, None)
    assert failures and failures[0].kind == "ledger" and "damaged" in failures[0].text


def test_a_missing_manifest_keeps_a_real_table_closed(tmp_path, keyring):
    guards = Safeguards(
        simulated=False, table_id="T1", key_path=keyring.path, manifest=tmp_path / "missing.json"
    )
    opened = open_ledger(tmp_path / "ledger.sqlite3", 0.0, FakeWall(), guards)
    with opened.ledger:
        assert opened.conditions[0][0] == "selfcheck"
        assert "no software manifest" in opened.conditions[0][1]
    unreadable = tmp_path / "unreadable.json"
    unreadable.write_text("{not json")
    guards = Safeguards(simulated=True, table_id="T1", key_path=keyring.path, manifest=unreadable)
    opened = open_ledger(tmp_path / "l2.sqlite3", 0.0, FakeWall(), guards)
    with opened.ledger:
        assert "unreadable" in opened.conditions[0][1]  # present but bad: even the sim closes


@pytest.mark.integration
def test_the_real_daemon_with_a_changed_file_stays_closed(tmp_path, make_sim_table):
    """croupierd on the simulated table, given a manifest in which one file's hash differs
    (as after an edit of that file): closed with the self-check condition naming the file."""
    manifest = tmp_path / "manifest.json"
    made = make_manifest(manifest, "2026-11-24T00:00:00Z")
    changed = "controller/books/ledger/verify.py"
    made["files"][changed] = "0" * 64
    manifest.write_text(json.dumps(made))
    table = make_sim_table(wait_open=False, env={"CROUPIER_MANIFEST": str(manifest)})
    status = table.wait_until(
        lambda: "selfcheck" in (s := table.status())["conditions"] and s, "self-check"
    )
    assert status["state"] == "closed"
    assert f"{changed} differs from the installed version" in status["conditions"]["selfcheck"]


@pytest.mark.integration
def test_without_a_witness_a_rollback_is_caught_when_a_round_id_is_reused(tmp_path, make_sim_table):
    """The real daemon, no witness: an older copy of the ledger put back opens (it is
    consistent in itself, docs/security.md, "The books and the shuffler link"), but the next
    round reuses a round ID the surveillance store holds: alarm journaled, table closed, the
    first record kept."""

    def play(table):
        table.call("round.seats", seats=[1])
        table.call("round.lock")
        table.wait_for_state("verified")
        table.call("round.confirm")

    table = make_sim_table({"timing": {"settled_display": 0.05}}, start=False)
    ledger = table.state_dir / "ledger.sqlite3"
    table.start()
    table.wait_for_state("open")
    play(table)
    table.wait_for_state("open")
    table.stop()
    shutil.copy(ledger, tmp_path / "backup.sqlite3")
    table.start()
    table.wait_for_state("open")
    play(table)
    table.wait_for_state("open")
    first = SurveillanceStore(table.state_dir / "surveillance.sqlite3", read_only=True)
    kept = first.round("SIM-1-000002")["result"]
    first.close()
    table.stop()
    for suffix in ("-wal", "-shm"):
        Path(f"{ledger}{suffix}").unlink(missing_ok=True)
    shutil.copy(tmp_path / "backup.sqlite3", ledger)
    table.start()
    table.wait_for_state("open")
    play(table)  # numbered SIM-1-000002 again
    table.wait_until(lambda: "round-reused" in table.status()["conditions"], "the alarm")
    table.wait_for_state("closed")  # after the settled display
    assert table.wait_until(lambda: table.journal("alarm.round-reused"), "the alarm journaled")
    store = SurveillanceStore(table.state_dir / "surveillance.sqlite3", read_only=True)
    assert store.round("SIM-1-000002")["result"] == kept
    store.close()


@pytest.fixture
def daemon_umask():
    old = os.umask(0o027)  # the unit's UMask=: files of the state directory are 0640
    yield
    os.umask(old)


def test_the_surveillance_store_is_not_the_socket_groups_to_read(tmp_path, daemon_umask):
    """The state directory is the control group's to read (the ledger is the technicians'),
    so the store, created 0640 under the unit's umask, gave every member of the group (the
    web service too) the cards of every round, past the credentialed surveillance commands.
    A new store is 0600, and one from before is narrowed with its WAL files when opened."""
    new = tmp_path / "new.sqlite3"
    store = SurveillanceStore(new)
    store.add_round("T1-000001", "uth-gr", {"cards": ["As", "Ks"]}, {"paid": 1}, 1.0)
    files = [new, Path(f"{new}-wal"), Path(f"{new}-shm")]
    assert {oct(f.stat().st_mode & 0o777) for f in files} == {"0o600"}
    store.close()
    old = tmp_path / "old.sqlite3"
    for path in (old, Path(f"{old}-wal")):
        path.touch(mode=0o640)
    SurveillanceStore(old).close()
    assert oct(old.stat().st_mode & 0o777) == "0o600"


def test_evidence_bundles_are_not_the_socket_groups_to_read(tmp_path, daemon_umask):
    """A jackpot's evidence bundle names the round's cards; written under the unit's umask
    it was 0640 in a 0750 folder, so every member of the control group read them past the
    credentialed evidence.make. A bundle is 0600 in a 0700 folder; bundles from before are
    narrowed when the next is written and when the daemon starts (narrow_evidence)."""
    from controller.books.evidence import narrow_evidence, write_bundle

    folder = tmp_path / "evidence"
    folder.mkdir()  # 0750 under the umask, as an older daemon made it
    old = folder / "T1-000001.json"
    old.write_text("{}")
    assert oct(old.stat().st_mode & 0o777) == "0o640"
    path = write_bundle(tmp_path, "T1-000002", '{"report": {}}')
    assert path == folder / "T1-000002.json" and path.read_text() == '{"report": {}}'
    modes = {p.name: oct(p.stat().st_mode & 0o777) for p in (folder, old, path)}
    assert modes == {"evidence": "0o700", old.name: "0o600", path.name: "0o600"}
    os.chmod(folder, 0o750)
    os.chmod(old, 0o640)
    narrow_evidence(tmp_path)  # at start
    assert oct(folder.stat().st_mode & 0o777) == "0o700"
    assert oct(old.stat().st_mode & 0o777) == "0o600"
    narrow_evidence(tmp_path / "none")  # no folder yet: nothing to do


def test_a_swapped_surveillance_record_is_refused(tmp_path, keyring):
    path = tmp_path / "surveillance.sqlite3"
    store = SurveillanceStore(path, keyring=keyring)
    store.add_round("T1-000001", "uth-gr", {"seats": [{"cards": ["As", "Ks"]}]}, {"paid": 0}, 1.0)
    store.add_round("T1-000002", "uth-gr", {"seats": [{"cards": ["2c", "7d"]}]}, {"paid": 0}, 2.0)
    store.close()
    conn = sqlite3.connect(path)  # the insider swaps the two rounds' cards
    (one,), (two,) = conn.execute("SELECT record FROM rounds ORDER BY seq").fetchall()
    conn.execute("UPDATE rounds SET record = ? WHERE round_id = 'T1-000001'", (two,))
    conn.execute("UPDATE rounds SET record = ? WHERE round_id = 'T1-000002'", (one,))
    conn.commit()
    conn.close()
    store = SurveillanceStore(path, read_only=True, keyring=keyring)
    with pytest.raises(SurveillanceError, match="does not match its seal"):
        store.round("T1-000001")
    assert len(store.problems()) == 2
    assert SurveillanceStore(path, read_only=True).round("T1-000002")  # readable without key

"""The rules a table plays under are in its journal (docs/ledger.md, "The rules in the
journal"): at a start the daemon's books journal the profile (name, version, origin, the
SHA-256 of its file) and the wager limits when they differ from the last journaled
(``rules.changed``), and the start entry (``selfcheck.passed``) names their digest every
time; ``meters verify`` accepts journals with and without them and catches a forged one."""

from __future__ import annotations

import hashlib
import shutil
import sqlite3
from pathlib import Path

import pytest
from ledger_fixtures import FakeWall

from controller.books.ledger.journal import canonical
from controller.books.ledger.keys import SIM_KEY, create_keyring, load_keyring
from controller.books.ledger.reader import LedgerReader
from controller.books.ledger.rules import rules_before, rules_between, rules_digest
from controller.books.ledger.selfcheck import power_up
from controller.books.ledger.store import Ledger
from controller.books.ledger.verify import verify_ledger
from controller.table.powerup import open_books, safeguards_of
from controller.table.tableconfig import load_table_config

SHIPPED = Path(__file__).resolve().parents[2] / "config" / "profiles" / "uth-gr.toml"


@pytest.fixture(autouse=True)
def no_manifest(tmp_path, monkeypatch):
    # the simulated table skips a missing manifest; no override directory unless a test makes one
    monkeypatch.setenv("CROUPIER_MANIFEST", str(tmp_path / "no-manifest.json"))
    monkeypatch.delenv("CROUPIER_PROFILE_PATH", raising=False)


def table(tmp_path: Path, *, profile: str = "uth-gr", limits: str = "") -> Path:
    path = tmp_path / "table.toml"
    path.write_text(
        f'[table]\nid = "T-1"\nprofile = "{profile}"\n[shuffler]\nemulate = true\n'
        '[pools.main]\nseed = 500000\ncontribution_rate = "15%"\n'
        f"{limits}"
    )
    return path


def start(tmp_path: Path, config_path: Path, now: float) -> None:
    config = load_table_config(config_path)
    books = open_books(config, tmp_path / "ledger.sqlite3", now, FakeWall(), safeguards_of(config))
    books.ledger.close()


def reader(tmp_path: Path) -> LedgerReader:
    key = tmp_path / SIM_KEY  # the simulated table keys its ledger with its own keyring
    keyring = load_keyring(key) if key.exists() else None
    return LedgerReader.open(tmp_path / "ledger.sqlite3", keyring=keyring)


def entries(tmp_path: Path, kind: str) -> list[dict]:
    with reader(tmp_path) as view:
        return [{"seq": e.seq, **e.data} for e in view.journal.entries(kinds={kind})]


def verified(tmp_path: Path) -> list[str]:
    with reader(tmp_path) as view:
        return verify_ledger(view).problems


def test_a_start_journals_the_rules_and_the_start_entry_names_their_digest(tmp_path):
    start(tmp_path, table(tmp_path, limits="[limits]\nante = { min = 500, max = 50000 }\n"), 1.0)
    [changed] = entries(tmp_path, "rules.changed")
    assert changed["profile"] == {
        "name": "uth-gr",
        "version": 1,
        "game": "uth",
        "origin": "shipped",
        "file": "profiles/uth-gr.toml",  # as the software manifest names it
        "sha256": hashlib.sha256(SHIPPED.read_bytes()).hexdigest(),  # sha256sum of the file
    }
    assert changed["limits"] == {"ante": {"min": 500, "max": 50000}}
    assert changed["previous"] is None
    # the digest is recomputable from the entry with any JSON library
    record = {"profile": changed["profile"], "limits": changed["limits"]}
    assert changed["rules_sha256"] == hashlib.sha256(canonical(record).encode()).hexdigest()
    [started] = entries(tmp_path, "selfcheck.passed")
    assert started["rules_sha256"] == changed["rules_sha256"]
    assert started["seq"] > changed["seq"]
    assert verified(tmp_path) == []


def test_an_unchanged_start_journals_no_new_rules_but_names_them_again(tmp_path):
    config = table(tmp_path)
    start(tmp_path, config, 1.0)
    start(tmp_path, config, 2.0)
    start(tmp_path, config, 3.0)
    [changed] = entries(tmp_path, "rules.changed")
    starts = entries(tmp_path, "selfcheck.passed")
    assert [s["rules_sha256"] for s in starts] == [changed["rules_sha256"]] * 3
    assert verified(tmp_path) == []


def test_a_changed_profile_file_or_limit_is_a_new_entry_naming_the_old_digest(
    tmp_path, monkeypatch
):
    profiles = tmp_path / "profiles"
    profiles.mkdir()
    override = profiles / "uth-gr.toml"
    shutil.copy(SHIPPED, override)
    monkeypatch.setenv("CROUPIER_PROFILE_PATH", str(profiles))
    config = table(tmp_path)
    start(tmp_path, config, 1.0)
    # the override edited, its version left as it was: winnings rounded to the nearest chip
    text = override.read_text()
    assert 'rounding = "down"' in text
    override.write_text(text.replace('rounding = "down"', 'rounding = "nearest"', 1))
    start(tmp_path, config, 2.0)
    # and a limit set
    start(tmp_path, table(tmp_path, limits="[limits]\nante = { min = 500, max = 9000 }\n"), 3.0)
    first, second, third = entries(tmp_path, "rules.changed")
    assert first["profile"]["origin"] == "override"
    assert first["profile"]["file"] == str(override.resolve())  # the override path named
    assert second["profile"]["sha256"] == hashlib.sha256(override.read_bytes()).hexdigest()
    assert second["profile"]["version"] == first["profile"]["version"]
    assert second["previous"] == {"seq": first["seq"], "rules_sha256": first["rules_sha256"]}
    assert third["previous"] == {"seq": second["seq"], "rules_sha256": second["rules_sha256"]}
    assert third["limits"] == {"ante": {"min": 500, "max": 9000}}
    assert len({e["rules_sha256"] for e in (first, second, third)}) == 3
    starts = entries(tmp_path, "selfcheck.passed")
    assert [s["rules_sha256"] for s in starts] == [
        e["rules_sha256"] for e in (first, second, third)
    ]
    # the shipped profile again: origin shipped, a fourth entry
    monkeypatch.delenv("CROUPIER_PROFILE_PATH")
    start(tmp_path, config, 4.0)
    fourth = entries(tmp_path, "rules.changed")[-1]
    assert fourth["profile"]["origin"] == "shipped"
    with reader(tmp_path) as view:
        assert rules_before(view.db, second["seq"] + 1)["seq"] == second["seq"]
        assert rules_before(view.db, first["seq"]) is None
    assert verified(tmp_path) == []


def keyed_ledger(tmp_path: Path) -> Ledger:
    """The ledger a simulated table keeps, opened with the ledger's own API."""
    create_keyring(tmp_path / SIM_KEY)
    keyring = load_keyring(tmp_path / SIM_KEY)
    return Ledger.open(tmp_path / "ledger.sqlite3", now=0.0, wall_clock=FakeWall(), keyring=keyring)


def test_verify_accepts_a_journal_from_before_the_rules_entries(tmp_path):
    with keyed_ledger(tmp_path) as ledger:
        assert power_up(ledger, 1.0, None).table_may_open  # no rules: as before this version
        assert entries(tmp_path, "rules.changed") == []
        assert "rules_sha256" not in entries(tmp_path, "selfcheck.passed")[0]
    assert verified(tmp_path) == []
    start(tmp_path, table(tmp_path), 2.0)  # the upgraded daemon on that ledger
    [changed] = entries(tmp_path, "rules.changed")
    assert changed["previous"] is None
    assert verified(tmp_path) == []


def test_verify_catches_a_start_entry_naming_other_rules_and_a_lost_pointer(tmp_path):
    with keyed_ledger(tmp_path) as ledger:
        record = {"profile": {"name": "x"}, "limits": {}}
        assert power_up(ledger, 1.0, None, rules=record).table_may_open
        # an insider drops the pointer to the last rules entry; a start that followed it
        # would journal the rules again as if none were before (the power-up now refuses,
        # below; verify says so whatever wrote the entry)
        ledger.db.execute("DELETE FROM meta WHERE key = 'rules_entry'")
        ledger.journal.write(
            "rules.changed", {**record, "rules_sha256": rules_digest(record), "previous": None}, 2.0
        )
    problems = verified(tmp_path)
    assert any("as the rules before it" in p for p in problems), problems


def tampered_pointer(tmp_path: Path, value: str | None) -> list[str]:
    """Two starts (two rules entries), the meta row rules_entry then set to ``value`` (None:
    deleted) outside the table: what the next power-up's quick check says."""
    start(tmp_path, table(tmp_path), 1.0)
    start(tmp_path, table(tmp_path, limits="[limits]\nante = { min = 500, max = 9000 }\n"), 2.0)
    with sqlite3.connect(tmp_path / "ledger.sqlite3") as db:
        if value is None:
            db.execute("DELETE FROM meta WHERE key = 'rules_entry'")
        else:
            db.execute("UPDATE meta SET value = ? WHERE key = 'rules_entry'", (value,))
    last = entries(tmp_path, "rules.changed")[-1]
    with Ledger.open(
        tmp_path / "ledger.sqlite3",
        now=3.0,
        wall_clock=FakeWall(),
        keyring=load_keyring(tmp_path / SIM_KEY),
    ) as ledger:
        status = power_up(ledger, 3.0, None, rules={"profile": {"name": "y"}, "limits": {}})
        assert not status.table_may_open  # the start journaled no rules after the pointer
    assert entries(tmp_path, "rules.changed")[-1] == last
    return status.failures


@pytest.mark.parametrize(
    ("value", "said"),
    [
        ("first", "is not the last rules.changed entry"),  # the rules before the last
        ("start", "names no rules.changed entry"),  # an entry of another kind
        ("99999", "names no rules.changed entry"),
        ("x1", "names no rules.changed entry"),
        ("9" * 40, "names no rules.changed entry"),  # past SQLite's integers
        (None, "the meta row rules_entry is missing, but journal entry"),
    ],
)
def test_a_tampered_rules_pointer_fails_the_power_up(tmp_path, value, said):
    """The start follows the pointer to the rules last journaled (to name them, and to
    journal new ones only when they changed): the quick check holds it to a rules entry
    whose digest recomputes, the last of the journal's tail; before, only meters verify saw
    a tampered one."""
    if value in ("first", "start"):
        start(tmp_path, table(tmp_path), 0.5)
        kind = "rules.changed" if value == "first" else "selfcheck.passed"
        value = str(entries(tmp_path, kind)[0]["seq"])
    failures = tampered_pointer(tmp_path, value)
    assert any(said in f and "rules" in f for f in failures), failures


def test_a_rules_entry_whose_digest_does_not_recompute_fails_the_power_up(tmp_path):
    """The pointer moved to a rules entry written with a digest that is not its rules' (by
    the ledger's own writer, so its hash is sound): the start would name that digest."""
    with keyed_ledger(tmp_path) as ledger:
        record = {"profile": {"name": "x"}, "limits": {}}
        assert power_up(ledger, 1.0, None, rules=record).table_may_open
        forged = ledger.journal.write(
            "rules.changed", {**record, "rules_sha256": "0" * 64, "previous": None}, 2.0
        )
        ledger.db.execute("UPDATE meta SET value = ? WHERE key = 'rules_entry'", (str(forged.seq),))
        status = power_up(ledger, 3.0, None, rules=record)
    assert not status.table_may_open
    assert any("its rules_sha256 is not the digest of its rules" in f for f in status.failures)


def test_an_untouched_rules_pointer_passes_the_power_up(tmp_path):
    with keyed_ledger(tmp_path) as ledger:
        assert power_up(ledger, 1.0, None).table_may_open  # no rules yet: nothing to point to
        for n, limits in enumerate(({}, {"ante": {"min": 1, "max": 2}}, {})):
            record = {"profile": {"name": "x"}, "limits": limits}
            assert power_up(ledger, 2.0 + n, None, rules=record).table_may_open
    assert verified(tmp_path) == []


def test_a_start_entry_naming_rules_never_journaled_is_a_problem(tmp_path):
    with keyed_ledger(tmp_path) as ledger:
        record = {"profile": {"name": "x"}, "limits": {}}
        power_up(ledger, 1.0, None, rules=record)
        # a start entry written by the ledger's own writer, naming a digest never journaled
        ledger.journal.write("selfcheck.passed", {"rules_sha256": "0" * 64}, 2.0)
        assert rules_digest(record) != "0" * 64
    problems = verified(tmp_path)
    assert any("names rules 0000000000000000" in p for p in problems), problems


@pytest.mark.parametrize("value", ["\u00b2", "9" * 25])
def test_a_pointer_that_is_no_sqlite_integer_finds_no_rules_instead_of_raising(tmp_path, value):
    """Evidence bundles and day reports follow the pointer too (rules_before, rules_between),
    also on a ledger whose power-up failed on it: "²" is a digit to str.isdigit and raised
    ValueError in int(), 25 digits OverflowError in SQLite. No rules found (the power-up's
    check and verify say why)."""
    with keyed_ledger(tmp_path) as ledger:
        assert power_up(ledger, 1.0, None, rules={"profile": {"name": "x"}, "limits": {}})
        ledger.db.execute("UPDATE meta SET value = ? WHERE key = 'rules_entry'", (value,))
        assert rules_before(ledger.db, 100) is None
        assert rules_between(ledger.db, 1, 100) == []
        status = power_up(ledger, 2.0, None, rules={"profile": {"name": "x"}, "limits": {}})
    assert any("names no rules.changed entry" in f for f in status.failures)


def test_a_start_entry_naming_rules_that_are_no_text_is_a_problem_not_a_crash(tmp_path):
    """In a ledger without a key anyone may rewrite the chain; verify says what it found
    (named[:16] raised TypeError on a number)."""
    with Ledger.open(tmp_path / "ledger.sqlite3", now=0.0, wall_clock=FakeWall()) as ledger:
        power_up(ledger, 1.0, None, rules={"profile": {"name": "x"}, "limits": {}})
        ledger.journal.write("selfcheck.passed", {"rules_sha256": 7}, 2.0)
    with LedgerReader.open(tmp_path / "ledger.sqlite3") as view:
        problems = verify_ledger(view).problems
    assert any("names rules 7 but" in p for p in problems), problems

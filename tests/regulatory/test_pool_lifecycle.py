"""Retiring a pool (issue 18 point 5): only on closure or a documented malfunction, with the
technician credential, journaled; the amount moves to another pool or is held; the day
report shows it and still reconciles; verify replays it."""

import json
import sqlite3
from datetime import date
from pathlib import Path

import pytest
import tomli_w
from regulatory_fixtures import NOW, PROFILE, SetWall, context, new_ledger, seat

from controller.books.ledger.errors import LedgerError, RoundStateError
from controller.books.ledger.reader import LedgerReader
from controller.books.ledger.verify import verify_ledger
from controller.books.reports.day import build_day_report
from controller.cli.main import main
from controller.engine.pools.config import pool_config
from controller.engine.profiles import load_profile
from controller.validation import read_toml

JUMBO = load_profile("ch-bg").progressive
SIM = Path(__file__).resolve().parents[2] / "config" / "sim.toml"
DAY = date(2026, 11, 23)


@pytest.fixture
def two_pools(tmp_path):
    wall = SetWall()
    path = tmp_path / "ledger.sqlite3"
    ledger = new_ledger(path, wall)
    ledger.configure_pool(pool_config("j7", JUMBO, seed=1_000_000), 0.0)
    wall.at("2026-11-23T05:00:00+00:00")
    ledger.open_round("r1", {1: seat(500), 2: {**seat(500), "jumbo7": 100}}, 1.0)
    nothing = {"ante": 0, "blind": 0}
    ledger.settle_round("r1", 2.0, hits={"uth": {}, "j7": {}}, payouts={1: nothing, 2: nothing})
    yield ledger, wall, path
    ledger.close()


def retire(ledger, **kw):
    kw.setdefault("technician", "M. Rossi")
    kw.setdefault("reason_code", "closure")
    kw.setdefault("reason", "game closed, licence letter 2026/118")
    return ledger.retire_pool("uth", 3.0, **kw)


def test_retiring_moves_the_amount_and_stops_contributions(two_pools):
    ledger, wall, _ = two_pools
    (_, uth), (_, j7) = ledger.pool("uth"), ledger.pool("j7")
    wall.at("2026-11-23T12:00:00+00:00")
    after = retire(ledger, transfer_to="j7")
    assert after["uth"].current == after["uth"].reserve == 0
    assert after["j7"].current == j7.current + uth.current
    assert after["j7"].reserve == j7.reserve + uth.reserve
    assert verify_ledger(ledger).problems == []
    opened = ledger.open_round("r2", {1: seat(500)}, 4.0)  # a progressive stake: no pool takes it
    assert "uth" not in opened.contributions
    with pytest.raises(LedgerError, match="was retired"):
        ledger.configure_pool(pool_config("uth", PROFILE.progressive, seed=500_000), 5.0)
    (entry,) = ledger.journal.tail(1, {"pool.retired"})
    assert entry.data["reason_code"] == "closure" and entry.data["technician"] == "M. Rossi"


@pytest.mark.parametrize(
    "kw, error, named",
    [
        ({"reason_code": "audit"}, LedgerError, "only on a win or for: closure, malfunction"),
        ({"reason_code": "price change"}, LedgerError, "refused"),
        ({"reason": " "}, LedgerError, "document"),
        ({"transfer_to": "uth"}, LedgerError, "to itself"),
        ({"transfer_to": "nope"}, LedgerError, "no pool 'nope'"),
    ],
)
def test_anything_but_closure_or_malfunction_is_refused(two_pools, kw, error, named):
    ledger, _, _ = two_pools
    head = ledger.journal.head()
    with pytest.raises(error, match=named):
        retire(ledger, **kw)
    assert ledger.journal.head() == head  # nothing written


def test_refused_while_a_round_is_open_or_above_the_cap(two_pools):
    ledger, _, _ = two_pools
    ledger.open_round("open-1", {1: seat(500)}, 3.0)
    with pytest.raises(RoundStateError, match="open on pool uth"):
        retire(ledger)
    ledger.void_round("open-1", 4.0, rule="MD-S2", cause="test")
    j7 = ledger.pool("j7")[1].current
    ledger.configure_pool(pool_config("j7", JUMBO, seed=1_000_000, cap=j7 + 1), 5.0)
    with pytest.raises(LedgerError, match="above the pool's cap"):
        retire(ledger, transfer_to="j7")
    retire(ledger, reason_code="malfunction", reason="meter board fault, ticket 77")
    with pytest.raises(LedgerError, match="was retired"):
        retire(ledger)


def test_the_day_report_shows_the_retirement_and_reconciles(two_pools):
    ledger, wall, path = two_pools
    uth_before = ledger.pool("uth")[1].current
    wall.at("2026-11-23T12:00:00+00:00")
    retire(ledger, transfer_to="j7")
    with LedgerReader.open(path) as reader:
        report = build_day_report(reader, DAY, context(), now=NOW)
    pools = {p["pool"]: p for p in report["pools"]}
    assert pools["uth"]["retired"] and not pools["j7"]["retired"]
    (out,) = pools["uth"]["lifecycle"]
    assert out["action"] == "retired, transferred to j7" and out["amount"] == -uth_before
    (into,) = pools["j7"]["lifecycle"]
    assert into["action"] == "transfer in from uth" and into["amount"] == uth_before
    assert pools["uth"]["closing"]["displayed"] == 0


def test_verify_notices_a_retirement_removed_from_the_books(two_pools):
    ledger, _, path = two_pools
    retire(ledger)
    ledger.close()
    conn = sqlite3.connect(path)
    conn.execute("DELETE FROM meta WHERE key = 'retired_pools'")
    conn.commit()
    conn.close()
    with LedgerReader.open(path) as reader:
        problems = verify_ledger(reader).problems
    assert any("retired pools" in p for p in problems), problems


def test_the_command_needs_the_technician_credential(two_pools, tmp_path, monkeypatch, capsys):
    ledger, _, path = two_pools
    ledger.close()
    config = tmp_path / "table.toml"
    config.write_text(tomli_w.dumps(read_toml(SIM)))  # credential: the sim's "1234"
    args = [
        "meters",
        "retire",
        "uth",
        "--db",
        str(path),
        "--config",
        str(config),
        "--reason-code",
        "closure",
        "--reason",
        "closed",
        "--technician",
        "M. Rossi",
        "--transfer-to",
        "j7",
        "--json",
    ]
    monkeypatch.setenv("CROUPIER_CREDENTIAL", "4321")
    assert main(args) == 1  # a failure (no credential), not a usage error
    assert "wrong technician credential" in capsys.readouterr().err
    monkeypatch.setenv("CROUPIER_CREDENTIAL", "1234")
    assert main(args) == 0
    assert json.loads(capsys.readouterr().out)["uth"]["current"] == 0
    with LedgerReader.open(path) as reader:
        kinds = [e.kind for e in reader.journal.tail(2)]
        assert verify_ledger(reader).problems == []
    assert kinds == ["access-refused", "pool.retired"]

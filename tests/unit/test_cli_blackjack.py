"""`croupier settle` on blackjack rounds, through main(argv) as a technician runs it."""

import io
import json
from pathlib import Path

from controller.cli.main import main

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "trilux-gr-split.json"


def test_settle_blackjack_json(capsys):
    assert main(["settle", str(EXAMPLE), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    seats = {s["seat"]: s for s in out["seats"]}
    assert list(seats[1]["wagers"]) == ["trilux", "main", "main.2", "main.3"]
    assert seats[1]["wagers"]["main"] == {
        "stake": 4000, "result": "win", "paid": 8000, "rule": "BJ-5", "line": "win"
    }  # fmt: skip
    assert seats[3]["wagers"]["main"]["paid"] == 2500  # blackjack 3:2 (BJ-5)
    assert seats[5]["wagers"]["trilux"]["line"] == "straight-flush"  # TRX-2


def test_settle_blackjack_human(capsys):
    assert main(["settle", str(EXAMPLE)]) == 0
    out = capsys.readouterr().out
    assert "dealer: bust 23 (6c Tc 7d)" in out
    assert "  main.2: 18 (8d Kh)" in out and "  main.3: 17 (8s 9d)" in out
    assert "BJ-5 [blackjack]" in out and "TRX-2 [straight-flush]" in out


def test_settle_blackjack_from_stdin_with_profile_override(monkeypatch, capsys):
    data = json.loads(EXAMPLE.read_text())
    del data["profile"]
    monkeypatch.setattr("sys.stdin", io.StringIO(json.dumps(data)))
    assert main(["settle", "-", "--profile", "trilux-gr", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["profile"] == "trilux-gr"


def test_illegal_blackjack_round_is_one_line(tmp_path, capsys):
    data = json.loads(EXAMPLE.read_text())
    data["seats"][2]["actions"] = {"main": ["double"]}  # 7c 8c = 15: no double (BJ-6)
    path = tmp_path / "r.json"
    path.write_text(json.dumps(data))
    assert main(["settle", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert err.startswith("croupier settle: seat 5 main (15): double refused") and "(BJ-6)" in err

"""`croupier settle` on blackjack rounds and `croupier par` on the trilux-gr profile, through
main(argv) as a technician runs them."""

import io
import json
from math import comb
from pathlib import Path

import pytest

from controller.cli.main import main

EXAMPLE = Path(__file__).resolve().parents[3] / "examples" / "trilux-gr-split.json"


def test_settle_blackjack_json(capsys):
    assert main(["settle", str(EXAMPLE), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    seats = {s["seat"]: s for s in out["seats"]}
    assert list(seats[1]["wagers"]) == ["trilux", "main", "main.2", "main.3"]
    assert seats[1]["wagers"]["main"] == {
        "stake": 4000,
        "result": "win",
        "paid": 8000,
        "rule": "BJ-5",
        "line": "win",
    }
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
    assert main(["settle", str(path)]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert err.startswith("croupier settle: seat 5 main (15): double refused") and "(BJ-6)" in err


@pytest.mark.parametrize("decks", [4, 5, 6])
def test_par_trilux_json(decks, capsys):
    assert main(["par", "--profile", "trilux-gr", "--decks", str(decks), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["profile"] == "trilux-gr" and out["decks"] == decks
    bet = out["bets"]["trilux"]
    total = comb(52 * decks, 3)
    assert bet["combinations"] == total
    assert sum(line["combinations"] for line in bet["lines"]) == total
    lines = {line["hand"]: line for line in bet["lines"]}
    assert lines["three-of-a-kind"]["combinations"] == 13 * comb(4 * decks, 3)  # TRX-2
    assert lines["suited-akq"]["combinations"] == 4 * decks**3
    assert bet["house_edge"] == pytest.approx(1 - bet["return"])


def test_par_trilux_human_defaults_to_the_profile_shoe(capsys):
    assert main(["par", "--profile", "trilux-gr"]) == 0
    out = capsys.readouterr().out
    assert "Trilux Bonus (TRX-2)" in out and "6-deck shoe" in out
    assert "house edge 4.4124%" in out


@pytest.mark.parametrize("decks", ["3", "7"])
def test_par_trilux_refuses_other_shoes_in_one_line(decks, capsys):
    assert main(["par", "--profile", "trilux-gr", "--decks", decks]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "4 to 6 decks (BJ-1)" in err
